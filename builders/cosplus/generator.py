"""The COS+ generator: plans (tense, verb, agent, patient per sentence) for the framework to realise."""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from collections.abc import Hashable, Iterator, Sequence
from typing import Literal

from pydantic import model_validator

from builders import morphology
from builders.base import ConfigSpec, Matrix, Sentence
from builders.cosplus import lexicon, rules
from builders.cosplus.realise import Material, Realiser, pattern
from builders.errors import InputError
from builders.lexicon import LexiconError
from builders.planning import ContextPlanner
from builders.sampling import ProductSpace, StemMasks, disjoint_lemmas
from builders.template import AnswersDecl, RuleRef, Strict, TemplateBase

Role = Literal["agent", "patient"]
PICK_TRIES = 30  # (agent, patient) draws per verb when a type III sentence looks for unused stems


class StepDecl(Strict):
    """One clause of a template: ``{clause: object_relative, subject: agent, object: patient}``."""

    clause: Literal["main", "subject_relative", "object_relative"]
    subject: Role
    object: Role | None = None

    @model_validator(mode="after")
    def _roles(self) -> "StepDecl":
        if self.object == self.subject:
            raise InputError("subject and object must be different roles")
        if self.clause == "object_relative" and self.object is None:
            raise InputError("an object relative needs an object")
        return self

    def step(self, tense: str) -> rules.Step:
        return rules.Step(self.clause, self.subject, self.object, tense)


class SequenceDecl(Strict):
    """A template of Fig. 9: its context steps, its gold step and its answer sets."""

    name: str
    context: tuple[StepDecl, ...]
    gold: StepDecl
    answers: AnswersDecl


class VariantDecl(Strict):
    genders: tuple[Literal["m", "f", "n"], ...]


class CosPlusTemplate(TemplateBase):
    """COS+ declares its answer sets per template (T2I, I2T), not at the top level."""

    templates: dict[str, SequenceDecl]
    language_variants: dict[str, dict[str, VariantDecl]] = {}
    tenses: tuple[Literal["present", "past"], ...]

    @model_validator(mode="after")
    def _rules_take_no_parameters(self) -> "CosPlusTemplate":
        for ref, loc in self.rule_refs():
            if ref.params:
                raise InputError(f"{'.'.join(map(str, loc))}: rule {ref.name!r} takes no parameters, got {ref.params}")
        return self

    def rule_refs(self) -> list[tuple[RuleRef, tuple]]:
        """Every rule the per-template answer sets name, with its location (for file:line errors)."""
        refs = []
        for key, seq in self.templates.items():
            for i, cand in enumerate(seq.answers.paper):
                refs += [(ref, ("templates", key, "answers", "paper", i, "rules", j))
                         for j, ref in enumerate(cand.rules)]
            if seq.answers.balanced:
                refs += [(ref, ("templates", key, "answers", "balanced", "factors", j))
                         for j, ref in enumerate(seq.answers.balanced.factors)]
                refs += [(RuleRef(name=name), ("templates", key, "answers", "balanced", "wellformed_from", j))
                         for j, name in enumerate(seq.answers.balanced.wellformed_from or ())]
        return refs


class _TenseBalancer:
    """Alternates the tense per answer verb (random start), so that within every split each verb's
    gold answers are half present, half past: the tense of a candidate alone says nothing."""

    def __init__(self, tenses: Sequence[str], rng: random.Random):
        self.tenses, self.rng, self.count, self.start = tuple(tenses), rng, {}, {}

    def next(self, verb: str) -> str:
        if verb not in self.start:
            self.start[verb] = self.rng.randrange(len(self.tenses))
        tense = self.tenses[(self.start[verb] + self.count.get(verb, 0)) % len(self.tenses)]
        self.count[verb] = self.count.get(verb, 0) + 1
        return tense


