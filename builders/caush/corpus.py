"""Natural CausH sentences from Universal Dependencies Hebrew treebanks (CoNLL-U).

A sentence is kept when its main verb (the root of the tree) is a VERB whose ``HebBinyan`` is one
of the four binyanim; every other sentence is skipped and counted by reason. Malformed files fail
with ``file:line``. Without local files the UD Hebrew releases named in template.yaml are
downloaded once into a cache folder.
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

CONTENT_UPOS = ("NOUN", "PROPN", "VERB", "ADJ")
_ID = re.compile(r"^(\d+)(?:-(\d+)|\.(\d+))?$")
_HEAD = re.compile(r"^(\d+|_)$")
_FEATS = re.compile(r"^(_|[A-Za-z0-9\[\]]+=[A-Za-z0-9,]+(\|[A-Za-z0-9\[\]]+=[A-Za-z0-9,]+)*)$")
_SQUASH = re.compile(r"[\W_]+", re.UNICODE)


class CorpusError(LexiconError):
    """A CoNLL-U file is malformed; the message names the file, line and sentence."""




@dataclass(frozen=True)
class CorpusSentence:
    """One extracted sentence: text, phrase chunks, the binyan and lemma of its main verb."""

    text: str
    chunks: tuple[str, ...]
    binyan: str
    lemma: str
    source: str                      # file name and sent_id
    keys: frozenset[str] = field(default=frozenset(), compare=False)  # content stems and lemmas


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

def _blocks(path: Path) -> Iterable[tuple[int, list[str]]]:
    """(first line number, lines) of every sentence block, comments included."""
    block, start = [], 0
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
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
    if not path.exists():
        raise CorpusError(path, None, "file", "no such CoNLL-U file")
    for start, lines in _blocks(path):
        _check_block(path, start, lines)
        if all(line.startswith("#") for line in lines):
            continue
        try:
            sentences = conllu.parse("\n".join(lines) + "\n\n")
        except conllu.exceptions.ParseException as err:
            raise CorpusError(path, start, "sentence", f"unparsable CoNLL-U: {err}") from None
        for sentence in sentences:
            yield start, sentence


# --- extraction ----------------------------------------------------------------------------------

def _space_after(token: dict) -> bool:
    misc = token.get("misc") or {}
    return misc.get("SpaceAfter") != "No"


def _surface_units(sentence: conllu.TokenList) -> list[tuple[str, bool, list[int]]]:
    """(form, space after, word ids) of every surface token; multiword tokens count once."""
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
    """The sentence cut into the phrases headed by the root's dependents (and the verb itself);
    punctuation joins the preceding phrase. Also returns the number of non-punctuation tokens."""
    words = {t["id"]: t for t in sentence if isinstance(t["id"], int)}
    root = next(i for i, t in words.items() if t["head"] == 0)

    def top(i: int) -> int:
        seen = set()
        while i != root and words[i]["head"] != root and i not in seen:
            seen.add(i)
            i = words[i]["head"]
        return i

    groups: list[list] = []  # [group, text]
    n_words = 0
    for form, space, ids in _surface_units(sentence):
        is_punct = all(words[i]["upos"] == "PUNCT" for i in ids if i in words)
        n_words += not is_punct
        group = groups[-1][0] if is_punct and groups else top(ids[0])
        if groups and groups[-1][0] == group:
            groups[-1][1] += form + (" " if space else "")
        else:
            groups.append([group, form + (" " if space else "")])
    return tuple(text.strip() for _, text in groups if text.strip()), n_words


def extract(paths: Sequence[Path], binyanim: Sequence[str], min_words: int, max_words: int) -> Extraction:
    """Sentences whose main verb is in one of ``binyanim``; the others are skipped and counted."""
    kept, skipped, seen, read = [], Counter(), set(), 0
    for path in paths:
        path = Path(path)
        for start, sentence in read_conllu(path):
            read += 1
            words = [t for t in sentence if isinstance(t["id"], int)]
            root = next(t for t in words if t["head"] == 0)
            if root["upos"] != "VERB":
                skipped["main verb is not a VERB"] += 1
                continue
            binyan = (root["feats"] or {}).get("HebBinyan")
            if binyan is None:
                skipped["main verb lacks HebBinyan"] += 1
                continue
            if binyan not in binyanim:
                skipped[f"main verb in {binyan}"] += 1
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
            keys = set(morphology.content_stems(text, "he"))
            keys |= {f"{t['upos']}:{t['lemma']}" for t in words if t["upos"] in CONTENT_UPOS and t["lemma"] != "_"}
            sid = sentence.metadata.get("sent_id", f"line {start}")
            kept.append(CorpusSentence(text, chunks, binyan, root["lemma"], f"{path.name}#{sid}", frozenset(keys)))
    result = Extraction(kept, skipped, read)
    logger.info("CausH natural: %s", result.summary())
    return result
