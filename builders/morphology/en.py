"""English: the definite article, 'of'-genitives and 'and'-coordination."""

from __future__ import annotations

from collections.abc import Mapping

NOUN_FIELDS = ("sg", "pl")
GENDERS: tuple[str, ...] = ()

def noun(entry: Mapping, number: str) -> str:
    return entry[number]

def definite(entry: Mapping, number: str) -> str:
    return f"the {entry[number]}"

def prep_phrase(prep: str, entry: Mapping, number: str, modified: bool = False) -> str:
    return f"{prep} {definite(entry, number)}"

def genitive(entry: Mapping, number: str) -> str:
    return f"of {definite(entry, number)}"

def coordinate(entry: Mapping, number: str, prep: str = "") -> str:
    """``and <NP>``; with ``prep``, the conjunct repeats the preposition (``and <prep> <NP>``)."""
    if prep:
        return f"and {prep_phrase(prep, entry, number)}"
    return f"and {definite(entry, number)}"

def finalize(text: str) -> str:
    return text
