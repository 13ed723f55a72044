"""The SeqTense and Mixture generators: Italian hypotheticals with the sequence-of-tense rule,
alone or mixed with number/gender agreement and an attractor (BLM framework article §3.2.5)."""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import Hashable, Literal

from builders.base import ConfigSpec, Matrix, Sentence
from builders.generator import Generator
from builders.sampling import ProductSpace
from builders.seqtense import lexicon, rules
from builders.seqtense.realise import Material, Realiser
from builders.template import Strict, Template

Aspect = Literal["simple", "compound"]


class PeriodTenses(Strict):
    simple: tuple[str, str]      # (premise, consequent) tense with a simple premise
    compound: tuple[str, str]    # … with a compound premise


class TenseForm(Strict):
    copula: str
    compound: bool = False


class SequenceSection(Strict):
    periods: tuple[Literal["unreal", "future", "real"], ...]
    number_start: tuple[Literal["sg", "pl"], ...]
    aspect_start: tuple[Aspect, ...]
    aspect: tuple[str, str]
    gender_start: tuple[Literal["m", "f"], ...]
    gender: str
    attractor_half: tuple[int, ...]


class HypotheticalTemplate(Template):
    periods: dict[str, PeriodTenses]
    tenses: dict[str, TenseForm]
    subjunctive: dict[Aspect, str]
    conditional: dict[Aspect, str]
    sequence: SequenceSection


class _HypotheticalGenerator(Generator):
    """Shared by both phenomena; each has its own template (seqtense.yaml, mixture.yaml)."""

    rules = rules.RULES
    template_model = HypotheticalTemplate
    lexical_types = ("I",)

    def __init__(self, language: str):
        super().__init__(language)
        t = self.template
        tense_table = {k: v.model_dump() for k, v in t.tenses.items()}
        self.tenses = rules.Tenses({k: v.model_dump() for k, v in t.periods.items()}, tense_table,
                                   dict(t.subjunctive), dict(t.conditional))
        self.sequence_variants = rules.variants(t.sequence)
        self.with_gender = t.sequence.gender != "aaaa"
        self.with_attractor = bool(t.sequence.attractor_half)
        self.lex = lexicon.load(language)
        self.realiser = Realiser(self.lex, self.tenses, tense_table, self.with_gender)
        self.pro_drop_ambiguous = self._pro_drop_ambiguous(tense_table)
        nouns = self.lex["attractors"]["nouns"]
        self.n_attractors = (len(self.lex["attractors"]["intros"]), sum(n["gender"] == "m" for n in nouns),
                             sum(n["gender"] == "f" for n in nouns))
        by_gender = {g: [n["sg"] for n in nouns if n["gender"] == g] for g in ("m", "f")}
        # per frame: the indices (within each gender's nouns) of the attractors it concedes (all by default)
        self.frame_attractors = [tuple(tuple(i for i, sg in enumerate(by_gender[g])
                                             if "attractors" not in frame or sg in frame["attractors"])
                                       for g in ("m", "f"))
                                 for frame in self.lex["frames"]]

    def _pro_drop_ambiguous(self, tense_table: dict) -> frozenset:
        """(number, period, aspect, subjunctive) of the consequents whose copula in the other number
        is a first-person singular form (a singular subject's plural *sono* = "(io) sono")."""
        out = set()
        for period in self.template.periods:
            for aspect in ("simple", "compound"):
                for subjunctive in (False, True):
                    step = rules.Step("sg", "m", period, aspect, subjunctive=subjunctive)
                    copula = self.lex["copula"][tense_table[self.tenses.consequent(step)]["copula"]]
                    for number, other in (("sg", "pl"), ("pl", "sg")):
                        if copula[other] == copula["first_singular"]:
                            out.add((number, period, aspect, subjunctive))
        return frozenset(out)

    @classmethod
    def languages(cls) -> list[str]:
        return sorted(p.stem for p in cls.lexicon_dir().glob("*.yaml"))

    def lemmas(self, spec: ConfigSpec) -> list[str]:
        return [s["id"] for s in self.lex["subjects"]]

    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        """Type I: one subject, one adjective pair (and one attractor frame) per matrix."""
        lemmas = sorted(lemmas)
        # (subject, frame) pairs whose adjectives fit the subject (a frame's ``subjects``, LEXICON.md); subject-major,
        # so that without restrictions the space is the plain product subject x frame
        pairs = [(subject, f) for subject in lemmas for f, frame in enumerate(self.lex["frames"])
                 if "subjects" not in frame or subject in frame["subjects"]]
        if self.with_attractor:
            return self._plan_with_attractors(spec, lemmas, n, rng)
        plans = []
        for _, (pair, variant) in ProductSpace.of([len(pairs), len(self.sequence_variants)]).sample(n, rng, spec.name):
            plans.append((*pairs[pair], variant, 0, 0, 0))
        return plans

    def _plan_with_attractors(self, spec: ConfigSpec, lemmas: Sequence[str], n: int,
                              rng: random.Random) -> list[Hashable]:
        """Mixture: one block per frame, crossing its fitting subjects with the attractor nouns it concedes
        (a frame's ``attractors``, LEXICON.md: *nonostante il pericolo* goes with *coraggioso*, not *ordinato*)."""
        blocks, pools = [], {}
        for f, frame in enumerate(self.lex["frames"]):
            subjects = [s for s in lemmas if "subjects" not in frame or s in frame["subjects"]]
            m, fem = self.frame_attractors[f]
            if subjects:
                pools[f] = (subjects, m, fem)
                blocks.append((f, [len(subjects), len(self.sequence_variants), self.n_attractors[0], len(m), len(fem)]))
        plans = []
        for f, (subject, variant, intro, am, af) in ProductSpace.union(blocks).sample(n, rng, spec.name):
            subjects, m, fem = pools[f]
            plans.append((subjects[subject], f, variant, intro, m[am], fem[af]))
        return plans

    def matrix(self, spec: ConfigSpec, plan: Hashable) -> Matrix:
        subject, frame, variant_index, intro, am, af = plan
        variant = self.sequence_variants[variant_index]
        return Matrix(variant.name, tuple(variant.steps()), (Material(subject, frame, intro, am, af),) * 8,
                      subject, facts=rules.Facts(variant, self.pro_drop_ambiguous))

    def sentence(self, words: Material, step: rules.Step, template: str) -> Sentence:
        return self._sentence(words, step)

    @functools.lru_cache(maxsize=1 << 15)
    def _sentence(self, material: Material, step: rules.Step) -> Sentence:
        return self.realiser(material, step)

    def sequences(self):
        for variant in self.sequence_variants:
            yield variant.name, variant.steps()

    def pattern(self, step: rules.Step, template: str) -> str:
        return rules.pattern(step, self.tenses, self.with_gender)


class SeqTenseGenerator(_HypotheticalGenerator):
    phenomenon = "seqtense"


class MixtureGenerator(_HypotheticalGenerator):
    phenomenon = "mixture"
