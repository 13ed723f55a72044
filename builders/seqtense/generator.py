"""The SeqTense and Mixture generators: Italian hypotheticals with the sequence-of-tense rule,
alone or mixed with number/gender agreement and an attractor (BLM framework article §3.2.5)."""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import ClassVar, Hashable

from builders.base import Candidate, ConfigSpec, Generator, Instance, sample_distinct
from builders.lexicon import load_yaml
from builders.seqtense import lexicon, rules
from builders.seqtense.realise import Material, Realiser


class _HypotheticalGenerator(Generator):
    """Shared by both phenomena; ``section`` picks the template section (sequence, candidates)."""

    section: ClassVar[str]
    context_size = 7
    lexical_types = ("I",)
    type_i_min_jaccard = 0.3

    def __init__(self, language: str):
        super().__init__(language)
        template = load_yaml(self.directory() / "template.yaml")
        self.section_ = template[self.section]
        self.rule_table = template["rules"]
        self.test_lemma_fraction = self.section_["test_lemma_fraction"]
        self.tenses = rules.Tenses(template["periods"], template["tenses"], template["subjunctive"],
                                   template["conditional"])
        self.variants_ = rules.variants(self.section_["sequence"])
        self.with_gender = self.section_["sequence"]["gender"] != "aaaa"
        self.with_attractor = bool(self.section_["sequence"]["attractor_half"])
        self.lex = lexicon.load(language)
        self.realiser = Realiser(self.lex, self.tenses, template["tenses"], self.with_gender)
        nouns = self.lex["attractors"]["nouns"]
        self.n_attractors = (len(self.lex["attractors"]["intros"]), sum(n["gender"] == "m" for n in nouns),
                             sum(n["gender"] == "f" for n in nouns))

    def default_size(self, spec: ConfigSpec) -> int:
        return self.section_["sizes"][spec.lexical_type]

    def lemmas(self, spec: ConfigSpec) -> list[str]:
        return [s["id"] for s in self.lex["subjects"]]

    # --- planning ------------------------------------------------------------------------------
    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        """Type I: one subject, one adjective pair (and one attractor frame) per matrix."""
        lemmas = sorted(lemmas)
        dims = [len(lemmas), len(self.lex["frames"]), len(self.variants_)]
        if self.with_attractor:
            dims += list(self.n_attractors)
        space = 1
        for d in dims:
            space *= d
        plans = []
        for index in sample_distinct(space, n, rng, spec.name):
            coords = []
            for d in reversed(dims):
                index, r = divmod(index, d)
                coords.append(r)
            coords.reverse()
            subject, frame, variant, *attractor = coords
            intro, am, af = attractor or (0, 0, 0)
            plans.append((lemmas[subject], frame, variant, intro, am, af))
        return plans

    # --- realisation ---------------------------------------------------------------------------
    def realise(self, spec: ConfigSpec, plan: Hashable) -> Instance:
        subject, frame, variant_index, intro, am, af = plan
        material = Material(subject, frame, intro, am, af)
        variant = self.variants_[variant_index]
        steps = variant.steps()
        context = [self._sentence(material, step) for step in steps[:7]]
        if spec.balanced:
            answers = rules.balanced_answers(steps[7], variant, self.section_["balanced"], self.rule_table)
        else:
            answers = rules.paper_answers(steps[7], variant, self.section_["candidates"], self.rule_table)
        candidates = [Candidate(self._sentence(material, step), label, cls) for step, label, cls in answers]
        return Instance(context, candidates, lemma=subject, template=variant.name)

    @functools.lru_cache(maxsize=1 << 15)
    def _sentence(self, material: Material, step: rules.Step):
        return self.realiser(material, step)

    def next_patterns(self, spec: ConfigSpec, template: str, context_patterns: Sequence[str]) -> set[str]:
        return set(self._continuations().get((template, tuple(context_patterns)), ()))

    @functools.cache
    def _continuations(self) -> dict[tuple, set[str]]:
        """(template, first seven patterns) -> the eighth, for every declared sequence variant."""
        table: dict[tuple, set[str]] = {}
        for variant in self.variants_:
            seq = [rules.pattern(step, self.tenses, self.with_gender) for step in variant.steps()]
            table.setdefault((variant.name, tuple(seq[:7])), set()).add(seq[7])
        return table


class SeqTenseGenerator(_HypotheticalGenerator):
    phenomenon = "seqtense"
    section = "seqtense"
    description = "Italian sequence of tense in hypotheticals (BLM framework article §3.2.5)."


class MixtureGenerator(_HypotheticalGenerator):
    phenomenon = "mixture"
    section = "mixture"
    description = "Sequence of tense mixed with number/gender agreement and an attractor (appendix 11.1)."