class CosPlusGenerator(ContextPlanner):
    phenomenon = "cosplus"
    lemma_unit = "verbs"
    rules = rules.RULES
    template_model = CosPlusTemplate
    lexical_types = ("I", "III")
    variants = ("t2i", "i2t")

    @classmethod
    def languages(cls) -> list[str]:
        """Lexicon files, with German split into de-case and de-mix (template ``language_variants``)."""
        variants = cls.load_template().language_variants
        out = []
        for stem in super().languages():
            out += [f"{stem}-{v}" for v in variants[stem]] if stem in variants else [stem]
        return sorted(out)

    def __init__(self, language: str):
        super().__init__(language)
        iso, _, variant = language.partition("-")
        genders = None
        if variant:
            known = self.template.language_variants.get(iso, {})
            if variant not in known:
                raise LexiconError(self.template_path(), None, "language_variants",
                                   f"no variant {variant!r} for {iso!r}; known: {', '.join(known) or 'none'}")
            genders = known[variant].genders
        self.iso = iso
        self.morph = morphology.language(iso)
        self.lex = lexicon.load(iso, genders)
        self.realiser = Realiser(self.lex)
        self.agents = sorted(self.lex.agents)
        self.masks = StemMasks()
        self._answerable: dict[tuple, bool] = {}

    # --- split ---------------------------------------------------------------------------------
    def lemmas(self, spec: ConfigSpec) -> list[str]:
        return sorted(self.lex.verbs)

    def split_lemmas(self, spec: ConfigSpec, lemmas: Sequence[str], n_test: int, rng: random.Random) -> list[str]:
        """Test verbs whose forms share no content stem, so type III test instances exist."""
        return disjoint_lemmas(lemmas, n_test, rng, self.verb_stems)

    # --- stems (type III: no content word shared between sentences) -----------------------------
    @functools.lru_cache(maxsize=None)
    def verb_stems(self, lemma: str) -> frozenset[str]:
        verb = self.lex.verbs[lemma]
        forms = [*verb.transitive.values(), *verb.intransitive.values()]
        return morphology.content_stems(" ".join(forms), self.iso)

    @functools.lru_cache(maxsize=None)
    def noun_stems(self, role: str, key: str) -> frozenset[str]:
        entry = (self.lex.agents if role == rules.AGENT else self.lex.patients)[key]
        forms = [v for k, v in entry.items() if k not in ("gender", "article")]
        return morphology.content_stems(" ".join(forms), self.iso)

    @functools.lru_cache(maxsize=None)
    def verb_mask(self, lemma: str) -> int:
        return self.masks.mask(self.verb_stems(lemma))

    @functools.lru_cache(maxsize=None)
    def noun_mask(self, role: str, key: str) -> int:
        return self.masks.mask(self.noun_stems(role, key))

    # --- planning ------------------------------------------------------------------------------
    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        """Type I: ``(tense, verb, agent, patient)``; type III: ``(tense, five materials)``. The
        tense alternates per answer verb in the order plans are drawn."""
        lemmas = sorted(lemmas)
        tenses = _TenseBalancer(self.template.tenses, rng)
        if spec.lexical_type == "I":
            blocks = self._answerable_blocks(spec.variant, lemmas)
            space = ProductSpace.union((key, (len(patients), len(agents))) for key, (patients, agents) in blocks.items())
            plans = []
            for key, (p, a) in space.sample(n, rng, spec.name):
                patients, agents = blocks[key]
                plans.append((tenses.next(key[0]), key[0], agents[a], patients[p]))
            return plans
        return [(tenses.next(materials[-1].verb), materials) for materials in self.plan_contexts(spec, lemmas, n, rng)]

    def plan_bound(self, spec: ConfigSpec, lemmas: Sequence[str]) -> int | None:
        """Type III: every sentence's (verb, patient[, agent]) choices multiplied (distinct verbs and stems left
        uncounted); the tense follows from the draw order."""
        if spec.lexical_type == "I":
            return None
        seq = self.template.templates[spec.variant]
        uses_agent = tuple(rules.AGENT in (s.subject, s.object) for s in seq.context) + (True,)
        words = sum(len(self.lex.verbs[verb].patients) for verb in lemmas)
        return math.prod(words * (len(self.agents) if agent else 1) for agent in uses_agent)

    def draw_start(self, spec: ConfigSpec, lemmas: Sequence[str], rng: random.Random):
        """Type III: the verbs in random order, and which sentences show an agent."""
        seq = self.template.templates[spec.variant]
        uses_agent = tuple(rules.AGENT in (s.subject, s.object) for s in seq.context) + (True,)
        pool = list(lemmas)
        rng.shuffle(pool)
        return spec.variant, uses_agent, pool

    def draw_options(self, state, i: int, used: int, rng: random.Random) -> Iterator[tuple[Material, int]]:
        """Per verb still free (random order), a few random nouns; only sentences that fit are offered;
        the answer's words leave at least one wrong candidate (``answerable``)."""
        variant, uses_agent, pool = state
        for verb in pool:
            verb_mask = self.verb_mask(verb)
            if verb_mask & used:
                continue
            patients = self.lex.verbs[verb].patients
            for _ in range(PICK_TRIES):
                patient = rng.choice(patients)
                agent = rng.choice(self.agents) if uses_agent[i] else None
                if i == len(uses_agent) - 1 and not self.answerable(variant, Material(verb, agent, patient), "III"):
                    continue
                mask = verb_mask | self.noun_mask(rules.PATIENT, patient)
                if agent is not None:
                    mask |= self.noun_mask(rules.AGENT, agent)
                if not mask & used:
                    yield Material(verb, agent, patient), mask
                    break

    def draw_finish(self, spec: ConfigSpec, state, choices: list, rng: random.Random) -> tuple[Material, ...]:
        """Five sentences (four context + answer) from five verbs with no content stem in common; the
        tense comes after (``plan``), so a context is checked in every tense (``context_stems``)."""
        return tuple(choices)

    def context_stems(self, spec: ConfigSpec, materials: tuple[Material, ...]) -> list[frozenset[str]]:
        """Each context sentence's stems in every tense the plan may get."""
        in_tense = super().context_stems
        tensed = [in_tense(spec, (tense, materials)) for tense in self.template.tenses]
        return [frozenset().union(*sentence) for sentence in zip(*tensed)]

    def _answerable_blocks(self, variant: str, lemmas: Sequence[str]) -> dict[tuple, tuple[tuple[str, ...], tuple[str, ...]]]:
        """Per verb and agent group (German: whether the agent shows its case, the only thing about an
        agent the judges read), the patients whose answer sets have a wrong candidate, and the agents."""
        groups: dict[bool, list[str]] = {}
        for agent in self.agents:
            shows = self.realiser.grammar.case_marking and self.morph.shows_case(self.lex.agents[agent])
            groups.setdefault(shows, []).append(agent)
        blocks = {}
        for verb in lemmas:
            for shows, agents in sorted(groups.items()):
                patients = tuple(p for p in self.lex.verbs[verb].patients
                                 if self.answerable(variant, Material(verb, agents[0], p)))
                if patients:
                    blocks[(verb, shows)] = (patients, tuple(agents))
        return blocks

    def answerable(self, variant: str, material: Material, lexical_type: str = "I") -> bool:
        """Whether the paper answer set of these words has a wrong candidate besides the gold: where
        every candidate is marginal (de-mix *bräunen* with *die Köchin*, *die Zwiebel*), or, in type III,
        a second answer (builders.rules.hides_fillers), the words make no instance."""
        key = (variant, self.facts(material), lexical_type)
        if key not in self._answerable:
            spec = ConfigSpec(self.phenomenon, self.language, "I", variant)
            matrix = dataclasses.replace(self.matrix(spec, ("present", material.verb, material.agent, material.patient)),
                                         lexical_type=lexical_type)
            self._answerable[key] = len(self.answers(matrix, False)) >= 2
        return self._answerable[key]

    # --- the framework's hooks -----------------------------------------------------------------
    def matrix(self, spec: ConfigSpec, plan: Hashable) -> Matrix:
        seq = self.template.templates[spec.variant]
        if spec.lexical_type == "I":
            tense, verb, agent, patient = plan
            materials = (Material(verb, agent, patient),) * (self.context_size + 1)
        else:
            tense, materials = plan
        steps = tuple(s.step(tense) for s in seq.context) + (seq.gold.step(tense),)
        return Matrix(seq.name, steps, materials, materials[-1].verb, self.facts(materials[-1]))

    @functools.lru_cache(maxsize=1 << 14)
    def facts(self, material: Material) -> rules.Facts:
        """The lexicon facts the judges read for the answer's words."""
        verb = self.lex.verbs[material.verb]
        case_marking = self.realiser.grammar.case_marking
        nouns = (self.lex.agents[material.agent], self.lex.patients[material.patient])
        ambiguous = case_marking and not any(self.morph.shows_case(entry) for entry in nouns)
        return rules.Facts(case_marking, verb.intransitive_reading(), verb.reversal_reading(material.patient), ambiguous)

    @functools.cache
    def declared_answers(self, template: str) -> AnswersDecl:
        """The answer sets of a template (COS+ declares one per template, Fig. 9)."""
        return next(seq.answers for seq in self.template.templates.values() if seq.name == template)

    def sentence(self, words: Material, step: rules.Step, template: str) -> Sentence:
        return self._sentence(words, step)

    @functools.lru_cache(maxsize=1 << 16)
    def _sentence(self, material: Material, step: rules.Step) -> Sentence:
        return self.realiser(material, step)

    def sequences(self):
        for seq in self.template.templates.values():
            for tense in self.template.tenses:
                yield seq.name, tuple(s.step(tense) for s in seq.context) + (seq.gold.step(tense),)

    def pattern(self, step: rules.Step, template: str) -> str:
        return pattern(step, self.realiser.grammar)
