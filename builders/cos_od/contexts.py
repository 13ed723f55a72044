"""Lexical-type constraints on the context, checked incrementally while a plan is drawn.

They work on content stems (``builders.morphology.content_stems``) and apply the definitions of
``builders.lexical_types`` sentence by sentence; the record checks test every finished context again.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from builders.lexical_types import jaccard, type_ii_planned_ok



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
        low = self.type_i_min_jaccard
        return all(jaccard(a, b) >= low for a, b in itertools.combinations(stems, 2)) and all(
            jaccard(a, b) >= low for a in stems for b in self.stems)


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
        seen = set(self.used)
        for one in stems:
            if not one.isdisjoint(seen):
                return False
            seen |= one
        return True

    def add(self, stems):
        super().add(stems)
        for one in stems:
            self.used |= one


CONTEXTS = {"I": TypeIContext, "II": TypeIIContext, "III": TypeIIIContext}
