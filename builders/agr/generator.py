"""The agreement generator: plans (seed, sequence variant, words) and realises them."""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import Hashable

from builders import morphology
from builders.agr import lexicon, rules
from builders.agr.realise import Material, Realiser
from builders.base import (Candidate, ConfigSpec, Generator, ImpossibleSize, Instance, disjoint_lemmas,
                           draw_distinct, sample_distinct)
from builders.lexicon import load_yaml

SWAPS = {  # type II: which word of a sentence may be swapped, per clause type
    "main": ("subject", "attractor1", "attractor2"),
    "completive": ("subject", "attractor1", "attractor2", "name", "verb"),
    "relative": ("subject", "attractor1", "attractor2", "relative", "rel_name"),
}


class AgrGenerator(Generator):
    phenomenon = "agr"
    description = "Subject-verb number agreement across one or two attractors (BLM-AgrF)."
    context_size = 7

    def __init__(self, language: str):
        super().__init__(language)
        self.template = load_yaml(self.directory() / "template.yaml")
        self.test_lemma_fraction = self.template["test_lemma_fraction"]
        self.lex = lexicon.load(language)
        self.variants_ = rules.variants(self.template["sequence"])
        self.clauses = tuple(self.template["clause_types"])
        self.seed_index = {s["id"]: i for i, s in enumerate(self.lex["seeds"])}
        self.realiser = Realiser(self.lex)

    # --- split ---------------------------------------------------------------------------------
    def default_size(self, spec: ConfigSpec) -> int:
        return self.template["sizes"][spec.lexical_type]

    def lemmas(self, spec: ConfigSpec) -> list[str]:
        return [s["id"] for s in self.lex["seeds"]]

    def split_lemmas(self, lemmas: Sequence[str], n_test: int, rng: random.Random) -> list[str]:
        """Test seeds that share no content word, so type III test instances exist."""
        return disjoint_lemmas(lemmas, n_test, rng, lambda seed: self._stems(self.base_material(seed)))

    # --- materials -----------------------------------------------------------------------------
    @functools.lru_cache(maxsize=None)
    def base_material(self, seed_id: str) -> Material:
        seed, lex = self.lex["seeds_by_id"][seed_id], self.lex
        i = self.seed_index[seed_id]
        names = lex["names"]
        return Material(
            seed=seed_id,
            subject=seed["subject"],
            prep=seed["attractor1"]["prep"],
            attractor1=seed["attractor1"]["noun"],
            attractor2=seed["attractor2"],
            name=names[i % len(names)],
            verb=lex["completive_verbs"][i % len(lex["completive_verbs"])],
            relative=lex["relatives"][i % len(lex["relatives"])],
            rel_name=names[(i + 1) % len(names)],
        )

    def _pool(self, seed_id: str, slot: str) -> list[str]:
        seed = self.lex["seeds_by_id"][seed_id]
        if slot in lexicon.SLOTS:
            return seed["alternatives"][slot]
        return {"name": self.lex["names"], "rel_name": self.lex["names"],
                "verb": self.lex["completive_verbs"], "relative": self.lex["relatives"]}[slot]

    def swapped(self, seed_id: str, clause: str, swap: tuple[str, int] | None) -> Material:
        """The seed's material with one word replaced by its ``index``-th alternative."""
        mat = self.base_material(seed_id)
        if swap is None:
            return mat
        slot, index = swap
        pool = self._pool(seed_id, slot)
        if slot not in lexicon.SLOTS:  # frame pools include the seed's own word: skip it
            pool = [w for w in pool if w != getattr(mat, slot)]
        return mat._replace(**{slot: pool[index % len(pool)]})

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
            words = [v for k, v in self.lex["nouns"][key].items() if k not in ("gender", "elide", "article")]
        return morphology.content_stems(" ".join(words), self.language)

    # --- planning ------------------------------------------------------------------------------
    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        nv, nc = len(self.variants_), len(self.clauses)
        lemmas = sorted(lemmas)
        if spec.lexical_type == "I":
            space = len(lemmas) * nv * nc
            picks = sample_distinct(space, n, rng, spec.name)
            return [(self.clauses[p % nc], (p // nc) % nv, lemmas[p // (nc * nv)]) for p in picks]
        make = self._plan_type2 if spec.lexical_type == "II" else self._plan_type3
        return draw_distinct(lambda: make(lemmas, rng), n, spec.name)

    def _swap(self, seed: str, clause: str, rng: random.Random) -> tuple[str, int]:
        slot = rng.choice(SWAPS[clause])
        return slot, rng.randrange(len(self._pool(seed, slot)) - (slot not in lexicon.SLOTS))

    def _plan_type2(self, lemmas, rng) -> Hashable:
        clause = rng.choice(self.clauses)
        seed = rng.choice(lemmas)
        swaps = tuple(self._swap(seed, clause, rng) for _ in range(8))
        return clause, rng.randrange(len(self.variants_)), seed, swaps

    def _plan_type3(self, lemmas, rng) -> Hashable | None:
        """Eight sentences from eight seeds, chosen greedily so that no content word repeats."""
        if len(lemmas) < 8:
            raise ImpossibleSize(f"type III needs 8 seeds with no shared content word, this split has {len(lemmas)}")
        clause = rng.choice(self.clauses)
        frames = list(zip(*(rng.sample(range(len(self.lex[k])), 8)
                            for k in ("names", "completive_verbs", "relatives", "names"))))
        pool = list(lemmas)
        rng.shuffle(pool)
        sentences, used = [], set()
        for frame in frames:
            for seed in pool:
                swap = self._swap(seed, "main", rng)
                stems = self._stems(self._material3(seed, swap, frame), clause)
                if not stems & used:
                    used |= stems
                    sentences.append((seed, swap, frame))
                    pool.remove(seed)
                    break
            else:
                return None
        return clause, rng.randrange(len(self.variants_)), tuple(sentences)

    def _material3(self, seed: str, swap, frame) -> Material:
        lex = self.lex
        return self.swapped(seed, "main", swap)._replace(
            name=lex["names"][frame[0]], verb=lex["completive_verbs"][frame[1]],
            relative=lex["relatives"][frame[2]], rel_name=lex["names"][frame[3]])

    # --- realisation ---------------------------------------------------------------------------
    def realise(self, spec: ConfigSpec, plan: Hashable) -> Instance:
        if spec.lexical_type == "I":
            clause, variant, seed = plan
            materials = [self.base_material(seed)] * 8
        elif spec.lexical_type == "II":
            clause, variant, seed, swaps = plan
            materials = [self.swapped(seed, clause, swap) for swap in swaps]
        else:
            clause, variant, sentences = plan
            materials = [self._material3(*s) for s in sentences]
        steps = self.variants_[variant].steps()
        context = [self._sentence(materials[i], steps[i], clause) for i in range(7)]
        gold = steps[7]
        if spec.balanced:
            answers = rules.balanced_answers(gold, self.template["balanced"]["factors"])
        else:
            answers = rules.paper_answers(gold, self.template["candidates"])
        candidates = [Candidate(self._sentence(materials[7], step, clause), label, cls)
                      for step, label, cls in answers]
        return Instance(context, candidates, lemma=materials[7].seed, template=clause)

    @functools.lru_cache(maxsize=1 << 16)
    def _sentence(self, material: Material, step: rules.Step, clause: str):
        return self.realiser(material, step, clause)

    def next_patterns(self, spec: ConfigSpec, template: str, context_patterns: Sequence[str]) -> set[str]:
        return _next_patterns(tuple(self.variants_), template, tuple(context_patterns))


@functools.cache
def _next_patterns(variants: tuple[rules.Variant, ...], clause: str, context: tuple[str, ...]) -> set[str]:
    sequences = [tuple(step.pattern(clause) for step in v.steps()) for v in variants]
    return {seq[7] for seq in sequences if seq[:7] == context}
