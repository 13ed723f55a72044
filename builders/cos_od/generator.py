"""The COS and OD generators: plans (verb, words, frames) for the framework to realise.

Both verb classes share one package: the template (``cos.yaml`` / ``od.yaml``, each including
``shared.yaml``), the rules and the planner; they differ in the lexicon
(``lexicons/<lang>_<cos|od>.yaml``) and in the subject of the intransitive (sentences 7 and 8).
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Hashable, Sequence
from typing import Literal

from pydantic import field_validator, model_validator

from builders.base import ConfigSpec, ImpossibleSize, Matrix, Sentence
from builders.cos_od import lexicon, rules, verbs
from builders.cos_od.judge import Facts
from builders.cos_od.plan import ANSWER, Plan, Planner
from builders.cos_od.realise import Material, Realiser
from builders.errors import InputError
from builders.planning import ContextPlanner
from builders.sampling import draw_distinct
from builders.template import Strict, Template

Complement = Literal["NP-Agent", "NP-Theme", "by-NP-Agent", "by-NP-Theme", "P-NP", "by-NP"]


class StepDecl(Strict):
    """A sentence of the sequence: subject role, voice, complements, Italian si."""

    subject: Literal["Agent", "Theme"]
    voice: Literal["active", "passive"]
    complements: tuple[Complement, ...]
    si: bool = False


class CosOdTemplate(Template):
    sequence: tuple[StepDecl, ...]
    frame_pairs: tuple[tuple[int, int], ...]

    @field_validator("frame_pairs")
    @classmethod
    def _pairs_in_order(cls, pairs: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
        flat = [i for pair in pairs for i in pair]
        if flat != list(range(len(flat))):
            raise InputError(f"frame_pairs must cover the sentences 0, 1, 2 … in order, got {flat}")
        return pairs

    @model_validator(mode="after")
    def _sizes_agree(self) -> "CosOdTemplate":
        n = self.context_size + 1
        if len(self.sequence) != n or len(self.frame_pairs) * 2 != n:
            raise InputError(f"sequence ({len(self.sequence)} steps) and frame_pairs ({len(self.frame_pairs)} "
                             f"pairs) must cover context_size + 1 = {n} sentences")
        return self


class CosOdGenerator(ContextPlanner):
    """Shared by the COS and OD classes: the same rules, a different template step 7-8 and lexicon."""

    rules = rules.RULES
    template_model = CosOdTemplate

    def __init__(self, language: str):
        super().__init__(language)
        self.lex = lexicon.load(language, self.phenomenon)
        self.verb_morph = verbs.module(language)
        self.has_si = self.verb_morph.HAS_REFLEXIVE_MARKER
        self.compound = frozenset(self.verb_morph.COMPOUND_FRAMES)
        self.steps = tuple(rules.Step(d.subject, d.voice, d.complements, d.si and self.has_si)
                           for d in self.template.sequence)
        self.realiser = Realiser(self.lex)
        gold = self.steps[ANSWER]
        swapped = rules.swap_roles(gold, None)
        balanced = [gold, swapped] + ([s._replace(si=not s.si) for s in (gold, swapped)] if self.has_si else [])
        self.planner = Planner(self.lex, self.realiser, self.steps, self.template.frame_pairs,
                               self.verb_morph.FRAMES, self.template.type_i_min_jaccard, balanced)

    @classmethod
    def languages(cls) -> list[str]:
        """Languages are the lexicon files ``<lang>_<phenomenon>.yaml`` present."""
        return sorted(p.stem.split("_")[0] for p in cls.lexicon_dir().glob(f"*_{cls.phenomenon}.yaml"))

    # --- split and plans -----------------------------------------------------------------------
    def lemmas(self, spec: ConfigSpec) -> list[str]:
        return [v["lemma"] for v in self.lex["verbs"]]

    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        lemmas = sorted(lemmas)
        where = lexicon.path_for(self.language, self.phenomenon)
        if not lemmas:
            raise ImpossibleSize(f"{spec.name}: this split has no verbs; lower --test-size or add verbs to {where}")
        what = f"{spec.name} (lower --size or add words to {where})"
        if spec.lexical_type == "II":
            return self.plan_contexts(spec, lemmas, n, rng, key=self.planner.key, what=what)
        # type I and III: cos/od's own draws (frames pair by pair; type III the answer first), the planner's check
        return draw_distinct(lambda: self.accepted(spec, self.planner.draw(spec.lexical_type, lemmas, rng)), n, what,
                             key=self.planner.key)

    # type II (builders.planning): one verb; each sentence changes one word of a base material, then frames
    def draw_start(self, spec: ConfigSpec, lemmas: Sequence[str], rng: random.Random) -> Material:
        return self.planner.random_material(rng.choice(lemmas), rng)

    def draw_slots(self, base: Material, i: int) -> list[str]:
        return self.planner.type2_slots(i)

    def draw_swap(self, base: Material, i: int, slot: str, rng: random.Random) -> Material:
        return self.planner.swapped(base, slot, rng)

    def draw_finish(self, spec: ConfigSpec, base: Material, choices: list, rng: random.Random) -> Plan | None:
        return self.planner.framed(tuple(choices), "II", rng)

    def plan_bound(self, spec: ConfigSpec, lemmas: Sequence[str]) -> int | None:
        """Every sentence's words from its verb's agents x themes x P-NPs x by-NPs (type II: one verb of the split;
        type III: any verb, a small split borrows the lexicon's), times the frames of the pairs in order."""
        if spec.lexical_type == "I":
            return None
        verbs_ = self.lex["verbs_by_lemma"]

        def words(verb: str) -> int:
            return math.prod(len(verbs_[verb][pool]) for pool in ("agents", "themes", "p_nps", "by_nps"))

        frames = math.perm(len(self.planner.frames), len(self.planner.pairs))
        if spec.lexical_type == "II":
            return frames * sum(words(verb) ** len(self.steps) for verb in lemmas)
        return frames * sum(words(verb) for verb in verbs_) ** len(self.steps)

    # --- the framework's hooks -----------------------------------------------------------------
    def matrix(self, spec: ConfigSpec, plan: Plan) -> Matrix:
        materials, frames = plan
        steps = tuple(self.planner.step(i, self.planner.frame_of(frames, i)) for i in range(len(self.steps)))
        answer = materials[ANSWER]
        facts = self.facts(spec.lexical_type, answer, self._other_frame(plan, spec.lexical_type))
        return Matrix(self.phenomenon, steps, materials, answer.verb, facts)

    def facts(self, lexical_type: str, answer: Material, other_frame: str = "") -> Facts:
        """What the judges read for an answer with these words: the verb's facts and the word facts
        (which argument's by-phrase reads as a place, whether the by-NP needs an agent)."""
        places = frozenset(role for role in ("Agent", "Theme") if answer.role(role) in self.lex["by_place"])
        return Facts(self.phenomenon, self.has_si, lexical_type, self.lex["verbs_by_lemma"][answer.verb]["facts"],
                     places, self.compound, answer.bynp in self.lex["agent_oriented"], other_frame)

    @functools.lru_cache(maxsize=1 << 14)
    def _other_frame(self, plan: Plan, lexical_type: str) -> str:
        return self.planner.other_frame(plan, lexical_type)

    def sentence(self, words: Material, step: rules.Step, template: str) -> Sentence:
        return self.realiser(words, step)

    def sequences(self):
        """The template's sequence in every assignment of four different frames to the pairs."""
        for frames in itertools.permutations(self.verb_morph.FRAMES, len(self.template.frame_pairs)):
            yield self.phenomenon, tuple(self.planner.step(i, self.planner.frame_of(frames, i))
                                         for i in range(len(self.steps)))

    def pattern(self, step: rules.Step, template: str) -> str:
        return step.pattern()


class CosGenerator(CosOdGenerator):
    phenomenon = "cos"


class OdGenerator(CosOdGenerator):
    phenomenon = "od"
