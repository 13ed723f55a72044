"""English verb forms for the Roll lexicon (local until builders/morphology/en.py has verb morphology).

Lexicons write every verb's past and participle out (so each form is spellchecked); this module
checks them against the regular rule and the irregular Roll verbs, and gives the copula's number.
"""

from __future__ import annotations

from typing import NamedTuple

VOWELS = frozenset("aeiou")
IRREGULAR = {  # Roll verbs (002 footnotes 10-11) with irregular forms: lemma -> (past, participle)
    "slide": ("slid", "slid"),
    "spin": ("spun", "spun"),
    "swing": ("swung", "swung"),
    "wind": ("wound", "wound"),
}


class Verb(NamedTuple):
    lemma: str
    past: str
    participle: str


def _doubles_final_consonant(lemma: str) -> bool:
    """One-syllable consonant-vowel-consonant verbs double the consonant: drop -> dropped."""
    groups = sum(1 for i, c in enumerate(lemma) if c in VOWELS and (i == 0 or lemma[i - 1] not in VOWELS))
    return (groups == 1 and len(lemma) >= 3 and lemma[-1] not in VOWELS | set("wxy")
            and lemma[-2] in VOWELS and lemma[-3] not in VOWELS)


def regular_past(lemma: str) -> str:
    """The -ed form of a regular verb (roll -> rolled, glide -> glided, drop -> dropped)."""
    if lemma.endswith("e"):
        return lemma + "d"
    if lemma.endswith("y") and lemma[-2] not in VOWELS:
        return lemma[:-1] + "ied"
    if _doubles_final_consonant(lemma):
        return lemma + lemma[-1] + "ed"
    return lemma + "ed"


def form_error(verb: Verb) -> str | None:
    """Why the lexicon's forms of a verb are wrong, or None when they are the real ones."""
    expected = IRREGULAR.get(verb.lemma) or (regular_past(verb.lemma),) * 2
    if (verb.past, verb.participle) == expected:
        return None
    return (f"forms {verb.past!r}/{verb.participle!r} of {verb.lemma!r} should be {expected[0]!r}/{expected[1]!r}"
            f" (irregular verbs are listed in builders/roll/forms.py IRREGULAR)")


def copula_past(plural: bool) -> str:
    return "were" if plural else "was"
