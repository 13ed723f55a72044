"""What type I, II and III contexts are, defined once: the planners draw contexts that pass these tests, and the
record checks (`builders.checks`) test every generated context with them.

Overlap is measured on content-word stems (``morphology.content_stems``) with the Jaccard index of each pair of
context sentences:

- type I: every pair shares at least the template's ``type_i_min_jaccard`` (the same words throughout);
- type II: the mean pair shares at least ``TYPE_II_MIN_MEAN`` and no two sentences are the same words;
- type III: no pair shares a content word.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

TYPE_II_MIN_MEAN = 0.2        # the definition the checks apply
TYPE_II_PLANNED_MEAN = 0.22   # planners ask a little more, so that no planned context sits on the threshold


def jaccard(a: frozenset, b: frozenset) -> float:
    """Shared stems over all stems of two sentences (1 for two empty sets)."""
    shared = len(a & b)
    union = len(a) + len(b) - shared  # |a ∪ b| without building it
    return shared / union if union else 1.0


def pair_scores(stems: Sequence[frozenset[str]]) -> list[float]:
    """The Jaccard index of every pair of sentences."""
    return [jaccard(a, b) for a, b in itertools.combinations(stems, 2)]


def type_i_ok(stems: Sequence[frozenset[str]], min_jaccard: float) -> bool:
    """Type I: every pair of sentences shares at least ``min_jaccard`` of its content stems."""
    # stops at the first pair below the threshold
    return all(jaccard(a, b) >= min_jaccard for a, b in itertools.combinations(stems, 2))


def type_ii_ok(stems: Sequence[frozenset[str]], minimum: float = TYPE_II_MIN_MEAN) -> bool:
    """Type II: sentences share words (mean pairwise Jaccard >= ``minimum``) but are not one sentence repeated."""
    scores = pair_scores(stems)
    return bool(scores) and sum(scores) / len(scores) >= minimum and min(scores) < 1


def type_ii_planned_ok(stems: Sequence[frozenset[str]]) -> bool:
    """Type II with the planners' margin above the checked threshold."""
    return type_ii_ok(stems, TYPE_II_PLANNED_MEAN)


def type_iii_ok(stems: Sequence[frozenset[str]]) -> bool:
    """Type III: no two sentences share a content stem."""
    return all(not (a & b) for a, b in itertools.combinations(stems, 2))


def context_ok(lexical_type: str, stems: Sequence[frozenset[str]], type_i_min_jaccard: float) -> bool:
    """Whether a context's sentences (as stem sets) are of ``lexical_type``."""
    if lexical_type == "III":
        return type_iii_ok(stems)
    if lexical_type == "II":
        return type_ii_ok(stems)
    return type_i_ok(stems, type_i_min_jaccard)
