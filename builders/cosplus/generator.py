"""The COS+ generator: plans (tense, verb, agent, patient per sentence) and realises them."""

from __future__ import annotations

import bisect
import functools
import itertools
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Hashable

from builders import morphology
from builders.base import (Candidate, ConfigSpec, Generator, ImpossibleSize, Instance, disjoint_lemmas,
                           sample_distinct)
from builders.cosplus import lexicon, rules
from builders.cosplus.realise import Material, Realiser, pattern
from builders.lexicon import LexiconError, load_yaml

MAX_MISSES = 20_000   # consecutive type III draws without a new instance before giving up
PICK_TRIES = 30       # agent/patient draws per verb when looking for unused stems (type III)


@functools.cache
def _template() -> dict:
    return load_yaml(Path(__file__).with_name("template.yaml"))


class _TenseBalancer:
    """Alternates the tense per answer verb (random start), so that within every split each verb's
    gold answers are half present, half past: the tense of a candidate alone says nothing."""

    def __init__(self, rng: random.Random):
        self.rng, self.count, self.start = rng, {}, {}

    def peek(self, verb: str) -> str:
        if verb not in self.start:
            self.start[verb] = self.rng.randrange(len(rules.TENSES))
        return rules.TENSES[(self.start[verb] + self.count.get(verb, 0)) % len(rules.TENSES)]

    def next(self, verb: str) -> str:
        tense = self.peek(verb)
        self.count[verb] = self.count.get(verb, 0) + 1
        return tense


