"""Natural CausH sentences from Universal Dependencies Hebrew treebanks (CoNLL-U).

A sentence is kept when its root is a verb whose ``HebBinyan`` is one of the four binyanim (rules
in ``labelling_verb``); every other sentence is skipped and counted by reason.
Malformed files fail with ``file:line``. Without local files the UD Hebrew releases named in
template.yaml are downloaded once into a cache folder. ``extract(...).summary()`` says what a set
of files yields.
"""

from __future__ import annotations

import logging
import os
import re
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import conllu

from builders import morphology
from builders.base import SourceUnavailable  # noqa: F401 - re-exported
from builders.lexicon import LexiconError

logger = logging.getLogger(__name__)

# Lemmas of these parts of speech are the content words type III keeps apart (function-word
# lemmas of builders/morphology/function_words/he.txt and lemmas without a letter excepted).
CONTENT_UPOS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"})
# Roots without a binyan whose infinitive complement (csubj/xcomp) labels the sentence: "יש לבדוק",
# "אין להסיק", "אפשר להכין".
EXISTENTIALS = frozenset({"יש", "אין"})
IMPERSONALS = EXISTENTIALS | {"אפשר"}
_ID = re.compile(r"^(\d+)(?:-(\d+)|\.(\d+))?$")
_HEAD = re.compile(r"^(\d+|_)$")
_FEATS = re.compile(r"^(_|[A-Za-z0-9\[\]]+=[A-Za-z0-9,]+(\|[A-Za-z0-9\[\]]+=[A-Za-z0-9,]+)*)$")
_SQUASH = re.compile(r"[\W_]+", re.UNICODE)
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)


class CorpusError(LexiconError):
    """A CoNLL-U source is malformed or unreadable; the message names the file and line."""


@dataclass(frozen=True)
class CorpusSentence:
    """One extracted sentence: text, phrase chunks, the binyan and lemma of its main predicate."""

    text: str
    chunks: tuple[str, ...]
    binyan: str
    lemma: str
    source: str                      # file name and sent_id
    # type III keys: content lemmas (UD lemmas see through the prefixes ו ש ה ב ל מ כ) and the
    # validator's surface stems (builders.morphology.content_stems), which it checks in the context
    content_lemmas: frozenset[str] = field(default=frozenset(), compare=False)
    surface_stems: frozenset[str] = field(default=frozenset(), compare=False)


@dataclass
class Extraction:
    sentences: list[CorpusSentence]
    skipped: Counter                 # reason -> count
    read: int

    def summary(self) -> str:
        per = Counter(s.binyan for s in self.sentences)
        kept = ", ".join(f"{b} {n}" for b, n in sorted(per.items()))
        skipped = ", ".join(f"{reason} {n}" for reason, n in self.skipped.most_common())
        return f"read {self.read} sentences; kept {len(self.sentences)} ({kept}); skipped: {skipped or 'none'}"


# --- sources -------------------------------------------------------------------------------------

def cache_dir() -> Path:
    return Path(os.environ.get("BLM_CACHE", Path.home() / ".cache" / "blm")) / "ud"


def _offline() -> str | None:
    for var in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"):
        if os.environ.get(var, "").strip().lower() in {"1", "true", "yes", "on"}:
            return var
    return None


def fetch_default_sources(urls: Sequence[str], config: str) -> list[Path]:
    """The default treebank files, downloaded once into ``cache_dir()``."""
    folder = cache_dir()
    paths = []
    hint = (f"pass local UD Hebrew CoNLL-U files instead: `blm generate {config} --sources FILE ...` or "
            f"`load_dataset('blm', '{config}', sources=[...])`")
    for url in urls:
        path = folder / url.rstrip("/").rsplit("/", 1)[-1]
        if not path.exists():
            offline = _offline()
            if offline:
                raise SourceUnavailable(f"{config}: no CoNLL-U sources given and {offline} is set, so the UD "
                                        f"Hebrew treebank {url} cannot be downloaded; {hint}")
            folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".part")
            try:
                logger.info("downloading %s", url)
                with urllib.request.urlopen(url, timeout=60) as response, open(tmp, "wb") as out:  # noqa: S310
                    out.write(response.read())
            except (urllib.error.URLError, OSError, TimeoutError) as err:
                tmp.unlink(missing_ok=True)
                raise SourceUnavailable(f"{config}: no CoNLL-U sources given and the UD Hebrew treebank {url} "
                                        f"could not be downloaded ({err}); {hint}") from None
            tmp.replace(path)
        paths.append(path)
    return paths


