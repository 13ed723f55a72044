"""Italian: il/lo/l'/la/i/gli/le by spelling, articulated prepositions (del, sullo, nell' …)."""

from __future__ import annotations

import re
from collections.abc import Mapping

HUNSPELL = "it_IT"  # spell-check dictionary (builders/spellcheck.py)
HUNSPELL_PACKAGE = "hunspell-it"

NOUN_FIELDS = ("gender", "sg", "pl")
GENDERS = ("m", "f")

VOWELS = "aeiouàèéìòóùAEIOU"
_LO = re.compile(r"^(s[^aeiouàèéìòù]|z|gn|ps|pn|x|y|i[aeiou])", re.I)
# preposition -> stem fused with the article's tail: di + il = del, in + gli = negli
ARTICULATED = {"di": "de", "a": "a", "da": "da", "in": "ne", "su": "su"}
_SUFFIX = {"il": "l", "lo": "llo", "l'": "ll'", "la": "lla", "i": "i", "gli": "gli", "le": "lle"}

def article(entry: Mapping, number: str) -> str:
    if "article" in entry and number in entry["article"]:
        return entry["article"][number]
    form = entry[number]
    masc = entry["gender"] == "m"
    if number == "sg":
        if form[0] in VOWELS:
            return "l'"
        if masc:
            return "lo" if _LO.match(form) else "il"
        return "la"
    if not masc:
        return "le"
    return "gli" if form[0] in VOWELS or _LO.match(form) else "i"

def _join(art: str, form: str) -> str:
    return f"{art}{form}" if art.endswith("'") else f"{art} {form}"

def definite(entry: Mapping, number: str) -> str:
    return _join(article(entry, number), entry[number])

def prep_phrase(prep: str, entry: Mapping, number: str, modified: bool = False) -> str:
    """``prep`` may be compound (``vicino a``): its last word fuses with the article."""
    head, _, last = prep.rpartition(" ")
    art = article(entry, number)
    if last in ARTICULATED:
        phrase = _join(ARTICULATED[last] + _SUFFIX[art], entry[number])
    else:
        phrase = f"{last} {_join(art, entry[number])}"
    return f"{head} {phrase}" if head else phrase

def genitive(entry: Mapping, number: str) -> str:
    return prep_phrase("di", entry, number)

def coordinate(entry: Mapping, number: str, prep: str = "") -> str:
    """``e <NP>``; with ``prep``, the conjunct repeats the preposition (``e <prep> <NP>``)."""
    if prep:
        return f"e {prep_phrase(prep, entry, number)}"
    return f"e {definite(entry, number)}"

def finalize(text: str) -> str:
    return text