class CosPlusGenerator(Generator):
    phenomenon = "cosplus"
    description = "Change-of-state food verbs with relative-clause diagnostics, T2I and I2T (000 §4.2)."
    context_size = 4
    lexical_types = ("I", "III")
    variants = ("t2i", "i2t")
    # Sentence 4 of a matrix has two content words (``Der Reis quillt``); where the intransitive
    # stem differs from the transitive one (quellen: quellt/quillt) type I overlap is 1/4.
    type_i_min_jaccard = 0.25

    @classmethod
    def languages(cls) -> list[str]:
        """Lexicon files, with German split into de-case and de-mix (template ``language_variants``)."""
        variants = _template().get("language_variants", {})
        out = []
        for stem in super().languages():
            out += [f"{stem}-{v}" for v in variants[stem]] if stem in variants else [stem]
        return sorted(out)

    def __init__(self, language: str):
        super().__init__(language)
        self.template = _template()
        self.test_lemma_fraction = self.template["test_lemma_fraction"]
        iso, _, variant = language.partition("-")
        genders = None
        if variant:
            known = self.template.get("language_variants", {}).get(iso, {})
            if variant not in known:
                raise LexiconError(self.directory() / "template.yaml", None, "language_variants",
                                   f"no variant {variant!r} for {iso!r}; known: {', '.join(known) or 'none'}")
            genders = tuple(known[variant].get("genders") or ()) or None
        self.iso = iso
        self.lex = lexicon.load(iso, genders)
        self.realiser = Realiser(self.lex)
        self.agents = sorted(self.lex.agents)
        self.by_name = {t["name"]: t for t in self.template["templates"].values()}

    # --- split ---------------------------------------------------------------------------------
    def default_size(self, spec: ConfigSpec) -> int:
        return self.template["sizes"][spec.lexical_type]

    def lemmas(self, spec: ConfigSpec) -> list[str]:
        return sorted(self.lex.verbs)

    def split_lemmas(self, lemmas: Sequence[str], n_test: int, rng: random.Random) -> list[str]:
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

    # --- planning ------------------------------------------------------------------------------
    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        lemmas = sorted(lemmas)
        if spec.lexical_type == "I":
            return self._plan_type1(spec, lemmas, n, rng)
        template = self.template["templates"][spec.variant]
        uses_agent = [s.get("subject") == rules.AGENT or s.get("object") == rules.AGENT
                      for s in template["context"]] + [True]  # candidates use both nouns
        plans, seen, misses = [], set(), 0
        tenses = _TenseBalancer(rng)
        while len(plans) < n:
            materials = self._plan_type3(lemmas, uses_agent, rng)
            plan = None if materials is None else (tenses.peek(materials[-1].verb), materials)
            if plan is not None and plan not in seen:
                tenses.next(materials[-1].verb)
                seen.add(plan)
                plans.append(plan)
                misses = 0
            else:
                misses += 1
                if misses > MAX_MISSES:
                    raise ImpossibleSize(f"{spec.name}: found only {len(plans)} distinct instances of the {n} "
                                         f"asked ({MAX_MISSES} draws in a row gave nothing new)")
        return plans

    def _plan_type1(self, spec: ConfigSpec, lemmas: list[str], n: int, rng: random.Random) -> list[Hashable]:
        """``n`` distinct (verb, agent, patient) triples, each verb's tenses alternating."""
        sizes = [len(self.lex.verbs[v].patients) * len(self.agents) for v in lemmas]
        offsets = list(itertools.accumulate(sizes))
        tenses = _TenseBalancer(rng)
        plans = []
        for index in sample_distinct(offsets[-1] if offsets else 0, n, rng, spec.name):
            i = bisect.bisect_right(offsets, index)
            patient, agent = divmod(index - (offsets[i - 1] if i else 0), len(self.agents))
            verb = lemmas[i]
            plans.append((tenses.next(verb), verb, self.agents[agent], self.lex.verbs[verb].patients[patient]))
        return plans

    def _plan_type3(self, lemmas: list[str], uses_agent: list[bool], rng: random.Random) -> tuple | None:
        """Five sentences (four context + answer) from five verbs with no content stem in common."""
        if len(lemmas) < len(uses_agent):
            raise ImpossibleSize(f"type III needs {len(uses_agent)} verbs with no shared content word, "
                                 f"this split has {len(lemmas)}")
        pool = list(lemmas)
        rng.shuffle(pool)
        used: set[str] = set()
        materials = []
        for needs_agent in uses_agent:
            for verb in pool:
                found = self._pick(verb, needs_agent, used, rng)
                if found is not None:
                    material, stems = found
                    materials.append(material)
                    used |= stems
                    pool.remove(verb)
                    break
            else:
                return None
        return tuple(materials)

    def _pick(self, verb: str, needs_agent: bool, used: set[str], rng: random.Random):
        stems = self.verb_stems(verb)
        if stems & used:
            return None
        patients = self.lex.verbs[verb].patients
        for _ in range(PICK_TRIES):
            patient = rng.choice(patients)
            agent = rng.choice(self.agents) if needs_agent else None
            words = stems | self.noun_stems(rules.PATIENT, patient)
            if agent is not None:
                words |= self.noun_stems(rules.AGENT, agent)
            if not words & used:
                return Material(verb, agent, patient), words
        return None

    # --- realisation ---------------------------------------------------------------------------
    def realise(self, spec: ConfigSpec, plan: Hashable) -> Instance:
        template = self.template["templates"][spec.variant]
        if spec.lexical_type == "I":
            tense, verb, agent, patient = plan
            materials = [Material(verb, agent, patient)] * (self.context_size + 1)
        else:
            tense, materials = plan
        steps = rules.sequence(template, tense)
        context = [self._sentence(materials[i], steps[i]) for i in range(self.context_size)]
        gold = steps[self.context_size]
        case_marking = self.realiser.grammar.case_marking
        if spec.balanced:
            balanced = self.template["balanced"]
            answers = rules.balanced_answers(gold, balanced["factors"], template["candidates"],
                                             balanced.get("labels", {}), case_marking)
        else:
            answers = rules.paper_answers(gold, template["candidates"], case_marking)
        candidates = [Candidate(self._sentence(materials[-1], step), label, cls) for step, label, cls in answers]
        return Instance(context, candidates, lemma=materials[-1].verb, template=template["name"])

    @functools.lru_cache(maxsize=1 << 16)
    def _sentence(self, material: Material, step: rules.Step):
        return self.realiser(material, step)

    def next_patterns(self, spec: ConfigSpec, template: str, context_patterns: Sequence[str]) -> set[str]:
        return set(self._next_patterns(template, tuple(context_patterns)))

    @functools.lru_cache(maxsize=None)
    def _next_patterns(self, template: str, context: tuple[str, ...]) -> frozenset[str]:
        if template not in self.by_name:
            return frozenset()
        out = set()
        for tense in rules.TENSES:
            seq = [pattern(step, self.realiser.grammar) for step in rules.sequence(self.by_name[template], tense)]
            if tuple(seq[:-1]) == context:
                out.add(seq[-1])
        return frozenset(out)
