"""Per-language morphology shared by every phenomenon: articles, contractions, agreement.

Each language module exposes the same small API (``definite``, ``prep_phrase``, ``genitive``,
``coordinate``, ``finalize``); lexicons carry the inflected forms the rules cannot predict.

A language exists when its pieces do: ``<code>.py`` here (declaring ``HUNSPELL``, the spell-check
dictionary, and ``HUNSPELL_PACKAGE``, the Debian package that installs it) and
``function_words/<code>.txt``. A missing piece is an error that names the file.
"""

from __future__ import annotations

import functools
import importlib
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from builders.errors import InputError

_HERE = Path(__file__).parent
# the languages whose morphology module is present: adding <code>.py adds the language
LANGUAGES = tuple(sorted(p.stem for p in _HERE.glob("*.py") if p.stem != "__init__"))
HUNSPELL_FIELDS = ("HUNSPELL", "HUNSPELL_PACKAGE")


@functools.cache
def language(code: str) -> ModuleType:
    """The morphology module of a language (``builders.morphology.fr`` …)."""
    path = _HERE / f"{code}.py"
    if not path.exists():
        raise InputError(f"no morphology for language {code!r}: {path} is missing; write it (articles, "
                         f"prep_phrase, genitive, coordinate, finalize, HUNSPELL) as for {', '.join(LANGUAGES)}")
    module = importlib.import_module(f"{__name__}.{code}")
    for name in HUNSPELL_FIELDS:
        if not isinstance(getattr(module, name, None), str):
            raise InputError(f"{path}: no {name} constant: name the spell-check dictionary (HUNSPELL = \"fr_FR\") "
                             "and its Debian package (HUNSPELL_PACKAGE = \"hunspell-fr\")")
    function_words(code)  # the lexical-overlap checks need them: a missing list fails here, named
    return module


@functools.cache
def function_words(code: str) -> frozenset[str]:
    """Closed-class words of a language (articles, prepositions, auxiliaries, pronouns …)."""
    path = _HERE / "function_words" / f"{code}.txt"
    if not path.exists():
        raise InputError(f"no function-word list for language {code!r}: {path} is missing; the lexical-overlap "
                         "checks need one word per line (articles, prepositions, auxiliaries, pronouns …)")
    words = (w.strip().lower() for w in path.read_text(encoding="utf-8").split())
    return frozenset(w for w in words if w and not w.startswith("#"))


_TOKEN = re.compile(r"[^\W\d_]+(?:[-'][^\W\d_]+)*", re.UNICODE)
_ELIDED = re.compile(r"\b(?:l|d|qu|s|n|j|m|t|c|dell|all|dall|nell|sull|coll|un|quell|nessun)'", re.I)


# letters kept by the stemmer: Romanian stems alternate vowels early (barcă/bărci, râu/râuri)
STEM_WIDTH = {"ro": 3}


@functools.lru_cache(maxsize=1 << 16)
def _stem(token: str, width: int) -> str:
    """A token's stem proxy: accents folded, final -s dropped, cut to ``width`` letters (cached)."""
    folded = token if token.isascii() else "".join(
        c for c in unicodedata.normalize("NFD", token) if not unicodedata.combining(c))
    return folded.removesuffix("s")[:width]


@functools.lru_cache(maxsize=1 << 15)  # bounded so that generation memory stays flat in --size
def content_stems(sentence: str, code: str) -> frozenset[str]:
    """Crude content-lemma proxies: non-function words, accents folded, final -s dropped, cut short.

    Used to measure lexical overlap between sentences (type I/II/III checks) without a lemmatiser;
    the cut makes the inflections of a word (``vélo``/``vélos``, ``vuoto``/``vuote``) count as one.
    """
    stop, width = function_words(code), STEM_WIDTH.get(code, 4)
    tokens = _TOKEN.findall(_ELIDED.sub("", sentence.lower()))
    return frozenset(_stem(tok, width) for tok in tokens if tok not in stop)


# sentences whose stems are kept (cleared when full): planning and the record checks read every context sentence
_SENTENCE_STEMS: dict[tuple[str, str], frozenset[str]] = {}


def sentence_stems(text: str, chunks: Sequence[str], code: str) -> frozenset[str]:
    """``content_stems(text, code)`` of a sentence that is its chunks joined by spaces plus a full stop, as the union
    of its chunks' stems: no token or elision crosses a space, and the chunks recur far more than the sentences, so
    their stems are mostly cached. Any other text is stemmed whole. Either way the stems are the text's, so they
    are kept by text."""
    key = (text, code)
    try:
        return _SENTENCE_STEMS[key]
    except KeyError:
        pass
    if len(_SENTENCE_STEMS) >= 1 << 15:
        _SENTENCE_STEMS.clear()
    if text != " ".join(chunks) + ".":
        stems = content_stems(text, code)
    else:
        stems = frozenset().union(*(content_stems(chunk, code) for chunk in chunks))
    _SENTENCE_STEMS[key] = stems
    return stems
