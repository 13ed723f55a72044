"""English verb morphology for the spray/load builder (local until builders/morphology/en.py has verbs).

Lexicons give every verb's past and past participle explicitly (so every form is spellchecked);
this module checks them against the regular rule and a table of the irregular verbs these classes
use, and builds the verb groups of each tense/modal frame with subject agreement.
"""

from __future__ import annotations

from typing import NamedTuple

FRAMES = ("past", "perfect", "can", "will")
VOWELS = set("aeiou")

# Irregular spray/load verbs: lemma -> (past, participle).
IRREGULAR = {
    "hang": ("hung", "hung"),
    "sew": ("sewed", "sewn"),
    "sow": ("sowed", "sown"),
    "spread": ("spread", "spread"),
    "stick": ("stuck", "stuck"),
    "string": ("strung", "strung"),
    "strew": ("strewed", "strewn"),
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
    if lemma in IRREGULAR:
        return IRREGULAR[lemma]
    past = regular_past(lemma)
    return past, past


def form_error(verb: Verb) -> str | None:
    """Why the lexicon's forms of a verb are wrong, or None when they are the real ones."""
    past, participle = expected_forms(verb.lemma)
    if (verb.past, verb.participle) == (past, participle):
        return None
    return (f"forms {verb.past!r}/{verb.participle!r} of {verb.lemma!r} should be {past!r}/{participle!r}"
            f" (irregular verbs are listed in builders/sprayload/verbs.py IRREGULAR)")


def _have(plural: bool) -> str:
    return "have" if plural else "has"


def active(verb: Verb, frame: str, plural: bool) -> str:
    """The active verb group: sprayed / has sprayed / can spray / will spray."""
    if frame == "past":
        return verb.past
    if frame == "perfect":
        return f"{_have(plural)} {verb.participle}"
    return f"{frame} {verb.lemma}"


def passive(verb: Verb, frame: str, plural: bool) -> str:
    """The passive verb group: was sprayed / has been sprayed / can be sprayed / will be sprayed."""
    if frame == "past":
        return f"{'were' if plural else 'was'} {verb.participle}"
    if frame == "perfect":
        return f"{_have(plural)} been {verb.participle}"
    return f"{frame} be {verb.participle}"


def copula_past(plural: bool) -> str:
    return "were" if plural else "was"
