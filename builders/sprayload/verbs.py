"""Spray/load verb groups: each tense/modal frame, active and passive, with subject agreement.

Verb forms (past, participle) and their check come from builders/morphology/en.py.
"""

from __future__ import annotations

from builders.morphology import en

FRAMES = ("past", "perfect", "can", "will")
Verb = en.Verb
form_error = en.form_error
copula_past = en.copula_past


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
