"""The up-front combinatorial bound on a split's size, for lexical types drawn at random (II, III).

A random draw (``sampling.draw_distinct``) notices that a lexicon cannot fill a size only after many draws in a
row give nothing new, which for a size far beyond the lexicon means minutes of drawing and a growing set of plans.
Each phenomenon counts, from its lexicon and without drawing, how many distinct plans its planner could possibly
make from a split's lemmas (``Generator.plan_bound``: seeds/verbs x the choices of every sentence's slots x
frames); a split asked for more is refused before any draw. The count is an upper bound (a draw may still reject
some of those plans, e.g. for too little overlap in type II), so a size within it can still end in the draw's own
"found only" error, never the reverse.
"""

from __future__ import annotations

from collections.abc import Sequence

from builders.base import ConfigSpec, ImpossibleSize


def check(gen, spec: ConfigSpec, lemmas: Sequence[str], n: int) -> None:
    """ImpossibleSize (``upper_bound`` set) when ``n`` plans exceed what ``gen`` could draw from ``lemmas``."""
    bound = gen.plan_bound(spec, lemmas)
    if bound is not None and n > bound:
        raise ImpossibleSize(spec.name, n, bound, upper_bound=True)

