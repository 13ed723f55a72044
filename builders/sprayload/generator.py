"""The spray/load generator: plans (verb, frame, arguments per sentence) and realises them."""

from __future__ import annotations

import functools
import itertools
import random
import zlib
from collections.abc import Sequence
from typing import Hashable

from builders import morphology
from builders.base import (Candidate, ConfigSpec, Generator, ImpossibleSize, Instance, disjoint_lemmas,
                           draw_distinct, sample_distinct)
from builders.lexicon import Checker
from builders.sprayload import lexicon, rules
from builders.sprayload.realise import Material, Realiser

ROLE_FIELDS = {"Agent": "agents", "Theme": "themes", "Loc": "locations"}
ALL_ROLES = ("Agent", "Theme", "Loc")
TYPE_III_SENTENCES = 8   # seven context sentences and the answer set, each from its own verb


def plan_hash(plan: Hashable) -> int:
    """A stable (process-independent) hash of a plan, for choices both twins must share."""
    return zlib.crc32(repr(plan).encode())


class SprayLoadGenerator(Generator):
    phenomenon = "sprayload"
    description = "Spray/load alternation: from one alternant and its passives to the other (BLM-s/lE)."
    context_size = 7
    variants = ("altatl", "atlalt")

    def __init__(self, language: str):
        super().__init__(language)
        self.template = self.read_template(_check_template)
        self.entries = lexicon.load(language)
        self.index = {e.lemma: i for i, e in enumerate(self.entries)}
        self.frames = tuple(self.template["frames"])
        self.sequences = {v: [tuple(s) for s in t["sequence"]] for v, t in self.template["templates"].items()}
        self.names = {v: t["name"] for v, t in self.template["templates"].items()}
        self.variant_of = {name: v for v, name in self.names.items()}
        self.realiser = Realiser(self.entries)
        self.grammar_rules = [c for c in self.template["candidates"] if c["class"] == "GRAMMAR"]
        self._stem_bits: dict[str, int] = {}
        self._plan_memo: dict[tuple, list] = {}   # a config and its _balanced twin share plans

    # --- split ---------------------------------------------------------------------------------
    def default_size(self, spec: ConfigSpec) -> int:
        return self.template["sizes"][spec.lexical_type]

    def lemmas(self, spec: ConfigSpec) -> list[str]:
        return [e.lemma for e in self.entries]

    def split_lemmas(self, lemmas: Sequence[str], n_test: int, rng: random.Random) -> list[str]:
        """Test verbs whose forms share no stem (spritz/sprinkle), so type III test instances exist."""
        return disjoint_lemmas(lemmas, n_test, rng, self.verb_stems)

    # --- words ---------------------------------------------------------------------------------
    @functools.lru_cache(maxsize=None)
    def verb_stems(self, lemma: str) -> frozenset[str]:
        forms = self.entries[self.index[lemma]].forms
        return morphology.content_stems(" ".join(forms), self.language)

    @functools.lru_cache(maxsize=None)
    def np_stems(self, verb: int, which: str, i: int) -> frozenset[str]:
        np = getattr(self.entries[verb], ROLE_FIELDS[which])[i]
        return morphology.content_stems(np.text, self.language)

    def pool_size(self, verb: int, which: str) -> int:
        return len(getattr(self.entries[verb], ROLE_FIELDS[which]))

    def _sentence_roles(self, variant: str) -> list[tuple[str, ...]]:
        """Roles each of the 8 sentences realises (the answer set uses all three)."""
        steps = [rules.Step(slots, self.frames[0]) for slots in self.sequences[variant]]
        return [tuple(r for r in ALL_ROLES if r in rules.roles(s)) for s in steps[:7]] + [ALL_ROLES]

    @staticmethod
    def _canonical(mat: Material, present: tuple[str, ...]) -> Material:
        """Zero the arguments a sentence does not realise, so distinct plans give distinct instances."""
        return Material(mat.verb, *(getattr(mat, f) if r in present else 0
                                     for r, f in zip(ALL_ROLES, ("agent", "theme", "loc"))))

    # --- planning ------------------------------------------------------------------------------
    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        key = (spec.variant, spec.lexical_type, tuple(lemmas), n, rng.getstate())
        if key not in self._plan_memo:
            if len(self._plan_memo) >= 4:
                self._plan_memo.pop(next(iter(self._plan_memo)))
            self._plan_memo[key] = self._plan(spec, lemmas, n, rng)
        return list(self._plan_memo[key])

    def _plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        verbs = sorted(self.index[lemma] for lemma in lemmas)
        if spec.lexical_type == "I":
            return self._plan_type1(spec, verbs, n, rng)
        if spec.lexical_type == "III" and len(verbs) < TYPE_III_SENTENCES:
            raise ImpossibleSize(f"{spec.name}: type III needs {TYPE_III_SENTENCES} verbs whose sentences share no "
                                 f"word, this split has {len(verbs)} (raise --test-size)")
        present = self._sentence_roles(spec.variant)
        make = self._plan_type2 if spec.lexical_type == "II" else self._plan_type3
        return draw_distinct(lambda: make(verbs, present, rng), n, spec.name)

    def _plan_type1(self, spec, verbs, n, rng) -> list[Hashable]:
        """One verb and one agent, theme and location throughout; every combination x frame."""
        sizes = [self.pool_size(v, "Agent") * self.pool_size(v, "Theme") * self.pool_size(v, "Loc")
                 * len(self.frames) for v in verbs]
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
        plans = []
        for pick in sample_distinct(sum(sizes), n, rng, spec.name):
            i = max(j for j, s in enumerate(starts) if s <= pick)
            v, rest = verbs[i], pick - starts[i]
            rest, frame = divmod(rest, len(self.frames))
            rest, loc = divmod(rest, self.pool_size(v, "Loc"))
            agent, theme = divmod(rest, self.pool_size(v, "Theme"))
            plans.append(("I", frame, Material(v, agent, theme, loc)))
        return plans

    def _plan_type2(self, verbs, present, rng) -> Hashable:
        """One verb; a base argument set, and each sentence changes one of the arguments it realises."""
        v = rng.choice(verbs)
        base = Material(v, *(rng.randrange(self.pool_size(v, r)) for r in ALL_ROLES))
        materials = []
        for roles_here in present:
            which = rng.choice(roles_here)
            field = {"Agent": "agent", "Theme": "theme", "Loc": "loc"}[which]
            size = self.pool_size(v, which)
            swapped = base._replace(**{field: (getattr(base, field) + rng.randrange(1, size)) % size})
            materials.append(self._canonical(swapped, roles_here))
        return "II", rng.randrange(len(self.frames)), tuple(materials)

    def _plan_type3(self, verbs, present, rng) -> Hashable | None:
        """Eight sentences from eight verbs, arguments drawn so that no content word repeats."""
        pool = list(verbs)
        rng.shuffle(pool)
        used, materials = 0, []
        for roles_here in present:
            for v in pool:
                verb_mask = self._verb_mask(v)
                if verb_mask & used:
                    continue
                free = [c for c in self._combinations(v, roles_here) if not c[0] & used]
                if free:
                    mask, mat = free[rng.randrange(len(free))]
                    used |= mask | verb_mask
                    materials.append(mat)
                    pool.remove(v)
                    break
            else:
                return None
        return "III", rng.randrange(len(self.frames)), tuple(materials)

    def _bit(self, stems: frozenset[str]) -> int:
        """Content stems as a bit set, so type III planning compares integers."""
        mask = 0
        for stem in stems:
            mask |= 1 << self._stem_bits.setdefault(stem, len(self._stem_bits))
        return mask

    @functools.lru_cache(maxsize=None)
    def _verb_mask(self, v: int) -> int:
        return self._bit(self.verb_stems(self.entries[v].lemma))

    @functools.lru_cache(maxsize=None)
    def _combinations(self, v: int, roles_here: tuple[str, ...]) -> tuple[tuple[int, Material], ...]:
        """Every choice of the arguments a sentence realises, with the bit set of its stems."""
        ranges = [range(self.pool_size(v, r)) if r in roles_here else range(1) for r in ALL_ROLES]
        out = []
        for agent in ranges[0]:
            for theme in ranges[1]:
                for loc in ranges[2]:
                    picks = dict(zip(ALL_ROLES, (agent, theme, loc)))
                    stems = frozenset().union(*(self.np_stems(v, r, picks[r]) for r in roles_here))
                    out.append((self._bit(stems), Material(v, agent, theme, loc)))
        return tuple(out)

    # --- realisation ---------------------------------------------------------------------------
    def realise(self, spec: ConfigSpec, plan: Hashable) -> Instance:
        kind, frame_index, mats = plan
        materials = [mats] * 8 if kind == "I" else list(mats)
        steps = self._steps(spec.variant, self.frames[frame_index])
        sentence = self.realiser
        context = [sentence(materials[i], steps[i]) for i in range(7)]
        gold = steps[7]
        answers = self._balanced(gold, plan) if spec.balanced else self._paper_answers(gold)
        candidates = [Candidate(sentence(materials[7], step), label, cls) for step, label, cls in answers]
        return Instance(context, candidates, lemma=self.entries[materials[7].verb].lemma,
                        template=self.names[spec.variant])

    @functools.lru_cache(maxsize=None)
    def _steps(self, variant: str, frame: str) -> tuple[rules.Step, ...]:
        return tuple(rules.Step(slots, frame) for slots in self.sequences[variant])

    @functools.lru_cache(maxsize=None)
    def _paper_answers(self, gold: rules.Step):
        return rules.paper_answers(gold, self.template["candidates"])

    def _balanced(self, gold: rules.Step, plan: Hashable):
        """The other frames and the GRAMMAR rules of the set, chosen by a stable hash of the plan."""
        h = plan_hash(plan)
        other_sets, rule_sets = self._balanced_choices(gold.frame)
        return self._balanced_answers(gold, other_sets[h % len(other_sets)],
                                      rule_sets[(h // len(other_sets)) % len(rule_sets)])

    @functools.lru_cache(maxsize=None)
    def _balanced_choices(self, frame: str) -> tuple[list[tuple[str, ...]], list[tuple[int, ...]]]:
        cfg = self.template["balanced"]
        others = [f for f in self.frames if f != frame]
        return (list(itertools.combinations(others, cfg["frames_per_set"] - 1)),
                list(itertools.combinations(range(len(self.grammar_rules)), cfg["grammar_rules_per_set"])))

    @functools.lru_cache(maxsize=None)
    def _balanced_answers(self, gold: rules.Step, others: tuple[str, ...], grammar: tuple[int, ...]):
        return rules.balanced_answers(gold, [gold.frame, *others], [self.grammar_rules[i] for i in grammar],
                                      self.template["balanced"]["frame_label"])

    def next_patterns(self, spec: ConfigSpec, template: str, context_patterns: Sequence[str]) -> set[str]:
        return self._next_patterns(template, tuple(context_patterns))

    @functools.lru_cache(maxsize=4096)
    def _next_patterns(self, template: str, context: tuple[str, ...]) -> set[str]:
        variant = self.variant_of.get(template)
        if variant is None:
            return set()
        out = set()
        for frame in self.frames:
            sequence = [rules.Step(slots, frame).pattern() for slots in self.sequences[variant]]
            if tuple(sequence[:7]) == context:
                out.add(sequence[7])
        return out


def _check_template(t, path) -> None:
    """The template fields the generator relies on, with file/line errors."""
    c = Checker(path)
    c.strings(t, "frames", "frames", 2)
    for variant in SprayLoadGenerator.variants:
        entry = c.field(c.field(t, "templates", dict, "templates"), variant, dict, "templates")
        c.field(entry, "name", str, f"templates.{variant}")
        sequence = c.field(entry, "sequence", list, f"templates.{variant}")
        if len(sequence) != SprayLoadGenerator.context_size + 1:
            c.fail(entry, f"templates.{variant}", "sequence needs 7 context sentences and the answer")
    for i, cand in enumerate(c.field(t, "candidates", list, "candidates")):
        c.one_of(cand, "class", ("CORRECT", "SEQUENCE", "GRAMMAR"), f"candidates[{i}]")
        if cand["class"] != "CORRECT" and c.field(cand, "rule", str, f"candidates[{i}]") not in rules.RULES:
            c.fail(cand, f"candidates[{i}]", f"unknown rule {cand['rule']!r}; known: {', '.join(rules.RULES)}")
    balanced = c.field(t, "balanced", dict, "balanced")
    for key in ("frames_per_set", "grammar_rules_per_set"):
        c.field(balanced, key, int, "balanced")
    c.field(t, "sizes", dict, "sizes")
