"""The Roll generator: plans (scene, verbs, theme, agents and locations per paradigm) for the framework."""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence

from pydantic import Field, field_validator

from builders.base import ConfigSpec, ImpossibleSize, Matrix, Sentence
from builders.errors import InputError
from builders.generator import Generator
from builders.roll import lexicon, rules
from builders.roll.realise import Realiser, Words
from builders.sampling import ProductSpace, stable_hash
from builders.template import Template

TEMPLATE_NAME = "two-paradigm"


class RollTemplate(Template):
    sequence: tuple[tuple[str, ...], ...]
    other_locations: int = Field(ge=1)   # balanced: LOC candidates (locations the context does not use)

    @field_validator("sequence")
    @classmethod
    def _known_slots(cls, sequence: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        known = {"rollV", "was", "did", "NP-Theme", "PP-Theme", "NP-Agent1", "NP-Agent2", "PP-Loc1", "PP-Loc2"}
        for sentence in sequence:
            for slot in sentence:
                if slot not in known:
                    raise InputError(f"unknown slot {slot!r}; slots are {', '.join(sorted(known))}")
        return sequence


class RollGenerator(Generator):
    phenomenon = "roll"
    rules = rules.RULES
    template_model = RollTemplate
    lexical_types = ("I", "II")

    def __init__(self, language: str):
        super().__init__(language)
        self.lex = lexicon.load(language)
        self.realiser = Realiser(self.lex)
        self.steps = tuple(rules.Step(tuple(slots)) for slots in self.template.sequence)

    # --- split ---------------------------------------------------------------------------------
    def lemmas(self, spec: ConfigSpec) -> list[str]:
        """Verbs with a natural transitive in some scene: every paradigm opens with it, so a verb
        without one (*The fisherman glided the kayak*) is never used."""
        usable = {v for scene in self.lex.scenes for v in scene.causative}
        return [v for v in self.lex.verbs if v in usable]

    def split_lemmas(self, spec: ConfigSpec, lemmas: Sequence[str], n_test: int, rng: random.Random) -> list[str]:
        """Test verbs in pairs from one scene, so type II (two verbs of a scene) has test instances."""
        scenes = list(self.lex.scenes)
        rng.shuffle(scenes)
        chosen: list[str] = []
        for scene in scenes:
            free = [v for v in scene.causative if v in lemmas and v not in chosen]
            rng.shuffle(free)
            room = n_test - len(chosen)
            if room >= 2 and len(free) >= 2:
                chosen += free[:min(room, len(free))]
        rest = [v for v in lemmas if v not in chosen]
        rng.shuffle(rest)
        return (chosen + rest)[:n_test]

    # --- planning ------------------------------------------------------------------------------
    def _pairs(self, spec: ConfigSpec, lemmas: Sequence[str]) -> list[tuple[int, str, str]]:
        """(scene, verb of paradigm 1, verb of paradigm 2): one verb in type I, two of a scene in II
        (verbs with a natural transitive in the scene)."""
        allowed, out = set(lemmas), []
        for s, scene in enumerate(self.lex.scenes):
            here = [v for v in scene.causative if v in allowed]
            out += [(s, v1, v2) for v1 in here for v2 in here if (v1 == v2) == (spec.lexical_type == "I")]
        return out

    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        pairs = self._pairs(spec, lemmas)
        if not pairs:
            raise ImpossibleSize(f"{spec.name}: no scene has {'two verbs' if spec.lexical_type == 'II' else 'a verb'} "
                                 f"among this split's verbs ({', '.join(lemmas)})")
        space = ProductSpace.union((pair, (len(self.lex.scenes[pair[0]].themes), *self._ordered_pairs(pair[0])))
                                   for pair in pairs)
        plans = []
        for (s, v1, v2), (theme, agents, locations) in space.sample(n, rng, spec.name):
            scene = self.lex.scenes[s]
            plans.append((s, v1, v2, theme, _ordered(agents, len(scene.agents)), _ordered(locations, len(scene.locations))))
        return plans

    def _ordered_pairs(self, s: int) -> tuple[int, int]:
        """How many (paradigm 1, paradigm 2) pairs of distinct agents and of distinct locations."""
        scene = self.lex.scenes[s]
        return len(scene.agents) * (len(scene.agents) - 1), len(scene.locations) * (len(scene.locations) - 1)

    # --- the framework's hooks -----------------------------------------------------------------
    def matrix(self, spec: ConfigSpec, plan: Hashable) -> Matrix:
        s, v1, v2, theme, agents, locations = plan
        scene = self.lex.scenes[s]
        others = [i for i in range(len(scene.locations)) if i not in locations]
        h, k = stable_hash(plan), self.template.other_locations
        if len(others) < k:
            raise ImpossibleSize(f"{spec.name}: scene {scene.id!r} has {len(scene.locations)} locations; the "
                                 f"balanced set needs {2 + k}")
        picked = []
        for _ in range(k):   # the balanced set's extra locations, the same in every run and process
            picked.append(others.pop(h % len(others)))
            h //= len(others) + 1
        words = Words(s, (v1, v2), theme, agents, (*locations, *picked))
        facts = rules.Facts(scene, (v1, v2), k)
        return Matrix(TEMPLATE_NAME, self.steps, (words,) * len(self.steps), v2, facts)

    def sentence(self, words: Words, step: rules.Step, template: str) -> Sentence:
        return self.realiser(words, step)

    def sequences(self):
        yield TEMPLATE_NAME, self.steps

    def pattern(self, step: rules.Step, template: str) -> str:
        return step.pattern()


def _ordered(index: int, n: int) -> tuple[int, int]:
    """The ``index``-th ordered pair of two distinct items out of ``n``."""
    first, second = divmod(index, n - 1)
    return first, second + (second >= first)

