"""Turning a step of the COS/OD template (with its frame) and lexical material into a sentence."""

from __future__ import annotations

import functools
from typing import NamedTuple

from builders import morphology
from builders.base import Sentence
from builders.cos_od import verbs
from builders.cos_od.rules import Step

AGENT_PREPOSITION = {"en": "by", "it": "da"}


class Material(NamedTuple):
    """The words of one sentence: a verb, its two arguments, a p-NP and a non-agentive by-NP."""

    verb: str
    agent: str
    theme: str
    pnp: str       # p-NP text
    bynp: str      # non-agentive by-NP text

    def role(self, role: str) -> str:
        return self.agent if role == "Agent" else self.theme


class Realiser:
    """Builds sentences from cached phrases; noun phrases are inflected once per language."""

    def __init__(self, lex: dict):
        self.language = lex["language"]
        self.nouns = lex["noun_info"]
        self.verbs = lex["verbs_by_lemma"]
        self.morph = morphology.language(self.language)
        self.verb_morph = verbs.module(self.language)
        self.by = AGENT_PREPOSITION[self.language]
        # frames each verb's phrases do not go with
        self.not_with = {(v, kind, p.text): p.not_with for v, entry in self.verbs.items()
                         for kind, pool in (("P-NP", "p_nps"), ("by-NP", "by_nps")) for p in entry[pool]}

    @functools.lru_cache(maxsize=1 << 14)
    def noun_phrase(self, noun: str, by: bool = False) -> str:
        """``the chef`` / ``by the chef``; ``il cuoco`` / ``dal cuoco`` (articulated preposition)."""
        info = self.nouns[noun]
        entry = info.entry()
        text = self.morph.prep_phrase(self.by, entry, info.number) if by else self.morph.definite(entry, info.number)
        return self.morph.finalize(text)

    def complement(self, kind: str, mat: Material) -> str:
        if kind == "P-NP":
            return mat.pnp
        if kind == "by-NP":
            return mat.bynp
        role = kind.rsplit("-", 1)[1]
        return self.noun_phrase(mat.role(role), by=kind.startswith("by-"))

    @functools.lru_cache(maxsize=1 << 16)
    def verb_group(self, verb: str, frame: str, voice: str, subject: str, si: bool) -> str:
        info = self.nouns[subject]
        return self.verb_morph.verb_group(self.verbs[verb]["forms"], frame, voice, info.number, info.gender, si)

    def chunks(self, mat: Material, step: Step) -> list[str]:
        """Subject, verb group, complements (the subject not yet capitalised)."""
        subject = mat.role(step.subject)
        chunks = [self.noun_phrase(subject), self.verb_group(mat.verb, step.frame, step.voice, subject, step.si)]
        return chunks + [self.complement(kind, mat) for kind in step.complements]

    @functools.lru_cache(maxsize=1 << 17)
    def __call__(self, mat: Material, step: Step) -> Sentence:
        chunks = self.chunks(mat, step)
        chunks[0] = chunks[0][0].upper() + chunks[0][1:]
        return Sentence(" ".join(chunks) + ".", tuple(chunks), step.pattern())

    @functools.lru_cache(maxsize=1 << 17)
    def stems(self, mat: Material, step: Step) -> frozenset[str]:
        """The sentence's content stems (``morphology.content_stems``) without building the sentence:
        tokens never cross a chunk boundary, so they are the union of the chunks' stems."""
        out: frozenset[str] = frozenset()
        for chunk in self.chunks(mat, step):
            out |= morphology.content_stems(chunk, self.language)
        return out

    def allows(self, mat: Material, step: Step) -> bool:
        """Whether the verb and the step's p-NP / by-NP go with its frame (lexicon ``not_with``)."""
        if step.frame in self.verbs[mat.verb]["not_with"]:
            return False
        if "P-NP" in step.complements and step.frame in self.not_with[mat.verb, "P-NP", mat.pnp]:
            return False
        return not ("by-NP" in step.complements and step.frame in self.not_with[mat.verb, "by-NP", mat.bynp])
