"""The spray/load generator: plans (verb, frame, arguments per sentence) for the framework to realise."""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Hashable, Iterator, Sequence
from typing import Literal

from pydantic import Field, field_validator, model_validator

from builders import morphology
from builders.base import ConfigSpec, ImpossibleSize, Matrix, Sentence
from builders.errors import InputError
from builders.planning import ContextPlanner
from builders.sampling import ProductSpace, StemMasks, disjoint_lemmas, stable_hash
from builders.sprayload import lexicon, rules, verbs
from builders.sprayload.realise import Material, Realiser
from builders.template import Strict, Template

ROLE_FIELDS = {"Agent": "agents", "Theme": "themes", "Loc": "locations"}
MATERIAL_FIELDS = {"Agent": "agent", "Theme": "theme", "Loc": "loc"}
ALL_ROLES = ("Agent", "Theme", "Loc")
SLOT_ROLES = frozenset(f"{kind}-{r}" for kind in ("NP", "PP") for r in ALL_ROLES)


class SprayLoadSequence(Strict):
    """One template: its name in the records and its 8 sentences (the last is the answer)."""

    name: str
    sequence: tuple[tuple[str, ...], ...]

    @field_validator("sequence")
    @classmethod
    def _known_slots(cls, sequence: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        for sentence in sequence:
            for slot in sentence:
                if slot not in SLOT_ROLES and slot not in rules.VERB_SLOTS:
                    raise InputError(f"unknown slot {slot!r}; slots are NP-/PP-Agent|Theme|Loc, Verb, VerbPass")
        return sequence


class BalancedSet(Strict):
    """How many other frames (FRAME candidates) and paper GRAMMAR candidates a balanced set crosses."""

    other_frames: int = Field(ge=1)
    grammar_candidates: int = Field(ge=1)


class SprayLoadTemplate(Template):
    frames: tuple[Literal[verbs.FRAMES], ...] = Field(min_length=2)
    templates: dict[Literal["altatl", "atlalt"], SprayLoadSequence]
    balanced_set: BalancedSet

    @field_validator("templates")
    @classmethod
    def _both_templates(cls, templates: dict) -> dict:
        missing = {"altatl", "atlalt"} - set(templates)
        if missing:
            raise InputError(f"missing template {', '.join(sorted(missing))} (config names use both)")
        return templates

    @model_validator(mode="after")
    def _enough_frames(self) -> "SprayLoadTemplate":
        if self.balanced_set.other_frames >= len(self.frames):
            raise InputError(f"balanced_set.other_frames is {self.balanced_set.other_frames}, but there are only "
                             f"{len(self.frames) - 1} frames besides the gold's")
        return self


class SprayLoadGenerator(ContextPlanner):
    phenomenon = "sprayload"
    lemma_unit = "verbs"
    rules = rules.RULES
    template_model = SprayLoadTemplate
    variants = ("altatl", "atlalt")

    def __init__(self, language: str):
        super().__init__(language)
        self.entries = lexicon.load(language)
        self.index = {e.lemma: i for i, e in enumerate(self.entries)}
        self.frames = self.template.frames
        self.names = {v: t.name for v, t in self.template.templates.items()}
        self.realiser = Realiser(self.entries)
        self.masks = StemMasks()

    # --- split ---------------------------------------------------------------------------------
    @functools.cache
    def needs(self, variant: str) -> frozenset[str]:
        """The alternants a template's sentences and answer use (both, for ALT-ATL and ATL-ALT)."""
        return frozenset(filter(None, (rules.variant(s) for s in self.template.templates[variant].sequence)))

    @functools.cache
    def needs_bare(self, variant: str) -> frozenset[str]:
        """The bare passives a template's context shows (both: *The paint was sprayed by the girl*,
        *The wall was sprayed by the girl*)."""
        return frozenset(filter(None, (rules.bare_passive(s) for s in self.template.templates[variant].sequence)))

    def usable(self, entry: lexicon.VerbEntry, variant: str) -> bool:
        """Whether every sentence of the template is natural with this verb: it has each alternant
        shown (*spurt* has no with-variant) and each bare passive is natural (*The yard was
        scattered by the farmer* is not)."""
        return (self.needs(variant) <= entry.variants
                and all(entry.judgement("bare_passive", key) == "natural" for key in self.needs_bare(variant)))

    def lemmas(self, spec: ConfigSpec) -> list[str]:
        """Verbs whose every template sentence is natural (``usable``)."""
        return [e.lemma for e in self.entries if self.usable(e, spec.variant)]

    def split_lemmas(self, spec: ConfigSpec, lemmas: Sequence[str], n_test: int, rng: random.Random) -> list[str]:
        """Test verbs whose forms share no stem (spritz/sprinkle), so type III test instances exist."""
        return disjoint_lemmas(lemmas, n_test, rng, self.verb_stems)

    # --- words ---------------------------------------------------------------------------------
    @functools.cache
    def verb_stems(self, lemma: str) -> frozenset[str]:
        return morphology.content_stems(" ".join(self.entries[self.index[lemma]].forms), self.language)

    @functools.cache
    def np_stems(self, verb: int, which: str, i: int) -> frozenset[str]:
        return morphology.content_stems(getattr(self.entries[verb], ROLE_FIELDS[which])[i].text, self.language)

    def pool_size(self, verb: int, which: str) -> int:
        return len(getattr(self.entries[verb], ROLE_FIELDS[which]))

    @functools.cache
    def _sentence_roles(self, variant: str) -> tuple[tuple[str, ...], ...]:
        """Roles each of the 8 sentences shows (the answer set uses all three)."""
        steps = self._steps(variant, self.frames[0])
        shown = [tuple(r for r in ALL_ROLES if r in rules.roles(s)) for s in steps[:-1]]
        return (*shown, ALL_ROLES)

    @staticmethod
    def _canonical(mat: Material, present: tuple[str, ...]) -> Material:
        """Zero the arguments a sentence does not show, so distinct plans give distinct instances."""
        return mat._replace(**{MATERIAL_FIELDS[r]: 0 for r in ALL_ROLES if r not in present})

    # --- planning ------------------------------------------------------------------------------
    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        verbs_ = sorted(self.index[lemma] for lemma in lemmas)
        if spec.lexical_type == "I":
            space = ProductSpace.union(
                (v, (self.pool_size(v, "Agent"), self.pool_size(v, "Theme"), self.pool_size(v, "Loc"), len(self.frames)))
                for v in verbs_)
            return [("I", frame, Material(v, agent, theme, loc))
                    for v, (agent, theme, loc, frame) in space.sample(n, rng, spec.name)]
        return self.plan_contexts(spec, verbs_, n, rng)

    def plan_bound(self, spec: ConfigSpec, lemmas: Sequence[str]) -> int | None:
        """Frames x every sentence's agent x theme x location (type II: one verb of the split; type III: any of
        its verbs per sentence)."""
        if spec.lexical_type == "I":
            return None
        words = [math.prod(self.pool_size(self.index[lemma], role) for role in ALL_ROLES) for lemma in lemmas]
        sentences = len(self._sentence_roles(spec.variant))
        if spec.lexical_type == "II":
            return len(self.frames) * sum(w ** sentences for w in words)
        return len(self.frames) * sum(words) ** sentences

    def draw_start(self, spec: ConfigSpec, verbs_: Sequence[int], rng: random.Random):
        """Type II: one verb and a base argument set; type III: the verbs in random order."""
        present = self._sentence_roles(spec.variant)
        if spec.lexical_type == "II":
            v = rng.choice(verbs_)
            return present, Material(v, *(rng.randrange(self.pool_size(v, r)) for r in ALL_ROLES))
        pool = list(verbs_)
        rng.shuffle(pool)
        return present, pool

    def draw_slots(self, state, i: int) -> tuple[str, ...]:
        return state[0][i]   # the roles sentence i shows

    def draw_swap(self, state, i: int, which: str, rng: random.Random) -> Material:
        """The base arguments with role ``which`` changed (the roles not shown zeroed)."""
        base = state[1]
        field, size = MATERIAL_FIELDS[which], self.pool_size(base.verb, which)
        swapped = base._replace(**{field: (getattr(base, field) + rng.randrange(1, size)) % size})
        return self._canonical(swapped, state[0][i])

    def draw_options(self, state, i: int, used: int, rng: random.Random) -> Iterator[tuple[Material, int]]:
        """Per verb whose forms are still free, one random choice of the arguments that fit."""
        present, pool = state
        for v in pool:
            verb_mask = self._verb_mask(v)
            if verb_mask & used:
                continue
            free = [c for c in self._combinations(v, present[i]) if not c[0] & used]
            if free:
                mask, mat = free[rng.randrange(len(free))]
                yield mat, mask | verb_mask

    def draw_finish(self, spec: ConfigSpec, state, choices: list, rng: random.Random) -> Hashable:
        """Type II: one verb, each sentence changing one argument it shows; type III: eight verbs."""
        return spec.lexical_type, rng.randrange(len(self.frames)), tuple(choices)

    @functools.cache
    def _verb_mask(self, v: int) -> int:
        return self.masks.mask(self.verb_stems(self.entries[v].lemma))

    @functools.cache
    def _combinations(self, v: int, roles_here: tuple[str, ...]) -> tuple[tuple[int, Material], ...]:
        """Every choice of the arguments a sentence shows, with the bit set of its stems."""
        ranges = [range(self.pool_size(v, r)) if r in roles_here else range(1) for r in ALL_ROLES]
        out = []
        for picks in itertools.product(*ranges):
            chosen = dict(zip(ALL_ROLES, picks))
            stems = frozenset().union(*(self.np_stems(v, r, chosen[r]) for r in roles_here))
            out.append((self.masks.mask(stems), Material(v, *picks)))
        return tuple(out)

    # --- the framework's hooks -----------------------------------------------------------------
    @functools.cache
    def _steps(self, variant: str, frame: str) -> tuple[rules.Step, ...]:
        return tuple(rules.Step(tuple(slots), frame) for slots in self.template.templates[variant].sequence)

    def matrix(self, spec: ConfigSpec, plan: Hashable) -> Matrix:
        kind, frame_index, mats = plan
        materials = (mats,) * 8 if kind == "I" else mats
        steps = self._steps(spec.variant, self.frames[frame_index])
        entry = self.entries[materials[-1].verb]
        facts = self._balanced_facts(spec.variant, entry, steps[-1].frame, stable_hash(plan))
        return Matrix(self.names[spec.variant], steps, materials, entry.lemma, facts)

    def _balanced_facts(self, variant: str, entry: lexicon.VerbEntry, frame: str, h: int) -> rules.Facts:
        """The balanced set's other frames and GRAMMAR candidates, chosen by a stable hash of the plan
        (so a config and its twin, and every run, choose alike)."""
        frame_sets = list(itertools.combinations([f for f in self.frames if f != frame],
                                                 self.template.balanced_set.other_frames))
        grammar_sets = self._grammar_sets(variant, entry.lemma)
        return rules.Facts(entry, frame_sets[h % len(frame_sets)],
                           grammar_sets[(h // len(frame_sets)) % len(grammar_sets)])

    @functools.cache
    def _grammar_sets(self, variant: str, lemma: str) -> list[tuple[tuple[str, str, tuple], ...]]:
        """Sets of paper candidates that are GRAMMAR for this verb in this template."""
        entry = self.entries[self.index[lemma]]
        gold = self._steps(variant, self.frames[0])[-1]
        probe = Matrix(self.names[variant], (gold,), (), lemma, rules.Facts(entry))
        eligible = []
        for decl in self.template.answers.paper:
            (ref,) = decl.rules
            params = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in sorted(ref.params.items()))
            step = self.rules[ref.name].corrupt(gold, probe, **dict(params))
            if self.rules[ref.name].verdict(step, probe, dict(params)) == "GRAMMAR":
                eligible.append((decl.label or self.rules[ref.name].label_for(step), ref.name, params))
        k = self.template.balanced_set.grammar_candidates
        if len(eligible) < k:
            raise ImpossibleSize(f"sprayload {variant}: verb {lemma!r} has {len(eligible)} GRAMMAR candidates, the "
                                 f"balanced set needs {k}")
        return list(itertools.combinations(eligible, k))

    def sentence(self, words: Material, step: rules.Step, template: str) -> Sentence:
        return self.realiser(words, step)

    def sequences(self):
        for variant in self.variants:
            for frame in self.frames:
                yield self.names[variant], self._steps(variant, frame)

    def pattern(self, step: rules.Step, template: str) -> str:
        return step.pattern()
