"""Spanish: el/la/los/las, contractions del/al, el before a feminine noun in stressed a- (el aula)."""

from __future__ import annotations

from collections.abc import Mapping

HUNSPELL = "es_ES"  # spell-check dictionary (builders/spellcheck.py)
HUNSPELL_PACKAGE = "hunspell-es"

NOUN_FIELDS = ("gender", "sg", "pl")
GENDERS = ("m", "f")

# a + el = al, de + el = del; no other preposition fuses
CONTRACTIONS = {"a": "al", "de": "del"}

def article(entry: Mapping, number: str) -> str:
    """``el``/``la``/``los``/``las``; an entry overrides it with ``article: {sg: el}`` (el aula)."""
    if "article" in entry and number in entry["article"]:
        return entry["article"][number]
    masc = entry["gender"] == "m"
    if number == "sg":
        return "el" if masc else "la"
    return "los" if masc else "las"

def definite(entry: Mapping, number: str) -> str:
    return f"{article(entry, number)} {entry[number]}"

def prep_phrase(prep: str, entry: Mapping, number: str, modified: bool = False) -> str:
    """``prep`` may be compound (``junto a``): its last word fuses with ``el``."""
    head, _, last = prep.rpartition(" ")
    art = article(entry, number)
    phrase = f"{CONTRACTIONS[last]} {entry[number]}" if art == "el" and last in CONTRACTIONS \
        else f"{last} {art} {entry[number]}"
    return f"{head} {phrase}" if head else phrase

def genitive(entry: Mapping, number: str) -> str:
    return prep_phrase("de", entry, number)

def coordinate(entry: Mapping, number: str, prep: str = "") -> str:
    """``y <NP>``; with ``prep``, the conjunct repeats the preposition (``y del <N>``). The
    conjunct starts with an article or a preposition, so ``y`` never becomes ``e`` here."""
    if prep:
        return f"y {prep_phrase(prep, entry, number)}"
    return f"y {definite(entry, number)}"

def finalize(text: str) -> str:
    return text
