"""Romanian: enclitic definite articles and genitive forms come from the lexicon entry."""

from __future__ import annotations

from collections.abc import Mapping

HUNSPELL = "ro_RO"  # spell-check dictionary (builders/spellcheck.py)
HUNSPELL_PACKAGE = "hunspell-ro"

NOUN_FIELDS = ("gender", "sg", "pl", "gen_sg", "gen_pl", "bare_sg", "bare_pl")
GENDERS = ("m", "f", "n")

ARTICLED_PREPOSITIONS = {"cu"}

def definite(entry: Mapping, number: str) -> str:
    return entry[number]

def prep_phrase(prep: str, entry: Mapping, number: str, modified: bool = False) -> str:
    """After prepositions other than ``cu`` an unmodified noun drops its article."""
    if prep in ARTICLED_PREPOSITIONS or modified:
        return f"{prep} {entry[number]}"
    return f"{prep} {entry['bare_' + number]}"

def genitive(entry: Mapping, number: str) -> str:
    return entry["gen_" + number]

def coordinate(entry: Mapping, number: str, prep: str = "") -> str:
    """``și <NP>``; with ``prep``, the conjunct repeats the preposition (``și <prep> <NP>``)."""
    if prep:
        return f"și {prep_phrase(prep, entry, number)}"
    return f"și {entry[number]}"

def finalize(text: str) -> str:
    return text
