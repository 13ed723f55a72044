"""The agreement generator: plans (seed, sequence variant, words) for the framework to realise."""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from typing import Hashable, Literal

from builders import morphology
from builders.agr import lexicon, rules
from builders.agr.realise import Material, Realiser
from builders.base import ConfigSpec, Matrix, Sentence
from builders.planning import ContextPlanner
from builders.sampling import ProductSpace, StemMasks, disjoint_lemmas
from builders.template import Strict, Template

CONTEXT_SWAPS = {  # type II: the words a sentence shows that may be swapped, per clause type
    "main": ("subject", "attractor1", "attractor2"),
    "completive": ("subject", "attractor1", "attractor2", "name", "verb"),
    "relative": ("subject", "attractor1", "attractor2", "relative", "rel_name"),
}
FRAME_SLOTS = {"main": (), "completive": ("name", "verb"), "relative": ("relative", "rel_name")}
ANSWER = 7


class AgrSequence(Strict):
    subject_start: tuple[Literal["sg", "pl"], ...]
    n1_pattern: tuple[str, ...]
    n2_pattern: tuple[str, ...]


class AgrTemplate(Template):
    clause_types: tuple[Literal["main", "completive", "relative"], ...]
    sequence: AgrSequence


class AgrGenerator(ContextPlanner):
    phenomenon = "agr"
    lemma_unit = "seeds"
    rules = rules.RULES
    template_model = AgrTemplate

    def __init__(self, language: str):
        super().__init__(language)
        self.lex = lexicon.load(language)
        seq = self.template.sequence
        self.sequence_variants = rules.variants(seq.subject_start, seq.n1_pattern, seq.n2_pattern)
        self.variant_steps = tuple(variant.steps() for variant in self.sequence_variants)
        self.clauses = self.template.clause_types
        self.seed_index = {s["id"]: i for i, s in enumerate(self.lex["seeds"])}
        self.realiser = Realiser(self.lex)
        self.masks = StemMasks()

    # --- split ---------------------------------------------------------------------------------
    def lemmas(self, spec: ConfigSpec) -> list[str]:
        return [s["id"] for s in self.lex["seeds"]]

    def split_lemmas(self, spec: ConfigSpec, lemmas: Sequence[str], n_test: int, rng: random.Random) -> list[str]:
        """Test seeds that share no content word, so type III test instances exist."""
        return disjoint_lemmas(lemmas, n_test, rng, lambda seed: self._stems(self.base_material(seed)))

    # --- materials -----------------------------------------------------------------------------
    @functools.lru_cache(maxsize=None)
    def base_material(self, seed_id: str) -> Material:
        seed, lex = self.lex["seeds_by_id"][seed_id], self.lex
        i = self.seed_index[seed_id]
        names = lex["names"]
        return Material(
            seed=seed_id, subject=seed["subject"], prep=seed["attractor1"]["prep"],
            attractor1=seed["attractor1"]["noun"], attractor2=seed["attractor2"],
            name=names[i % len(names)], verb=lex["completive_verbs"][i % len(lex["completive_verbs"])],
            relative=lex["relatives"][i % len(lex["relatives"])], rel_name=names[(i + 1) % len(names)])

    def _pool(self, seed_id: str, slot: str) -> list[str]:
        """The words a slot may take instead of the seed's own (never the seed's own word)."""
        seed = self.lex["seeds_by_id"][seed_id]
        if slot in lexicon.SLOTS:
            return seed["alternatives"][slot]
        own = getattr(self.base_material(seed_id), slot)
        pool = {"name": self.lex["names"], "rel_name": self.lex["names"],
                "verb": self.lex["completive_verbs"], "relative": self.lex["relatives"]}[slot]
        return [w for w in pool if w != own]

    @functools.lru_cache(maxsize=1 << 14)  # every sentence of a type II/III matrix, planned then realised
    def swapped(self, seed_id: str, swap: tuple[str, int] | None) -> Material:
        """The seed's material with one word replaced by its ``index``-th alternative."""
        mat = self.base_material(seed_id)
        if swap is None:
            return mat
        slot, index = swap
        return mat._replace(**{slot: self._pool(seed_id, slot)[index]})

    def _stems(self, mat: Material, clause: str = "main") -> frozenset[str]:
        """Content stems of every form of a material (both numbers, the clause's frame words)."""
        stems = self._word_stems(mat.subject) | self._word_stems(mat.attractor1) | self._word_stems(mat.attractor2)
        stems |= self._word_stems(mat.seed, predicate=True)
        if clause == "completive":
            stems |= self._word_stems(f"{mat.name} {mat.verb}", frame=True)
        elif clause == "relative":
            stems |= self._word_stems(mat.relative.format(name=mat.rel_name), frame=True)
        return stems

    @functools.lru_cache(maxsize=None)
    def _word_stems(self, key: str, predicate: bool = False, frame: bool = False) -> frozenset[str]:
        if frame:
            words = [key]
        elif predicate:
            pred = self.lex["seeds_by_id"][key]["predicate"]
            words = [f[n] for f in ([pred] if "sg" in pred else pred.values()) for n in ("sg", "pl")]
        else:
            words = [v for k, v in self.lex["nouns"][key].items() if k not in lexicon.NOUN_FACTS]
        return morphology.content_stems(" ".join(words), self.language)

    # --- planning (type II / III: builders.planning) -------------------------------------------
    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        lemmas = sorted(lemmas)
        if spec.lexical_type == "I":
            space = ProductSpace.of((len(lemmas), len(self.sequence_variants), len(self.clauses)))
            return [(self.clauses[c], v, lemmas[s]) for _, (s, v, c) in space.sample(n, rng, spec.name)]
        return self.plan_contexts(spec, lemmas, n, rng)

    def draw_start(self, spec: ConfigSpec, lemmas: Sequence[str], rng: random.Random):
        """Type II: one clause type and one seed; type III: a clause type and the seeds in random order."""
        clause = rng.choice(self.clauses)
        if spec.lexical_type == "II":
            return clause, rng.choice(lemmas)
        frame_pools = {slot: list(range(len(self._frame_pool(slot)))) for slot in FRAME_SLOTS[clause]}
        pool = list(lemmas)
        rng.shuffle(pool)
        return clause, frame_pools, pool, set()

    def draw_slots(self, state, i: int) -> tuple[str, ...]:
        return self._visible_slots(i, state[0])

    def plan_bound(self, spec: ConfigSpec, lemmas: Sequence[str]) -> int | None:
        """Type II: per clause and seed, each sentence's (slot, alternative) choices multiplied; type III: each
        sentence's (seed, swap, frame words) choices multiplied (distinct seeds and stems left uncounted)."""
        if spec.lexical_type == "I":
            return None
        total = 0
        for clause in self.clauses:
            if spec.lexical_type == "II":
                total += sum(math.prod(sum(len(self._pool(seed, slot)) for slot in self._visible_slots(i, clause))
                                       for i in range(8)) for seed in lemmas)
                continue
            frames = math.prod(len(self._frame_pool(slot)) for slot in FRAME_SLOTS[clause])
            total += math.prod(frames * sum(len(self._pool(seed, slot)) for seed in lemmas
                                            for slot in ("subject", "attractor1") + (("attractor2",) if i >= 4 else ()))
                               for i in range(8))
        return total * len(self.sequence_variants)

    def _visible_slots(self, i: int, clause: str) -> tuple[str, ...]:
        """The words sentence ``i`` shows (the one-attractor half hides attractor 2; the answer
        sentence shows it in some candidate)."""
        slots = CONTEXT_SWAPS[clause]
        return tuple(s for s in slots if s != "attractor2" or i >= 4)

    def draw_swap(self, state, i: int, slot: str, rng: random.Random) -> tuple[str, int]:
        """The seed's words with ``slot`` swapped for one of its alternatives."""
        return slot, rng.randrange(len(self._pool(state[1], slot)))

    def draw_options(self, state, i: int, used: int, rng: random.Random):
        """Each seed not yet taken, with one word swapped and the clause's frame words drawn."""
        clause, frame_pools, pool, taken = state
        for seed in pool:
            if seed in taken:
                continue
            slot = rng.choice(("subject", "attractor1") + (("attractor2",) if i >= 4 else ()))
            swap = (slot, rng.randrange(len(self._pool(seed, slot))))
            frame = tuple((s, rng.choice(frame_pools[s])) for s in FRAME_SLOTS[clause])
            mask = self._swap_mask(seed, swap) | self._frame_mask(frame)
            if not mask & used:
                taken.add(seed)
            yield (seed, swap, frame), mask

    def draw_finish(self, spec: ConfigSpec, state, choices: list, rng: random.Random) -> Hashable:
        """Type II: one seed, each sentence swapping one word it shows; type III: eight seeds, one per sentence."""
        variant = rng.randrange(len(self.sequence_variants))
        if spec.lexical_type == "II":
            return self.type2_plan(state[0], variant, state[1], choices)
        return state[0], variant, tuple(choices)

    @staticmethod
    def type2_plan(clause: str, variant: int, seed: str, swaps: Sequence[tuple[str, int]]) -> Hashable:
        """A type II plan: the swaps (slot, index) of the eight sentences kept flat, since a plan is held per
        instance while a config is generated (eight pair tuples would cost 450 bytes more each)."""
        return clause, variant, seed, tuple(part for swap in swaps for part in swap)

    @functools.lru_cache(maxsize=None)
    def _swap_mask(self, seed: str, swap: tuple[str, int]) -> int:
        """Stem mask of a seed's own words with one swapped (type III planning compares masks)."""
        return self.masks.mask(self._stems(self.swapped(seed, swap)))

    @functools.lru_cache(maxsize=None)
    def _frame_mask(self, frame: tuple) -> int:
        """Stem mask of a clause's frame words (completive subject and verb, relative clause)."""
        words = {s: self._frame_pool(s)[k] for s, k in frame}
        if "relative" in words:
            text = words["relative"].format(name=words.get("rel_name", ""))
        else:
            text = " ".join(words.values())
        return self.masks.mask(self._word_stems(text, frame=True)) if words else 0

    def _frame_pool(self, slot: str) -> list[str]:
        return self.lex["names" if slot in ("name", "rel_name") else
                        {"verb": "completive_verbs", "relative": "relatives"}[slot]]

    def _material3(self, seed: str, swap, frame) -> Material:
        return self.swapped(seed, swap)._replace(**{s: self._frame_pool(s)[k] for s, k in frame})

    # --- the framework's hooks -----------------------------------------------------------------
    def matrix(self, spec: ConfigSpec, plan: Hashable) -> Matrix:
        if spec.lexical_type == "I":
            clause, variant, seed = plan
            materials = (self.base_material(seed),) * 8
        elif spec.lexical_type == "II":
            clause, variant, seed, swaps = plan
            materials = tuple(self.swapped(seed, swap) for swap in zip(swaps[::2], swaps[1::2]))
        else:
            clause, variant, sentences = plan
            materials = tuple(self._material3(*s) for s in sentences)
        return Matrix(clause, self.variant_steps[variant], materials, materials[ANSWER].seed)

    def sentence(self, words: Material, step: rules.Step, template: str) -> Sentence:
        return self.realiser(words, step, template)  # cached by the framework (Generator.realised)

    def sequences(self):
        for clause in self.clauses:
            for variant in self.sequence_variants:
                yield clause, variant.steps()

    def pattern(self, step: rules.Step, template: str) -> str:
        return step.pattern(template)
