"""Drawing plans: product spaces, distinct random draws, and content-disjoint filling (type III).

Shared by every generator, so a size the combinatorics cannot fill is one kind of error
(:class:`ImpossibleSize`, with what was asked and what is possible) wherever it happens.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass

from builders.base import ImpossibleSize

MAX_MISSES = 20_000  # consecutive draws without a new instance before a random draw gives up


@dataclass(frozen=True)
class ProductSpace:
    """The mixed-radix space of a plan's independent choices, optionally one block per key
    (e.g. per verb, whose pools have different sizes): index <-> (key, coordinates)."""

    blocks: tuple[tuple[Hashable, tuple[int, ...]], ...]

    @classmethod
    def of(cls, dims: Sequence[int], key: Hashable = None) -> "ProductSpace":
        return cls(((key, tuple(dims)),))

    @classmethod
    def union(cls, blocks: Iterable[tuple[Hashable, Sequence[int]]]) -> "ProductSpace":
        return cls(tuple((key, tuple(dims)) for key, dims in blocks))

    @property
    def size(self) -> int:
        return sum(math.prod(dims) for _, dims in self.blocks)

    def decode(self, index: int) -> tuple[Hashable, tuple[int, ...]]:
        for key, dims in self.blocks:
            block = math.prod(dims)
            if index < block:
                coords = []
                for d in reversed(dims):
                    index, r = divmod(index, d)
                    coords.append(r)
                return key, tuple(reversed(coords))
            index -= block
        raise IndexError("index outside the product space")

    def sample(self, n: int, rng: random.Random, what: str) -> list[tuple[Hashable, tuple[int, ...]]]:
        """``n`` distinct points, or ImpossibleSize naming the space's size."""
        return [self.decode(i) for i in sample_distinct(self.size, n, rng, what)]


def sample_distinct(space_size: int, n: int, rng: random.Random, what: str) -> list[int]:
    """``n`` distinct indices of a finite space, or a clear error when the space is too small."""
    if n > space_size:
        raise ImpossibleSize(what, n, space_size)
    return rng.sample(range(space_size), n)


def draw_distinct(draw: Callable[[], Hashable | None], n: int, what: str,
                  key: Callable[[Hashable], Hashable] = lambda plan: plan) -> list[Hashable]:
    """``n`` plans with distinct keys from a random ``draw`` (None = a failed draw), or ImpossibleSize
    with the number found when ``MAX_MISSES`` draws in a row give nothing new."""
    plans, seen, misses = [], set(), 0
    while len(plans) < n:
        plan = draw()
        plan_key = key(plan) if plan is not None else None
        if plan is not None and plan_key not in seen:
            seen.add(plan_key)
            plans.append(plan)
            misses = 0
        else:
            misses += 1
            if misses > MAX_MISSES:
                raise ImpossibleSize(what, n, len(plans), exhausted=True)
    return plans


def disjoint_lemmas(lemmas: Sequence[str], n: int, rng: random.Random,
                    stems: Callable[[str], frozenset[str]]) -> list[str]:
    """``n`` lemmas chosen greedily so their words share no content stem (type III needs them);
    filled up with the others when fewer are disjoint."""
    order = list(lemmas)
    rng.shuffle(order)
    chosen, used = [], set()
    for lemma in order:
        if not stems(lemma) & used:
            chosen.append(lemma)
            used |= stems(lemma)
        if len(chosen) == n:
            return chosen
    return (chosen + [lemma for lemma in order if lemma not in chosen])[:n]


class StemMasks:
    """Content stems as bits of an integer, so type III fillers compare sets with one ``&``."""

    def __init__(self) -> None:
        self.bits: dict[str, int] = {}

    def mask(self, stems: Iterable[str]) -> int:
        out = 0
        for stem in stems:
            bit = self.bits.get(stem)
            if bit is None:
                bit = self.bits[stem] = len(self.bits)
            out |= 1 << bit
        return out


def fill_disjoint(slots: int, options: Callable[[int, int], Iterable[tuple[Hashable, int]]],
                  used: int = 0) -> list[Hashable] | None:
    """Type III filling: for each slot in order, the first option whose stem mask avoids every stem
    used so far (``options(slot, used)`` yields ``(option, mask)`` in the caller's random order).

    Returns the chosen options, or None when a slot has no fitting option (the draw is retried)."""
    chosen = []
    for slot in range(slots):
        for option, mask in options(slot, used):
            if not mask & used:
                chosen.append(option)
                used |= mask
                break
        else:
            return None
    return chosen


def stable_hash(value: object) -> int:
    """A process-independent hash (``hash()`` of a str is salted per process), for choices that a
    config and its twin, or two runs, must make alike."""
    return zlib.crc32(repr(value).encode())
