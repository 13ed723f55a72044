"""English: the definite article, 'of'-genitives and 'and'-coordination."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

HUNSPELL = "en_US"  # spell-check dictionary (builders/spellcheck.py)
HUNSPELL_PACKAGE = "hunspell-en-us"

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

def possessive(head: Mapping, head_number: str, owner: Mapping, owner_number: str) -> str:
    """The prenominal genitive: ``the comedian's question``, ``the comedians' question``, ``the children's``."""
    word = owner[owner_number]
    mark = "'" if owner_number == "pl" and word.endswith("s") else "'s"
    return f"the {word}{mark} {head[head_number]}"

def coordinate(entry: Mapping, number: str, prep: str = "") -> str:
    """``and <NP>``; with ``prep``, the conjunct repeats the preposition (``and <prep> <NP>``)."""
    if prep:
        return f"and {prep_phrase(prep, entry, number)}"
    return f"and {definite(entry, number)}"

def finalize(text: str) -> str:
    return text


# --- verbs: lexicons write every past and participle out (so each is spell-checked); these
# functions check them against English inflection -------------------------------------------------

VOWELS = frozenset("aeiou")
# Irregular verbs of the toolkit's lexicons: lemma -> (past, participle).
IRREGULAR_VERBS = {
    "hang": ("hung", "hung"), "sew": ("sewed", "sewn"), "sow": ("sowed", "sown"),
    "spread": ("spread", "spread"), "stick": ("stuck", "stuck"), "string": ("strung", "strung"),
    "strew": ("strewed", "strewn"), "slide": ("slid", "slid"), "spin": ("spun", "spun"),
    "swing": ("swung", "swung"), "wind": ("wound", "wound"),
}


class Verb(NamedTuple):
    lemma: str
    past: str
    participle: str


def _doubles_final_consonant(lemma: str) -> bool:
    """One-syllable consonant-vowel-consonant verbs double the consonant: rub -> rubbed."""
    groups = sum(1 for i, c in enumerate(lemma) if c in VOWELS and (i == 0 or lemma[i - 1] not in VOWELS))
    return (groups == 1 and len(lemma) >= 3 and lemma[-1] not in VOWELS | set("wxy")
            and lemma[-2] in VOWELS and lemma[-3] not in VOWELS)


def regular_past(lemma: str) -> str:
    """The -ed form of a regular verb (spray -> sprayed, baste -> basted, wrap -> wrapped)."""
    if lemma.endswith("e"):
        return lemma + "d"
    if lemma.endswith("y") and lemma[-2] not in VOWELS:
        return lemma[:-1] + "ied"
    if _doubles_final_consonant(lemma):
        return lemma + lemma[-1] + "ed"
    return lemma + "ed"


def expected_forms(lemma: str) -> tuple[str, str]:
    """(past, participle) as English inflects the lemma."""
    if lemma in IRREGULAR_VERBS:
        return IRREGULAR_VERBS[lemma]
    past = regular_past(lemma)
    return past, past


def form_error(verb: Verb) -> str | None:
    """Why a lexicon's forms of a verb are wrong, or None when they are the real ones."""
    past, participle = expected_forms(verb.lemma)
    if (verb.past, verb.participle) == (past, participle):
        return None
    return (f"forms {verb.past!r}/{verb.participle!r} of {verb.lemma!r} should be {past!r}/{participle!r}"
            f" (irregular verbs are listed in builders/morphology/en.py IRREGULAR_VERBS)")


def copula_past(plural: bool) -> str:
    return "were" if plural else "was"