# --- reading -------------------------------------------------------------------------------------

def _lines(path: Path) -> Iterable[tuple[int, str]]:
    """(line number, text) of a UTF-8 file; unreadable or non-UTF-8 input fails at its line."""
    if not path.exists():
        raise CorpusError(path, None, "file", "no such CoNLL-U file")
    if path.is_dir():
        raise CorpusError(path, None, "file", "is a folder, not a CoNLL-U file; give the .conllu files in it")
    try:
        handle = open(path, "rb")
    except OSError as err:
        raise CorpusError(path, None, "file", f"cannot be read ({err.strerror})") from None
    with handle:
        for number, raw in enumerate(handle, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise CorpusError(path, number, "file", f"not UTF-8 (byte 0x{raw[err.start]:02x} at column "
                                  f"{err.start + 1}); CoNLL-U files are UTF-8") from None
            yield number, line.removeprefix("\ufeff") if number == 1 else line


def _blocks(path: Path) -> Iterable[tuple[int, list[str]]]:
    """(first line number, lines) of every sentence block, comments included."""
    block, start = [], 0
    for number, line in _lines(path):
        line = line.rstrip("\n").rstrip("\r")
        if not line.strip():
            if block:
                yield start, block
            block = []
            continue
        if not block:
            start = number
        block.append(line)
    if block:
        yield start, block


def _check_block(path: Path, start: int, lines: list[str]) -> None:
    """Column-level checks with exact line numbers (conllu's own errors carry none)."""
    words, root_line, sid = [], None, None
    for offset, line in enumerate(lines):
        number = start + offset
        if line.startswith("#"):
            if line.startswith("# sent_id"):
                sid = line.partition("=")[2].strip()
            continue
        where = f"sentence {sid}" if sid else "token"
        cols = line.split("\t")
        if len(cols) != 10:
            raise CorpusError(path, number, where, f"expected 10 tab-separated columns, found {len(cols)}")
        match = _ID.match(cols[0])
        if not match:
            raise CorpusError(path, number, where, f"bad ID {cols[0]!r}")
        if match.group(2) or match.group(3):
            continue  # multiword token or empty node
        if not _HEAD.match(cols[6]):
            raise CorpusError(path, number, where, f"bad HEAD {cols[6]!r}")
        if not _FEATS.match(cols[5]):
            raise CorpusError(path, number, where, f"bad FEATS {cols[5]!r}")
        words.append((int(cols[0]), cols[6], number))
        if cols[6] == "0":
            if root_line is not None:
                raise CorpusError(path, number, where, f"second root (the first is on line {root_line})")
            root_line = number
    if not words:
        return
    where = f"sentence {sid}" if sid else "sentence"
    for expected, (wid, head, number) in enumerate(words, 1):
        if wid != expected:
            raise CorpusError(path, number, where, f"word ID {wid} out of sequence (expected {expected})")
        if head == "_" or int(head) > len(words):
            raise CorpusError(path, number, where, f"HEAD {head} is not a word of the sentence")
    if root_line is None:
        raise CorpusError(path, start, where, "no word has HEAD 0 (no root)")


def read_conllu(path: Path) -> Iterable[tuple[int, conllu.TokenList]]:
    """Sentences of a CoNLL-U file with their first line, checked as they are read."""
    path = Path(path)
    count = 0
    for start, lines in _blocks(path):
        _check_block(path, start, lines)
        if all(line.startswith("#") for line in lines):
            continue
        try:
            sentences = conllu.parse("\n".join(lines) + "\n\n")
        except conllu.exceptions.ParseException as err:
            raise CorpusError(path, start, "sentence", f"unparsable CoNLL-U: {err}") from None
        for sentence in sentences:
            count += 1
            yield start, sentence
    if not count:
        raise CorpusError(path, 1, "file", "no sentences (empty CoNLL-U file?)")


# --- the labelling verb --------------------------------------------------------------------------

# Sentence adverbs that a treebank may tag as a VERB root with a binyan (כנראה "apparently" is
# כ + נראה, NIFAL): never a predicate.
SENTENCE_ADVERBS = frozenset({"כנראה", "כביכול"})

NOT_A_VERB = "root is not a verb ({upos})"
COPULAR = "copular clause"
MODAL = "root is a modal or impersonal predicate (ניתן ל…, נראה ש…)"
PASSIVE_PARTICIPLE = "root is a PAAL passive participle, used as an adjective (עשוי, תלוי)"
EXISTENTIAL = "existential or modal root without an infinitive complement"
ADVERB = "root is a sentence adverb (כנראה…)"
NO_BINYAN = "root verb lacks HebBinyan"
OTHER_BINYAN = "root verb in {binyan}"


def _feats(token: dict) -> dict:
    return token.get("feats") or {}


def _is_modal(token: dict) -> bool:
    """Predicates that take a clause: modals and the existentials יש/אין (יש לבדוק: one must check)."""
    feats = _feats(token)
    return (feats.get("VerbType") == "Mod" or feats.get("HebExistential") == "Yes"
            or token["lemma"] in EXISTENTIALS)


def _children(words: dict[int, dict], head: int, relations: Sequence[str]) -> list[dict]:
    return [t for i, t in sorted(words.items()) if t["head"] == head and t["deprel"].split(":")[0] in relations]


def _surface_form(token: dict, sentence: conllu.TokenList | None) -> str:
    """The surface token holding ``token`` (a multiword token's form, e.g. כנראה for כ + נראה)."""
    for unit in sentence or ():
        tid = unit["id"]
        if isinstance(tid, tuple) and tid[1] == "-" and tid[0] <= token["id"] <= tid[2]:
            return unit["form"]
    return token["form"]


def labelling_verb(words: dict[int, dict], sentence: conllu.TokenList | None = None
                   ) -> tuple[dict | None, str | None]:
    """(the verb whose binyan labels the sentence, None), or (None, the reason there is none).

    The verb is the sentence's root, a VERB with ``HebBinyan``: also an infinitive root under a
    modal auxiliary (UD Hebrew makes צריך/יכול/עלול AUX and the infinitive the root: "הפלזמה צריכה
    להינתן" is NIFAL). One exception: a root יש/אין/אפשר without a binyan of its own whose infinitive
    complement (csubj/xcomp) carries one ("יש לזכור" → לזכור) - the infinitive is the sentence's
    only lexical verb. Everything else is skipped with its reason: a root that is not a VERB
    (nominal sentences, adjectival participles, which UD mostly tags ADJ, adverbs), a root with a
    copula, a modal or impersonal root that has a binyan itself, marked VerbType=Mod or taking a
    clausal subject (ניתן לקזז: NIFAL ניתן or PIEL לקזז? נראה ש…: an evidential), a PAAL passive
    participle (עשוי "made of", תלוי "depends": adjectival; NIFAL/HUFAL participles are verbal
    passives and stay), a sentence adverb tagged VERB (כנראה), a verb without ``HebBinyan``.
    Verbs of other clauses never label.
    """
    root = next(t for t in words.values() if t["head"] == 0)
    if root["upos"] != "VERB":
        if _children(words, root["id"], ("cop",)):
            return None, COPULAR
        return None, NOT_A_VERB.format(upos=root["upos"])
    if _children(words, root["id"], ("cop",)):
        return None, COPULAR
    if root["form"] in SENTENCE_ADVERBS or _surface_form(root, sentence) in SENTENCE_ADVERBS:
        return None, ADVERB
    feats = _feats(root)
    if "HebBinyan" in feats and (feats.get("VerbType") == "Mod" or _children(words, root["id"], ("csubj",))):
        return None, MODAL
    if feats.get("HebBinyan") == "PAAL" and feats.get("VerbForm") == "Part" and feats.get("Voice") == "Pass":
        return None, PASSIVE_PARTICIPLE
    if _is_modal(root) or root["lemma"] in IMPERSONALS:
        for child in _children(words, root["id"], ("csubj", "xcomp")):
            cf = _feats(child)
            if child["upos"] == "VERB" and cf.get("VerbForm") == "Inf" and "HebBinyan" in cf:
                return child, None
        return None, EXISTENTIAL
    if "HebBinyan" not in feats:
        return None, NO_BINYAN
    return root, None


# --- surface words and chunks --------------------------------------------------------------------

def _space_after(token: dict) -> bool:
    misc = token.get("misc") or {}
    return misc.get("SpaceAfter") != "No"


def _surface_units(sentence: conllu.TokenList) -> list[tuple[str, bool, list[int]]]:
    """(form, space after, word ids) of every surface token; a multiword token (1-2 בבית) is one."""
    units, covered_to = [], 0
    for token in sentence:
        tid = token["id"]
        if isinstance(tid, tuple):
            if tid[1] == "-":
                units.append((token["form"], _space_after(token), list(range(tid[0], tid[2] + 1))))
                covered_to = tid[2]
            continue  # empty nodes have no surface form
        if tid > covered_to:
            units.append((token["form"], _space_after(token), [tid]))
    return units


def chunks_of(sentence: conllu.TokenList) -> tuple[tuple[str, ...], int]:
    """The sentence cut into the phrases headed by the root's dependents (and the root itself),
    made of whole surface tokens; punctuation joins the preceding phrase. Also returns the number
    of surface words: space-separated stretches of tokens (ב-2004 is one) not all punctuation."""
    words = {t["id"]: t for t in sentence if isinstance(t["id"], int)}
    root = next(i for i, t in words.items() if t["head"] == 0)

    def top(i: int) -> int:
        seen = set()
        while i != root and words[i]["head"] != root and i not in seen:
            seen.add(i)
            i = words[i]["head"]
        return i

    groups: list[list] = []  # [group, text]
    n_words, in_word = 0, False
    for form, space, ids in _surface_units(sentence):
        is_punct = all(words[i]["upos"] == "PUNCT" for i in ids if i in words)
        if not is_punct and not in_word:
            n_words, in_word = n_words + 1, True
        in_word = in_word and not space
        group = groups[-1][0] if is_punct and groups else top(ids[0])
        if groups and groups[-1][0] == group:
            groups[-1][1] += form + (" " if space else "")
        else:
            groups.append([group, form + (" " if space else "")])
    return tuple(text.strip() for _, text in groups if text.strip()), n_words


def content_lemmas(words: Iterable[dict]) -> frozenset[str]:
    """``UPOS:lemma`` of the content words (``CONTENT_UPOS``; the part of speech keeps homographs
    such as שר "sang"/"minister" apart); left out: function words, modals and existentials (ניתן
    "it is possible", יש, אין), numbers in digits."""
    stop = morphology.function_words("he")
    return frozenset(f"{t['upos']}:{t['lemma']}" for t in words if t["upos"] in CONTENT_UPOS
                     and t["lemma"] not in stop and not _is_modal(t) and _LETTER.search(t["lemma"] or ""))


# --- extraction ----------------------------------------------------------------------------------

def extract(paths: Sequence[Path], binyanim: Sequence[str], min_words: int, max_words: int) -> Extraction:
    """Sentences whose root verb (``labelling_verb``) is in one of ``binyanim``; the others are
    skipped and counted by reason."""
    kept, skipped, seen, read = [], Counter(), set(), 0
    for path in paths:
        path = Path(path)
        for start, sentence in read_conllu(path):
            read += 1
            words = {t["id"]: t for t in sentence if isinstance(t["id"], int)}
            verb, reason = labelling_verb(words, sentence)
            if verb is None:
                skipped[reason] += 1
                continue
            binyan = _feats(verb)["HebBinyan"]
            if binyan not in binyanim:
                skipped[OTHER_BINYAN.format(binyan=binyan)] += 1
                continue
            chunks, n_words = chunks_of(sentence)
            if not min_words <= n_words <= max_words:
                skipped[f"length outside {min_words}-{max_words} words"] += 1
                continue
            text = sentence.metadata.get("text") or " ".join(chunks)
            if _SQUASH.sub("", "".join(chunks)) != _SQUASH.sub("", text):
                skipped["text does not match the tokens"] += 1
                continue
            if text in seen:
                skipped["duplicate sentence"] += 1
                continue
            seen.add(text)
            sid = sentence.metadata.get("sent_id", f"line {start}")
            kept.append(CorpusSentence(text, chunks, binyan, verb["lemma"], f"{path.name}#{sid}",
                                       content_lemmas(words.values()), morphology.content_stems(text, "he")))
    result = Extraction(kept, skipped, read)
    logger.info("CausH natural: %s", result.summary())
    return result
