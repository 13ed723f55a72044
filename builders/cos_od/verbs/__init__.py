"""Verb morphology of the COS/OD realiser, one module per language (``en``, ``it``).

Each module exposes ``FORM_FIELDS`` (the forms a lexicon gives per verb), ``FRAMES`` (the tense,
aspect and modal frames it can build), ``GENDERS`` (of noun phrases, for agreement),
``COMPOUND_FRAMES`` (auxiliary + participle), ``HAS_REFLEXIVE_MARKER`` and ``verb_group(forms, frame, voice, number, gender, si)``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from builders.errors import InputError

LANGUAGES = ("en", "it")


def module(language: str) -> ModuleType:
    if language not in LANGUAGES:
        raise InputError(f"no COS/OD verb morphology for {language!r}; known: {', '.join(LANGUAGES)} "
                         f"(add builders/cos_od/verbs/{language}.py)")
    return importlib.import_module(f"{__name__}.{language}")
