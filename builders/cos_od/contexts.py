"""Lexical-type constraints on the context, checked while a plan is drawn.

They work on content stems (``builders.morphology.content_stems``) and apply the definitions of
``builders.lexical_types`` to the sentences chosen so far and the candidates; the record checks test every
finished context again. The classes only hold the planner's state (the stems so far, type III's used words).
"""

from __future__ import annotations

from collections.abc import Sequence

from builders.lexical_types import type_i_ok, type_ii_planned_ok, type_iii_ok


class Context:
    """Content stems of the context sentences chosen so far, with the lexical-type constraint
    checked incrementally (the validator checks the same constraints independently on every row)."""

    checks_pairs = True   # whether each new sentence is checked (type II only checks the whole)

    def __init__(self, type_i_min_jaccard: float):
        self.type_i_min_jaccard = type_i_min_jaccard
        self.stems: list[frozenset[str]] = []

    def fits(self, stems: Sequence[frozenset[str]], last: bool = False) -> bool:
        raise NotImplementedError

    def add(self, stems: Sequence[frozenset[str]]) -> None:
        self.stems += stems


class TypeIContext(Context):
    """Type I: every pair of sentences shares enough content words (``type_i_min_jaccard``)."""

    def fits(self, stems, last=False):
        return type_i_ok(self.stems + list(stems), self.type_i_min_jaccard)


class TypeIIContext(Context):
    """Type II: once complete, the mean pairwise Jaccard is well above type III's zero."""

    checks_pairs = False

    def fits(self, stems, last=False):
        if not last:
            return True
        return type_ii_planned_ok(self.stems + list(stems))


class TypeIIIContext(Context):
    """Type III: no two sentences share a content word."""

    def __init__(self, type_i_min_jaccard: float):
        super().__init__(type_i_min_jaccard)
        self.used: set[str] = set()

    def fits(self, stems, last=False):
        return type_iii_ok(self.stems + list(stems))

    def add(self, stems):
        super().add(stems)
        for one in stems:
            self.used |= one


CONTEXTS = {"I": TypeIContext, "II": TypeIIContext, "III": TypeIIIContext}
