"""A step of the COS+ template plus lexical material -> a sentence, its chunks and its pattern.

Word order is computed once per step (``layout``) from the language's grammar: subject and
object cases, verb-final relative clauses in German, the Italian ``si`` on the intransitive. The
pattern is built from the layout alone, so the validator's expected patterns never depend on
the words of an instance.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from builders import morphology
from builders.base import Sentence
from builders.cosplus.lexicon import Lexicon
from builders.cosplus.rules import AGENT, Step
from builders.errors import InputError

TENSE_TAG = {"present": "pres", "past": "past"}


class Material(NamedTuple):
    """The words of one sentence: a verb lemma, an agent (None when unused) and a patient."""

    verb: str
    agent: str | None
    patient: str


class Slot(NamedTuple):
    kind: str          # NP | REL | V
    role: str = ""     # agent | patient (NP, REL)
    case: str = ""     # nom | acc (NP, REL)


class Grammar(NamedTuple):
    """What differs between languages in the layout of a clause."""

    case_marking: bool
    verb_final_relatives: bool
    comma_before_relative: bool
    intransitive_marker: str

    @classmethod
    def of(cls, lex: Lexicon) -> "Grammar":
        morph = morphology.language(lex.language)
        return cls(hasattr(morph, "CASES"), getattr(morph, "RELATIVE_CLAUSE_ORDER", "") == "verb-final",
                   getattr(morph, "COMMA_BEFORE_RELATIVE", False), lex.intransitive_marker)


@functools.lru_cache(maxsize=None)
def layout(step: Step, grammar: Grammar) -> tuple[Slot, ...]:
    """The slots of a clause in surface order (subject = nominative, object = accusative)."""
    subj, verb = Slot("NP", step.subject, "nom"), Slot("V")
    obj = (Slot("NP", step.object, "acc"),) if step.transitive else ()
    if step.clause == "main":
        if step.fronted_object:
            if not grammar.case_marking:
                raise InputError("an object-first main clause needs case to show the roles (OVS)")
            return (*obj, verb, subj)
        return (subj, verb, *obj)
    if step.clause == "subject_relative":
        head = (subj, Slot("REL", step.subject, "nom"))
        return (*head, *obj, verb) if grammar.verb_final_relatives else (*head, verb, *obj)
    if step.clause == "object_relative":
        if not step.transitive:
            raise InputError("an object relative needs a transitive step")
        # a fragment's head is in the nominative, the relative pronoun in its clause's case: "Der Käse, den der
        # Koch schmilzt" (standard German; 000 Fig. 10's accusative head "Den Käse, den …" is a departure, README)
        return (Slot("NP", step.object, "nom"), Slot("REL", step.object, "acc"), subj, verb)
    raise InputError(f"unknown clause type {step.clause!r}")


@functools.lru_cache(maxsize=None)
def pattern(step: Step, grammar: Grammar) -> str:
    """``NP-Agent.NOM REL.NOM NP-Patient.ACC V-pres`` (case only where the language marks it)."""
    out = []
    for slot in layout(step, grammar):
        case = f".{slot.case.upper()}" if grammar.case_marking and slot.kind != "V" else ""
        if slot.kind == "NP":
            out.append(f"NP-{slot.role.capitalize()}{case}")
        elif slot.kind == "REL":
            out.append(f"REL{case}")
        else:
            marker = f"{grammar.intransitive_marker}-" if grammar.intransitive_marker and not step.transitive else ""
            out.append(f"{marker}V-{TENSE_TAG[step.tense]}")
    return " ".join(out)


class Realiser:
    """Builds sentences from cached phrases: each noun phrase is inflected once per case."""

    def __init__(self, lex: Lexicon):
        self.lex = lex
        self.morph = morphology.language(lex.language)
        self.grammar = Grammar.of(lex)
        self._phrases: dict[tuple, str] = {}

    def _entry(self, role: str, key: str) -> dict:
        return (self.lex.agents if role == AGENT else self.lex.patients)[key]

    def noun_phrase(self, role: str, key: str, case: str) -> str:
        cache_key = ("NP", role, key, case)
        text = self._phrases.get(cache_key)
        if text is None:
            entry = self._entry(role, key)
            if self.grammar.case_marking:
                text = self.morph.definite(entry, "sg", case)
            else:
                text = self.morph.definite(entry, "sg")
            text = self._phrases[cache_key] = self.morph.finalize(text)
        return text

    def relative_pronoun(self, role: str, key: str, case: str) -> str:
        if self.lex.relative_pronouns is not None:
            return self.lex.relative_pronouns[role]
        return self.morph.relative_pronoun(self._entry(role, key), "sg", case)

    def verb(self, lemma: str, step: Step) -> str:
        verb = self.lex.verbs[lemma]
        if step.transitive:
            return verb.transitive[step.tense]
        form = verb.intransitive[step.tense]
        return f"{self.grammar.intransitive_marker} {form}" if self.grammar.intransitive_marker else form

    def __call__(self, mat: Material, step: Step) -> Sentence:
        chunks = []
        for slot in layout(step, self.grammar):
            key = mat.agent if slot.role == AGENT else mat.patient
            if slot.kind == "NP":
                chunks.append(self.noun_phrase(slot.role, key, slot.case))
            elif slot.kind == "REL":
                chunks.append(self.relative_pronoun(slot.role, key, slot.case))
            else:
                chunks.append(self.verb(mat.verb, step))
        chunks[0] = chunks[0][0].upper() + chunks[0][1:]
        if step.clause != "main" and self.grammar.comma_before_relative:
            text = f"{chunks[0]}, {' '.join(chunks[1:])}."
        else:
            text = " ".join(chunks) + "."
        return Sentence(text, tuple(chunks), pattern(step, self.grammar))
