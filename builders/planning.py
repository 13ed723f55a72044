"""Type II and III planning, shared by the phenomena: draw a context, check its lexical type, redraw.

One draw makes ``sentences`` choices (the context's and the answer's words, one choice per sentence):

- type II: ``draw_start`` draws what every sentence keeps (one seed or verb, a base set of words); then each
  sentence changes one of its slots: a slot drawn from ``draw_slots``, changed by ``draw_swap``;
- type III: ``draw_start`` draws the order to try (the lemmas shuffled); then each sentence takes the first of
  ``draw_options`` (choice, stem mask) whose stems no earlier sentence used (``sampling.fill_disjoint``).

``draw_finish`` turns the choices into a plan (None: the draw failed), and the plan is kept only if its
realised context is of the type (``builders.lexical_types``: type II with the planners' margin, type III
disjoint); else the draw is redrawn. ``sampling.draw_distinct`` keeps the plans distinct and turns
``MAX_MISSES`` draws in a row with nothing new into ImpossibleSize. A phenomenon fills the ``draw_`` hooks;
one whose draws do not fit the sentence-by-sentence shape (cos/od: frames pair by pair) checks them with ``accepted``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, ClassVar

from builders import morphology
from builders.base import ConfigSpec, ImpossibleSize
from builders.generator import Generator
from builders.lexical_types import type_i_ok, type_ii_planned_ok, type_iii_ok
from builders.sampling import draw_distinct, fill_disjoint


class ContextPlanner(Generator):
    """A generator whose type II / III plans the framework draws; the phenomenon declares its slots and stems."""

    lemma_unit: ClassVar[str] = "lemmas"   # what a type III context needs one of per sentence (error messages)

    @property
    def sentences(self) -> int:
        """Choices drawn per context: the context sentences and the answer's words."""
        return self.context_size + 1

    # --- what the phenomenon declares ----------------------------------------------------------
    def draw_start(self, spec: ConfigSpec, lemmas: Sequence, rng: random.Random) -> Any:
        """What one draw shares across its sentences (type II: the base words; type III: the lemma order)."""
        raise NotImplementedError

    def draw_slots(self, state: Any, i: int) -> Sequence[Hashable]:
        """Type II: the slots sentence ``i`` may change (the words it shows)."""
        raise NotImplementedError

    def draw_swap(self, state: Any, i: int, slot: Hashable, rng: random.Random) -> Hashable:
        """Type II: sentence ``i``'s choice, the shared words with ``slot`` changed."""
        raise NotImplementedError

    def draw_options(self, state: Any, i: int, used: int, rng: random.Random) -> Iterable[tuple[Hashable, int]]:
        """Type III: candidate choices for sentence ``i`` with their stem masks, in random order (``used``:
        the stems taken so far, so a phenomenon may skip what cannot fit)."""
        raise NotImplementedError

    def draw_finish(self, spec: ConfigSpec, state: Any, choices: list, rng: random.Random) -> Hashable | None:
        """The plan of a draw's choices (None: no plan, redraw)."""
        raise NotImplementedError

    def context_stems(self, spec: ConfigSpec, plan: Hashable) -> list[frozenset[str]]:
        """The content stems of the plan's context sentences, as the record checks see them."""
        context = self.context(self.typed_matrix(spec, plan))
        return [morphology.sentence_stems(s.text, s.chunks, spec.iso) for s in context]

    # --- the loop ------------------------------------------------------------------------------
    def plan_contexts(self, spec: ConfigSpec, lemmas: Sequence, n: int, rng: random.Random,
                      key: Callable[[Hashable], Hashable] = lambda plan: plan, what: str | None = None) -> list:
        """``n`` distinct type II or III plans, or ImpossibleSize."""
        if spec.lexical_type == "III" and len(lemmas) < self.sentences:
            raise ImpossibleSize(f"{spec.name}: type III needs {self.sentences} {self.lemma_unit} with no shared "
                                 f"content word, this split has {len(lemmas)} (change --test-size)")
        draw = {"II": self._draw_type_ii, "III": self._draw_type_iii}[spec.lexical_type]
        return draw_distinct(lambda: draw(spec, lemmas, rng), n, what or spec.name, key)

    def _draw_type_ii(self, spec: ConfigSpec, lemmas: Sequence, rng: random.Random) -> Hashable | None:
        state = self.draw_start(spec, lemmas, rng)
        choices = [self.draw_swap(state, i, rng.choice(self.draw_slots(state, i)), rng) for i in range(self.sentences)]
        return self.accepted(spec, self.draw_finish(spec, state, choices, rng))

    def _draw_type_iii(self, spec: ConfigSpec, lemmas: Sequence, rng: random.Random) -> Hashable | None:
        state = self.draw_start(spec, lemmas, rng)
        choices = fill_disjoint(self.sentences, lambda i, used: self.draw_options(state, i, used, rng))
        return None if choices is None else self.accepted(spec, self.draw_finish(spec, state, choices, rng))

    def accepted(self, spec: ConfigSpec, plan: Hashable | None) -> Hashable | None:
        """The plan if its context is of the config's lexical type (type II with the planners' margin), else None."""
        if plan is None:
            return None
        stems = self.context_stems(spec, plan)
        if spec.lexical_type == "I":
            return plan if type_i_ok(stems, self.type_i_min_jaccard) else None
        return plan if (type_ii_planned_ok if spec.lexical_type == "II" else type_iii_ok)(stems) else None
