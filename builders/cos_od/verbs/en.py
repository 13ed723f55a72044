"""English verb groups: tense, aspect and modal frames in the active and the passive voice.

The lexicon gives four forms per verb (``base``, ``third`` = 3rd person singular present, ``past``,
``participle``); every other word of a verb group is an auxiliary built here.
"""

from __future__ import annotations

from collections.abc import Mapping

from builders.errors import InputError

PERSON_FORMS: tuple[str, ...] = ()  # forms given as [3rd singular, 3rd plural]
FORM_FIELDS = ("base", "third", "past", "participle")
# Frame ids are English words so that lexicon restrictions (``not_with``) pass the spell checker.
# The present perfect is left out: it clashes with the definite time phrases of the lexicons
# ("*has closed at midnight"); the epistemic "must have" gives a second participle frame.
FRAMES = ("present", "past", "future", "pluperfect", "must have", "can", "must", "should")
COMPOUND_FRAMES = ("pluperfect", "must have")   # auxiliary + participle
MODALS = {"future": "will", "can": "can", "must": "must", "should": "should"}
_BE = {"present": {"sg": "is", "pl": "are"}, "past": {"sg": "was", "pl": "were"}}
_HAVE = {"pluperfect": "had", "must have": "must have"}
HAS_REFLEXIVE_MARKER = False
GENDERS: tuple[str, ...] = ()


def active(forms: Mapping[str, str], frame: str, number: str) -> str:
    """``melts`` / ``melted`` / ``will melt`` / ``had melted`` / ``must have melted`` / ``can melt`` …"""
    if frame == "present":
        return forms["third"] if number == "sg" else forms["base"]
    if frame == "past":
        return forms["past"]
    if frame in _HAVE:
        return f"{_HAVE[frame]} {forms['participle']}"
    return f"{MODALS[frame]} {forms['base']}"


def passive(forms: Mapping[str, str], frame: str, number: str) -> str:
    """``is melted`` / ``was melted`` / ``will be melted`` / ``had been melted`` / ``must be melted`` …"""
    participle = forms["participle"]
    if frame in _BE:
        return f"{_BE[frame][number]} {participle}"
    if frame in _HAVE:
        return f"{_HAVE[frame]} been {participle}"
    return f"{MODALS[frame]} be {participle}"


def verb_group(forms: Mapping[str, str], frame: str, voice: str, number: str, gender: str = "",
               si: bool = False) -> str:
    """The verb group of a clause; English has no reflexive-like marker, so ``si`` must be False."""
    if si:
        raise InputError("English has no reflexive-like marker: a step with si=True is an Italian-only step")
    if frame not in FRAMES:
        raise InputError(f"unknown English frame {frame!r}; known: {', '.join(FRAMES)}")
    return active(forms, frame, number) if voice == "active" else passive(forms, frame, number)
