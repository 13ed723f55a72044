"""The COS and OD generators: plan (verb, words, frames) and realise them.

Both verb classes share the template machinery; they differ in the lexicon
(``lexicons/<lang>_<cos|od>.yaml``) and in the intransitive steps (sentences 7 and 8).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import Hashable

from builders import morphology
from builders.base import Candidate, ConfigSpec, Generator, ImpossibleSize, Instance, Sentence, draw_distinct
from builders.cos_od import lexicon, rules, verbs
from builders.cos_od.contexts import CONTEXTS, Context, TypeIIIContext
from builders.cos_od.realise import Material, Realiser
from builders.lexicon import load_yaml

TYPE_III_TRIES = 6         # materials tried per verb when filling a type III sentence
ANSWER = 7                 # index of the answer step in the 8-step sequence

Plan = tuple  # (materials: 8 x Material, frames: 4 x str, other frame of the balanced set: str)


class CosOdGenerator(Generator):
    """Shared by the COS and OD classes: the same template, a different lexicon and intransitive."""

    context_size = 7

    def __init__(self, language: str):
        super().__init__(language)
        self.template = load_yaml(self.directory() / "template.yaml")
        self.test_lemma_fraction = self.template["test_lemma_fraction"]
        self.type_i_min_jaccard = self.template["type_i_min_jaccard"]
        self.lex = lexicon.load(language, self.phenomenon)
        self.verb_morph = verbs.module(language)
        self.marker = self.verb_morph.HAS_REFLEXIVE_MARKER
        self.frames = self.verb_morph.FRAMES
        self.steps = tuple(rules.parse_step(s, self.marker)
                           for s in self.template["phenomena"][self.phenomenon]["sequence"])
        self.pairs = [tuple(p) for p in self.template["frame_pairs"]]
        self.realiser = Realiser(self.lex)
        self._plan_memo: dict = {}
        # the words each step shows (the answer: those of every candidate)
        self.slot_order = [sorted(s.slots()) for s in self.steps]
        self.slot_order[ANSWER] = ["agent", "bynp", "theme"]
        gold = self.steps[ANSWER]
        self.answer_sets = {  # keyed by spec.balanced
            False: rules.paper_answers(gold, self.template["candidates"], self.marker),
            True: rules.balanced_answers(gold, self.template["balanced"]["factors"], self.marker),
        }

    @classmethod
    def languages(cls) -> list[str]:
        """Languages are the lexicon files ``<lang>_<phenomenon>.yaml`` present."""
        return sorted(p.stem.split("_")[0] for p in (cls.directory() / "lexicons").glob(f"*_{cls.phenomenon}.yaml"))

    # --- split ---------------------------------------------------------------------------------
    def default_size(self, spec: ConfigSpec) -> int:
        return self.template["sizes"][spec.lexical_type]

    def lemmas(self, spec: ConfigSpec) -> list[str]:
        return [v["lemma"] for v in self.lex["verbs"]]

    # --- helpers -------------------------------------------------------------------------------
    def _random_material(self, verb: str, rng: random.Random) -> Material:
        entry = self.lex["verbs_by_lemma"][verb]
        return Material(verb, rng.choice(entry["agents"]), rng.choice(entry["themes"]),
                        rng.choice(entry["p_nps"]).text, rng.choice(entry["by_nps"]).text)

    def _swapped(self, base: Material, slot: str, rng: random.Random) -> Material:
        """The base material with one word (agent, theme, p-NP or by-NP) replaced (type II)."""
        pool = self.lex["verbs_by_lemma"][base.verb][lexicon.SLOT_POOLS[slot]]
        pool = [w.text if isinstance(w, lexicon.Phrase) else w for w in pool]
        current = getattr(base, slot)
        return base._replace(**{slot: rng.choice([w for w in pool if w != current])})

    def _sentence(self, mat: Material, index: int, frame: str) -> Sentence:
        return self.realiser(mat, self.steps[index], frame)

    def _stems(self, mat: Material, index: int, frame: str) -> frozenset[str]:
        return self.realiser.stems(mat, self.steps[index], frame)

    def _context(self, lexical_type: str) -> Context:
        return CONTEXTS[lexical_type](self.type_i_min_jaccard)

    def _pair_frames(self, materials: Sequence[Material], ctx: Context, rng: random.Random) -> list[str] | None:
        """Frames of the first three pairs (all different), adding their sentences to ``ctx``."""
        chosen: list[str] = []
        for pair in self.pairs[:-1]:
            options = [f for f in self.frames if f not in chosen
                       and all(self.realiser.allows(materials[i], self.steps[i], f) for i in pair)]
            rng.shuffle(options)
            if not ctx.checks_pairs:
                if not options:
                    return None
                chosen.append(options[0])
                ctx.add([self._stems(materials[i], i, options[0]) for i in pair])
                continue
            for frame in options:
                new = [self._stems(materials[i], i, frame) for i in pair]
                if ctx.fits(new):
                    chosen.append(frame)
                    ctx.add(new)
                    break
            else:
                return None
        return chosen

    def _answer_frames(self, materials: Sequence[Material], chosen: Sequence[str], ctx: Context,
                       rng: random.Random) -> tuple[str, str] | None:
        """Frame of sentences 7-8 and the balanced set's other frame, drawn from the same set.

        Both come uniformly from the frames that sentence 7 and the answer allow, so the gold's frame
        and its frame twin are exchangeable: no answer-only baseline can tell them apart.
        """
        s7 = ANSWER - 1
        options = [f for f in self.frames if f not in chosen
                   and self.realiser.allows(materials[s7], self.steps[s7], f)
                   and self.realiser.allows(materials[ANSWER], self.steps[ANSWER], f)
                   and ctx.fits([self._stems(materials[s7], s7, f)], last=True)]
        if len(options) < 2:
            return None
        frame = rng.choice(options)
        groups = self._answer_verb_groups(materials[ANSWER], frame)
        partners = [f for f in options
                    if f != frame and groups.isdisjoint(self._answer_verb_groups(materials[ANSWER], f))]
        if not partners:  # e.g. "read": present plural = past
            return None
        return frame, rng.choice(partners)

    def _answer_verb_groups(self, mat: Material, frame: str) -> frozenset[tuple[str, str]]:
        """(subject, verb group) of the balanced candidates in one frame: two frames must not give
        the same sentence, and the frame only changes the verb group."""
        out = set()
        for answer in self.answer_sets[True]:
            step, subject = answer.step, mat.role(answer.step.subject)
            out.add((subject, self.realiser.verb_group(mat.verb, frame, step.voice, subject, step.si)))
        return frozenset(out)

    # --- planning ------------------------------------------------------------------------------
    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        """Distinct plans; a config and its _balanced twin (same rng) share them, computed once."""
        lemmas = sorted(lemmas)
        if not lemmas:
            raise ImpossibleSize(f"{spec.name}: this split has no verbs; lower --test-size or add verbs to "
                                 f"{lexicon.path_for(self.language, self.phenomenon)}")
        memo_key = (spec.lexical_type, tuple(lemmas), n, rng.getstate())
        if memo_key in self._plan_memo:
            return list(self._plan_memo[memo_key])
        draw = {"I": self._plan_type1, "II": self._plan_type2, "III": self._plan_type3}[spec.lexical_type]
        plans = draw_distinct(lambda: draw(lemmas, rng), n,
                              f"{spec.name} (lower --size or add words to "
                              f"{lexicon.path_for(self.language, self.phenomenon)})", key=self._plan_key)
        self._plan_memo[memo_key] = tuple(plans)
        return plans

    def _plan_key(self, plan: Plan) -> Hashable:
        """What the records of a plan show: its context and the answer's words and frame (the other
        frame only changes the balanced twin, whose context is the same)."""
        materials, frames, _ = plan
        return tuple((materials[i].verb, *(getattr(materials[i], slot) for slot in self.slot_order[i]), frames[i // 2])
                     for i in range(len(self.steps)))

    def _with_frames(self, materials: tuple[Material, ...], ctx: Context, rng: random.Random) -> Plan | None:
        chosen = self._pair_frames(materials, ctx, rng)
        if chosen is None:
            return None
        last = self._answer_frames(materials, chosen, ctx, rng)
        if last is None:
            return None
        return materials, (*chosen, last[0]), last[1]

    def _plan_type1(self, lemmas: Sequence[str], rng: random.Random) -> Plan | None:
        mat = self._random_material(rng.choice(lemmas), rng)
        return self._with_frames((mat,) * 8, self._context("I"), rng)

    def _plan_type2(self, lemmas: Sequence[str], rng: random.Random) -> Plan | None:
        """Same verb; each sentence changes one word of a base material (BLM-It §2)."""
        base = self._random_material(rng.choice(lemmas), rng)
        materials = []
        for i, step in enumerate(self.steps):
            slots = sorted(step.slots() | ({"agent", "theme"} if i == ANSWER else set()))
            materials.append(self._swapped(base, rng.choice(slots), rng))
        return self._with_frames(tuple(materials), self._context("II"), rng)

    def _plan_type3(self, lemmas: Sequence[str], rng: random.Random) -> Plan | None:
        """Eight verbs, one per sentence, each sentence built so that no content word repeats.

        The answer's verb is the instance's lemma and comes from ``lemmas``; the context verbs too,
        unless the split has fewer than eight verbs (a lemma-split test set), where the context
        borrows verbs from the rest of the lexicon.
        """
        answer_verb = rng.choice(lemmas)
        pool = list(lemmas) if len(lemmas) >= 8 else [v["lemma"] for v in self.lex["verbs"]]
        pool = [v for v in pool if v != answer_verb]
        rng.shuffle(pool)
        materials: list[Material | None] = [None] * 8
        answer = self._random_material(answer_verb, rng)
        materials[ANSWER] = answer._replace(pnp=self.lex["verbs_by_lemma"][answer_verb]["p_nps"][0].text)
        ctx, chosen = self._context("III"), []
        for pair in self.pairs:
            indices = [i for i in pair if i != ANSWER]
            options = [f for f in self.frames if f not in chosen]
            rng.shuffle(options)
            for frame in options[:TYPE_III_TRIES]:
                picks = self._fill_type3(indices, frame, pool, materials, ctx, rng)
                if picks is None:
                    continue
                if ANSWER in pair:  # sentence 7: its frame and the other frame come from one set
                    trial = list(materials)
                    trial[indices[0]] = picks[0]
                    last = self._answer_frames(trial, chosen, ctx, rng)
                    if last is None:
                        continue
                    return tuple(trial), (*chosen, last[0]), last[1]
                for i, mat in zip(indices, picks):
                    materials[i] = mat
                ctx.add([self._stems(m, i, frame) for i, m in zip(indices, picks)])
                chosen.append(frame)
                break
            else:
                return None
        return None

    def _fill_type3(self, indices, frame, pool, materials, ctx: TypeIIIContext, rng) -> list[Material] | None:
        """Materials for the sentences ``indices`` in ``frame``, sharing no content word with ``ctx``."""
        taken = {m.verb for m in materials if m is not None}
        used = set(ctx.used)
        picks = []
        for i in indices:
            for verb in pool:
                if verb in taken:
                    continue
                mat = self._build_type3(i, frame, verb, used, rng)
                if mat is not None:
                    break
            else:
                return None
            stems = self._stems(mat, i, frame)
            if not stems.isdisjoint(used):  # the components and the sentence disagree: never expected
                return None
            used |= stems
            taken.add(verb)
            picks.append(mat)
        return picks

    def _build_type3(self, i: int, frame: str, verb: str, used: set[str], rng: random.Random) -> Material | None:
        """Sentence ``i`` of ``verb`` in ``frame`` with words whose content stems avoid ``used``.

        A sentence's content stems are the union of those of its phrases (subject, verb group,
        complements), so each slot is filled from the words that still fit; slots the sentence does
        not use get the verb's first word, so equal sentences come from equal plans.
        """
        entry = self.lex["verbs_by_lemma"][verb]
        if frame in entry["not_with"]:
            return None
        step = self.steps[i]
        stems = self._word_stems
        pools = {"agent": entry["agents"], "theme": entry["themes"],
                 "pnp": [p.text for p in entry["p_nps"] if frame not in p.not_with],
                 "bynp": [p.text for p in entry["by_nps"] if frame not in p.not_with]}
        subject_slot = rules.SLOT[step.subject]
        subjects = [n for n in pools[subject_slot] if stems(n).isdisjoint(used)]
        rng.shuffle(subjects)
        for subject in subjects[:3]:
            acc = used | stems(subject)
            verb_stems = stems(self.realiser.verb_group(verb, frame, step.voice, subject, step.si))
            if not verb_stems.isdisjoint(acc):
                continue
            acc |= verb_stems
            choice = {subject_slot: subject}
            for slot in sorted(step.slots() - {subject_slot}):
                options = [w for w in pools[slot] if stems(w).isdisjoint(acc)]
                if not options:
                    break
                choice[slot] = rng.choice(options)
                acc |= stems(choice[slot])
            else:
                return Material(verb, choice.get("agent", entry["agents"][0]), choice.get("theme", entry["themes"][0]),
                                choice.get("pnp", entry["p_nps"][0].text), choice.get("bynp", entry["by_nps"][0].text))
        return None

    def _word_stems(self, text: str) -> frozenset[str]:
        return morphology.content_stems(text, self.language)

    # --- realisation ---------------------------------------------------------------------------
    def realise(self, spec: ConfigSpec, plan: Hashable) -> Instance:
        materials, frames, other_frame = plan
        realise, steps = self.realiser, self.steps
        context = [realise(materials[i], steps[i], frames[i // 2]) for i in range(self.context_size)]
        candidates = list(self._candidates(materials[ANSWER], frames[-1], other_frame, spec.balanced))
        return Instance(context, candidates, lemma=materials[ANSWER].verb, template=self.phenomenon,
                        meta={"frames": frames})

    @functools.lru_cache(maxsize=1 << 14)
    def _candidates(self, mat: Material, frame: str, other_frame: str, balanced: bool) -> tuple[Candidate, ...]:
        return tuple(Candidate(self.realiser(mat, a.step, other_frame if a.other_frame else frame), a.label,
                               a.error_class) for a in self.answer_sets[balanced])

    def next_patterns(self, spec: ConfigSpec, template: str, context_patterns: Sequence[str]) -> set[str]:
        """The answer's pattern: step 8 of the sequence, in the frame of sentence 7."""
        parts = [rules.split_pattern(p) for p in context_patterns]
        expected = [s.pattern("") for s in self.steps[:ANSWER]]
        if len(parts) != ANSWER or [s + " []" for s, _ in parts] != expected:
            return set()
        frames = [f for _, f in parts]
        if any(frames[a] != frames[b] for a, b in self.pairs[:-1]):
            return set()
        return {self.steps[ANSWER].pattern(frames[self.pairs[-1][0]])}


class CosGenerator(CosOdGenerator):
    phenomenon = "cos"
    description = "Change-of-state verbs: the Theme is the subject of the intransitive (BLM-CausE/I)."


class OdGenerator(CosOdGenerator):
    phenomenon = "od"
    description = "Object-drop verbs: the Agent stays the subject of the intransitive (BLM-OdE/I)."
