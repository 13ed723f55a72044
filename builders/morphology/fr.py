"""French: le/la/l'/les with elision, contractions du/des/au/aux, que → qu' before a vowel."""

from __future__ import annotations

import re
from collections.abc import Mapping

HUNSPELL = "fr_FR"  # spell-check dictionary (builders/spellcheck.py)
HUNSPELL_PACKAGE = "hunspell-fr"

NOUN_FIELDS = ("gender", "sg", "pl")
GENDERS = ("m", "f")

VOWELS = "aeiouyhâàäéèêëîïôöûùüœæAEIOUYHÂÀÄÉÈÊËÎÏÔÖÛÙÜŒÆ"
CONTRACTIONS = {"de le": "du", "de les": "des", "à le": "au", "à les": "aux"}
_CONTRACT = re.compile(r"\b(de|à) (le|les) ")
_ELIDE = re.compile(r"\b(que|de) ([" + VOWELS + r"])")

def elides(entry: Mapping, number: str = "sg") -> bool:
    form = entry[number]
    return entry.get("elide", form[0] in VOWELS)

def definite(entry: Mapping, number: str) -> str:
    if number == "pl":
        return f"les {entry['pl']}"
    if elides(entry):
        return f"l'{entry['sg']}"
    return f"{'le' if entry['gender'] == 'm' else 'la'} {entry['sg']}"

def prep_phrase(prep: str, entry: Mapping, number: str, modified: bool = False) -> str:
    return _contract(f"{prep} {definite(entry, number)}")

def genitive(entry: Mapping, number: str) -> str:
    return prep_phrase("de", entry, number)

def coordinate(entry: Mapping, number: str, prep: str = "") -> str:
    """``et <NP>``; with ``prep``, the conjunct repeats the preposition (``et <prep> <NP>``)."""
    if prep:
        return f"et {prep_phrase(prep, entry, number)}"
    return f"et {definite(entry, number)}"

def _contract(text: str) -> str:
    return _CONTRACT.sub(lambda m: CONTRACTIONS[f"{m[1]} {m[2]}"] + " ", text)

def finalize(text: str) -> str:
    """Elide que/de before a vowel (``qu'Anne``), then contract ``de le`` → ``du``."""
    text = _ELIDE.sub(lambda m: m[1][:-1] + "'" + m[2], text)
    return _contract(text)
