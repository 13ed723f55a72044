"""Drawing COS/OD plans: the words of each sentence and the frame of each pair of sentences.

A plan is ``(materials, frames)``: eight ``Material``s (the last one serves every candidate) and
the frames of the four pairs of sentences (1-2, 3-4, 5-6, 7-8; all different). Everything else an
instance shows follows from it, including the balanced set's FRAME candidate (:meth:`other_frame`,
a stable hash over the frames that sentence 7 and the answer allow, so that the gold's frame and
the FRAME candidate's are exchangeable). Lexical types: ``contexts.py``.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Hashable, Sequence

from builders import morphology
from builders.cos_od import contexts
from builders.cos_od.realise import Material, Realiser
from builders.cos_od.rules import SLOT, Step
from builders.sampling import stable_hash

TYPE_III_TRIES = 6    # frames tried per pair when filling a type III context
ANSWER = 7            # index of the answer step in the 8-step sequence

Plan = tuple  # (materials: 8 x Material, frames: 4 x str)


class Planner:
    """Draws plans for one verb class and language (``steps``: the template's frameless sequence)."""

    def __init__(self, lex: dict, realiser: Realiser, steps: Sequence[Step], pairs: Sequence[tuple[int, int]],
                 frames: Sequence[str], type_i_min_jaccard: float, balanced_steps):
        self.lex, self.realiser, self.steps, self.pairs = lex, realiser, tuple(steps), tuple(pairs)
        self.frames, self.type_i_min_jaccard = tuple(frames), type_i_min_jaccard
        self.balanced_steps = balanced_steps   # (material, frame) -> frameless steps of the balanced candidates
        self.verbs = lex["verbs_by_lemma"]
        self.language = lex["language"]

    # --- what a plan shows ---------------------------------------------------------------------
    @functools.lru_cache(maxsize=1 << 10)
    def step(self, i: int, frame: str) -> Step:
        return self.steps[i]._replace(frame=frame)

    def frame_of(self, frames: Sequence[str], i: int) -> str:
        return frames[next(k for k, pair in enumerate(self.pairs) if i in pair)]

    def key(self, plan: Plan) -> Hashable:
        """What the records show: the context, the gold and the answer's two arguments (every
        candidate is built from those, so plans with different keys give different records)."""
        materials, frames = plan
        texts = tuple(self.realiser(materials[i], self.step(i, self.frame_of(frames, i))).text for i in range(8))
        return texts, materials[ANSWER].agent, materials[ANSWER].theme

    def context(self, lexical_type: str) -> contexts.Context:
        return contexts.CONTEXTS[lexical_type](self.type_i_min_jaccard)

    @functools.lru_cache(maxsize=1 << 17)
    def stems(self, mat: Material, i: int, frame: str) -> frozenset[str]:
        return self.realiser.stems(mat, self.step(i, frame))

    @functools.lru_cache(maxsize=1 << 16)
    def allows(self, mat: Material, i: int, frame: str) -> bool:
        return self.realiser.allows(mat, self.step(i, frame))

    # --- frames --------------------------------------------------------------------------------
    def answer_frames(self, materials: Sequence[Material], chosen: Sequence[str], ctx: contexts.Context) -> list[str]:
        """Frames sentences 7 and 8 can share: not used by the other pairs, allowed by both
        sentences' words, and keeping sentence 7 within the lexical type's constraint."""
        s7 = ANSWER - 1
        return [f for f in self.frames if f not in chosen
                and self.allows(materials[s7], s7, f) and self.allows(materials[ANSWER], ANSWER, f)
                and ctx.fits([self.stems(materials[s7], s7, f)], last=True)]

    def _verb_groups(self, mat: Material, frame: str) -> frozenset[tuple[str, str]]:
        """(subject, verb group) of the balanced candidates in one frame: two frames must not give the
        same sentence (English plural present = past for *read*), and only the verb group changes."""
        out = set()
        for step in self.balanced_steps:
            subject = mat.role(step.subject)
            out.add((subject, self.realiser.verb_group(mat.verb, frame, step.voice, subject, step.si)))
        return frozenset(out)

    def partners(self, materials: Sequence[Material], frame: str, options: Sequence[str]) -> list[str]:
        groups = self._verb_groups(materials[ANSWER], frame)
        return [f for f in options if f != frame and groups.isdisjoint(self._verb_groups(materials[ANSWER], f))]

    def other_frame(self, plan: Plan, lexical_type: str) -> str:
        """The balanced set's other frame: one of the frames the gold's frame was drawn from."""
        materials, frames = plan
        ctx = self.context(lexical_type)
        for pair, frame in zip(self.pairs[:-1], frames):
            ctx.add([self.stems(materials[i], i, frame) for i in pair])
        partners = self.partners(materials, frames[-1], self.answer_frames(materials, frames[:-1], ctx))
        return partners[stable_hash(self.key(plan)) % len(partners)]

    def _pair_frames(self, materials: Sequence[Material], ctx: contexts.Context, rng: random.Random) -> list[str] | None:
        """Frames of the first three pairs (all different), adding their sentences to ``ctx``."""
        chosen: list[str] = []
        for pair in self.pairs[:-1]:
            options = [f for f in self.frames if f not in chosen and all(self.allows(materials[i], i, f) for i in pair)]
            rng.shuffle(options)
            for frame in options:
                new = [self.stems(materials[i], i, frame) for i in pair]
                if not ctx.checks_pairs or ctx.fits(new):
                    chosen.append(frame)
                    ctx.add(new)
                    break
            else:
                return None
        return chosen

    def _finish(self, materials: tuple[Material, ...], chosen: list[str], ctx: contexts.Context,
                rng: random.Random) -> Plan | None:
        """The answer pair's frame, drawn from the frames that also leave a FRAME partner."""
        options = self.answer_frames(materials, chosen, ctx)
        usable = [f for f in options if self.partners(materials, f, options)]
        if not usable:
            return None
        return materials, (*chosen, rng.choice(usable))

    # --- drawing -------------------------------------------------------------------------------
    def draw(self, lexical_type: str, lemmas: Sequence[str], rng: random.Random) -> Plan | None:
        """A type I or III plan (type II: the generator, through builders.planning)."""
        return {"I": self._type1, "III": self._type3}[lexical_type](lemmas, rng)

    def random_material(self, verb: str, rng: random.Random) -> Material:
        entry = self.verbs[verb]
        return Material(verb, rng.choice(entry["agents"]), rng.choice(entry["themes"]),
                        rng.choice(entry["p_nps"]).text, rng.choice(entry["by_nps"]).text)

    def _type1(self, lemmas: Sequence[str], rng: random.Random) -> Plan | None:
        return self.framed((self.random_material(rng.choice(lemmas), rng),) * 8, "I", rng)

    def framed(self, materials: tuple[Material, ...], lexical_type: str, rng: random.Random) -> Plan | None:
        """The plan of these materials with frames drawn for the four pairs, or None when none fit."""
        ctx = self.context(lexical_type)
        chosen = self._pair_frames(materials, ctx, rng)
        return None if chosen is None else self._finish(materials, chosen, ctx, rng)

    def type2_slots(self, i: int) -> list[str]:
        """Type II: the words sentence ``i`` may change (BLM-It §2); the answer changes a word its candidates
        show (agent, theme or by-NP)."""
        return sorted(self.steps[i].slots() | ({"agent", "theme"} if i == ANSWER else set()))

    def swapped(self, base: Material, slot: str, rng: random.Random) -> Material:
        """The base material with one word (agent, theme, p-NP or by-NP) replaced (type II)."""
        pool = self.verbs[base.verb][{"agent": "agents", "theme": "themes", "pnp": "p_nps", "bynp": "by_nps"}[slot]]
        pool = [w if isinstance(w, str) else w.text for w in pool]
        current = getattr(base, slot)
        return base._replace(**{slot: rng.choice([w for w in pool if w != current])})

    def _type3(self, lemmas: Sequence[str], rng: random.Random) -> Plan | None:
        """Eight verbs, one per sentence, no content word shared by two context sentences.

        The answer's verb is the instance's lemma and comes from ``lemmas``; the context verbs too,
        unless the split has fewer than eight verbs (a lemma-split test set), where the context
        borrows verbs from the rest of the lexicon.
        """
        answer_verb = rng.choice(lemmas)
        pool = list(lemmas) if len(lemmas) >= 8 else list(self.verbs)
        pool = [v for v in pool if v != answer_verb]
        rng.shuffle(pool)
        materials: list[Material | None] = [None] * 8
        answer = self.random_material(answer_verb, rng)
        materials[ANSWER] = answer._replace(pnp=self.verbs[answer_verb]["p_nps"][0].text)  # never shown
        ctx, chosen = self.context("III"), []
        for pair in self.pairs:
            indices = [i for i in pair if i != ANSWER]
            options = [f for f in self.frames if f not in chosen]
            rng.shuffle(options)
            for frame in options[:TYPE_III_TRIES]:
                picks = self._fill_type3(indices, frame, pool, materials, ctx, rng)
                if picks is None:
                    continue
                if ANSWER in pair:   # sentence 7: the answer pair's frame is drawn by _finish
                    trial = list(materials)
                    trial[indices[0]] = picks[0]
                    plan = self._finish(tuple(trial), chosen, ctx, rng)
                    if plan is None:
                        continue
                    return plan
                for i, mat in zip(indices, picks):
                    materials[i] = mat
                ctx.add([self.stems(m, i, frame) for i, m in zip(indices, picks)])
                chosen.append(frame)
                break
            else:
                return None
        return None

    def _fill_type3(self, indices, frame, pool, materials, ctx: contexts.TypeIIIContext, rng) -> list[Material] | None:
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
            stems = self.stems(mat, i, frame)
            if not stems.isdisjoint(used):   # the components and the sentence disagree: never expected
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
        entry = self.verbs[verb]
        if frame in entry["not_with"]:
            return None
        step = self.steps[i]
        pools = {"agent": entry["agents"], "theme": entry["themes"],
                 "pnp": [p.text for p in entry["p_nps"] if frame not in p.not_with],
                 "bynp": [p.text for p in entry["by_nps"] if frame not in p.not_with]}
        subject_slot = SLOT[step.subject]
        subjects = [n for n in pools[subject_slot] if self._stems(n).isdisjoint(used)]
        rng.shuffle(subjects)
        for subject in subjects[:3]:
            acc = used | self._stems(subject)
            verb_stems = self._stems(self.realiser.verb_group(verb, frame, step.voice, subject, step.si))
            if not verb_stems.isdisjoint(acc):
                continue
            acc |= verb_stems
            choice = {subject_slot: subject}
            for slot in sorted(step.slots() - {subject_slot}):
                options = [w for w in pools[slot] if self._stems(w).isdisjoint(acc)]
                if not options:
                    break
                choice[slot] = rng.choice(options)
                acc |= self._stems(choice[slot])
            else:
                return Material(verb, choice.get("agent", entry["agents"][0]), choice.get("theme", entry["themes"][0]),
                                choice.get("pnp", entry["p_nps"][0].text), choice.get("bynp", entry["by_nps"][0].text))
        return None

    def _stems(self, text: str) -> frozenset[str]:
        return morphology.content_stems(text, self.language)
