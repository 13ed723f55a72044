"""The Roll generator: plans (scene, verbs, theme, agents and locations per paradigm) and realises them."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Hashable

from builders.base import Candidate, ConfigSpec, Generator, ImpossibleSize, Instance, sample_distinct
from builders.lexicon import Checker
from builders.roll import lexicon, rules
from builders.roll.realise import Realiser, Words
from builders.sprayload.generator import plan_hash


class RollGenerator(Generator):
    phenomenon = "roll"
    description = "Roll verbs: causative/inchoative alternation in two paradigms (BLM-Rolle)."
    context_size = 7
    lexical_types = ("I", "II")
    # the two paradigms have their own agent and location by design; every pair of sentences
    # shares the theme (and in type I the verb), which is what this threshold asks for
    type_i_min_jaccard = 0.1

    def __init__(self, language: str):
        super().__init__(language)
        self.template = self.read_template(_check_template)
        self.lex = lexicon.load(language)
        self.realiser = Realiser(self.lex)
        self.sequence = [rules.Step(tuple(slots)) for slots in self.template["sequence"]]
        self.expected = (tuple(s.pattern() for s in self.sequence[:7]), self.sequence[7].pattern())
        self.paper = rules.paper_answers(self.template["candidates"])
        self.balanced = rules.balanced_answers(self.template["candidates"], self.template["balanced"])

    # --- split ---------------------------------------------------------------------------------
    def default_size(self, spec: ConfigSpec) -> int:
        return self.template["sizes"][spec.lexical_type]

    def lemmas(self, spec: ConfigSpec) -> list[str]:
        return list(self.lex.verbs)

    def split_lemmas(self, lemmas: Sequence[str], n_test: int, rng: random.Random) -> list[str]:
        """Test verbs in pairs from one scene, so type II (two verbs of a scene) has test instances."""
        scenes = list(self.lex.scenes)
        rng.shuffle(scenes)
        chosen: list[str] = []
        for scene in scenes:
            free = [v for v in scene.verbs if v in lemmas and v not in chosen]
            rng.shuffle(free)
            room = n_test - len(chosen)
            if room >= 2 and len(free) >= 2:
                chosen += free[:min(room, len(free))]
        rest = [v for v in lemmas if v not in chosen]
        rng.shuffle(rest)
        return (chosen + rest)[:n_test]

    # --- planning ------------------------------------------------------------------------------
    def _frames(self, spec: ConfigSpec, lemmas: Sequence[str]) -> list[tuple[int, str, str]]:
        """(scene, verb of paradigm 1, verb of paradigm 2): one verb in type I, two of a scene in II."""
        allowed, out = set(lemmas), []
        for s, scene in enumerate(self.lex.scenes):
            here = [v for v in scene.verbs if v in allowed]
            for v1 in here:
                for v2 in here:
                    if (v1 == v2) == (spec.lexical_type == "I"):
                        out.append((s, v1, v2))
        return out

    def _words_per_frame(self, s: int) -> int:
        scene = self.lex.scenes[s]
        a, l = len(scene.agents), len(scene.locations)
        return len(scene.themes) * a * (a - 1) * l * (l - 1)

    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        frames = self._frames(spec, lemmas)
        if not frames:
            raise ImpossibleSize(f"{spec.name}: no scene has {'two verbs' if spec.lexical_type == 'II' else 'a verb'} "
                                 f"among this split's verbs ({', '.join(lemmas)})")
        sizes = [self._words_per_frame(s) for s, _, _ in frames]
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
        plans = []
        for pick in sample_distinct(sum(sizes), n, rng, spec.name):
            i = max(j for j, start in enumerate(starts) if start <= pick)
            s, v1, v2 = frames[i]
            scene, rest = self.lex.scenes[s], pick - starts[i]
            a, l = len(scene.agents), len(scene.locations)
            rest, theme = divmod(rest, len(scene.themes))
            rest, agents = divmod(rest, a * (a - 1))
            l1, l2 = divmod(rest, l - 1)
            a1, a2 = divmod(agents, a - 1)
            plans.append((s, v1, v2, theme, (a1, a2 + (a2 >= a1)), (l1, l2 + (l2 >= l1))))
        return plans

    # --- realisation ---------------------------------------------------------------------------
    def realise(self, spec: ConfigSpec, plan: Hashable) -> Instance:
        s, v1, v2, theme, agents, locations = plan
        if spec.balanced:
            others = [i for i in range(len(self.lex.scenes[s].locations)) if i not in locations]
            k = self.template["balanced"]["other_locations"]
            h = plan_hash(plan)   # the same extra locations for every run and process
            picked = []
            for _ in range(k):
                picked.append(others.pop(h % len(others)))
                h //= len(others) + 1
            locations = (*locations, *picked)
        words = Words(s, (v1, v2), theme, agents, locations)
        context = [self.realiser(words, step) for step in self.sequence[:7]]
        answers = self.balanced if spec.balanced else self.paper
        candidates = [Candidate(self.realiser(words, step), label, cls) for step, label, cls in answers]
        return Instance(context, candidates, lemma=v2, template="two-paradigm")

    def next_patterns(self, spec: ConfigSpec, template: str, context_patterns: Sequence[str]) -> set[str]:
        context, answer = self.expected
        return {answer} if tuple(context_patterns) == context else set()


def _check_template(t, path) -> None:
    """The template fields the generator relies on, with file/line errors."""
    c = Checker(path)
    sequence = c.field(t, "sequence", list, "sequence")
    if len(sequence) != RollGenerator.context_size + 1:
        c.fail(t, "sequence", "needs 7 context sentences and the answer")
    for i, cand in enumerate(c.field(t, "candidates", list, "candidates")):
        entry = f"candidates[{i}]"
        c.one_of(cand, "class", ("CORRECT", "SEQUENCE", "GRAMMAR"), entry)
        if cand["class"] != "CORRECT":
            c.one_of(cand, "structure", rules.STRUCTURES, entry)
            c.one_of(cand, "role", rules.ROLES, entry)
            if cand.get("paradigm") not in (1, 2):
                c.fail(cand, entry, "paradigm must be 1 or 2")
    balanced = c.field(t, "balanced", dict, "balanced")
    c.field(balanced, "other_locations", int, "balanced")
    labels = {cand.get("label") for cand in t["candidates"]}
    for label in c.strings(balanced, "grammar", "balanced"):
        if label not in labels:
            c.fail(balanced, "balanced", f"grammar candidate {label!r} is not among the candidates")
    c.field(t, "sizes", dict, "sizes")
