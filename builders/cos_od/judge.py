"""The class that is true of a COS/OD candidate, for its lemma and its words (builders/README.md).

Every rule of the template is judged by :func:`classify`, which reads the sentence as realised:
who is subject, object or by-phrase, in which voice, with or without Italian ``si``, in which
frame, and the facts of the lemma's lexicon entry (LEXICON.md, "Facts"). It returns GRAMMAR (not a
well-formed sentence with these words), SEQUENCE (well-formed, off the pattern) or None (a second
valid continuation, or a sentence whose grammaticality the facts do not decide: not generated).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from builders.cos_od.lexicon import VerbFacts
from builders.errors import InputError

if TYPE_CHECKING:
    from builders.base import Matrix
    from builders.cos_od.rules import Step

GOLD_ROLE = {"cos": "Theme", "od": "Agent"}   # the subject of the answer's intransitive


@dataclass(frozen=True)
class Facts:
    """What the judges of one matrix read: the lemma's facts and the plan-level choices."""

    cls: str                       # cos | od
    has_si: bool                   # the language has the reflexive-like marker (it)
    lexical_type: str              # I | II | III
    verb: VerbFacts
    place_roles: frozenset[str]    # roles whose noun's by/da-phrase reads as a place (by the river, dalla nonna)
    compound_frames: frozenset[str]  # frames built with an auxiliary + participle (it: avere in the bare intransitive)
    agent_oriented: bool = False   # the answer's by-NP describes how an agent acts (by hand, by ear)
    other_frame: str = ""          # the balanced set's FRAME candidate


def classify(step: Step, matrix: Matrix) -> str | None:
    """GRAMMAR, SEQUENCE or None (not generated) for the candidate ``step`` with the answer's words."""
    facts = matrix.facts   # judges read facts only: the framework caches answer sets by gold step and facts
    if step.voice == "passive" or step.complements[0].startswith("NP-"):
        if step.si:
            raise InputError(f"a transitive or passive candidate with si is not a template sentence: {step}")
        canonical = (step.subject == "Theme") == (step.voice == "passive")
        return mapping(canonical, facts, step.voice == "passive")
    reading = intransitive(step, facts)
    by = step.complements[0]
    if by == "by-NP":
        return reading
    if reading == "GRAMMAR" or by.rsplit("-", 1)[1] not in facts.place_roles:
        return "GRAMMAR"          # an agentive by-phrase in an intransitive
    return None                   # by the river / dalla nonna: a place, so a non-agentive by-NP after all


def mapping(canonical: bool, facts: Facts, passive: bool = False) -> str | None:
    """A transitive or a passive: Agent acting on Theme is well-formed; the reverse only where the
    theme can act on the agent (The team improved the coach). The swapped passive may be marginal on
    its own (stilted: Gli allenatori saranno migliorati dalla squadra; a source reading of the
    by-phrase: Il cane è stato strappato dalla tenda)."""
    if canonical:
        return "SEQUENCE"
    if passive and facts.verb.swapped_passive == "marginal":
        return None
    return {"anomalous": "GRAMMAR", "natural": "SEQUENCE", "marginal": None}[facts.verb.swapped_roles]


def _same_role(facts: Facts) -> str | None:
    """The other argument in the gold subject's role: off the pattern where the context shows the
    words in their roles (type I), a second valid answer where it does not (types II, III)."""
    return "SEQUENCE" if facts.lexical_type == "I" else None


def intransitive(step: Step, facts: Facts) -> str | None:
    """The intransitive ``subject (si) V by-NP`` with a non-agentive by-NP."""
    verb, gold = facts.verb, step.subject == GOLD_ROLE[facts.cls]
    bare_compound = facts.has_si and not step.si and step.frame in facts.compound_frames
    if facts.cls == "cos":
        if gold:
            if step.si or not facts.has_si:
                return None                                     # the gold (or its equal)
            return "GRAMMAR" if verb.si == "obligatory" else None   # optional si: La foto rimpicciolisce
        if facts.has_si and step.si:
            reading = verb.agent_si                             # Le guardie si chiusero dall'interno
        else:
            reading = verb.agent_intransitive
            if reading == "undergoer" and bare_compound:
                return None   # essere or avere: the facts do not say which auxiliary, so no claim
        return _reading(reading, "undergoer", facts)
    if gold:
        if step.si:
            return {"none": "GRAMMAR", "reflexive": "SEQUENCE", "marginal": None}[verb.agent_si]  # La domestica si lava
        return None
    if step.si:               # si passivante: I panini si mangiano da mattina a sera
        if verb.patient_si == "passive" and step.frame in verb.patient_si_marginal_in:
            return None       # a perfective past also reads 'did it to itself': La statua si è scolpita
        return {"passive": "SEQUENCE", "marginal": None, "none": "GRAMMAR"}[verb.patient_si]
    reading = verb.patient_intransitive
    if reading == "undergoer" and bare_compound:
        return None
    return _reading(reading, "doer", facts)


def _reading(reading: str, gold_like: str, facts: Facts) -> str | None:
    """The class of an intransitive whose subject is the other argument, read as ``reading``
    (``gold_like``: the gold subject's own reading, undergoer for COS, doer for OD)."""
    if reading == "none":
        return "GRAMMAR"
    if reading == "marginal":
        return None           # neither clearly natural nor clearly anomalous: no claim
    if reading == "undergoer" and facts.agent_oriented:
        return "GRAMMAR"      # The waltz played by heart: by heart needs an agent
    return _same_role(facts) if reading == gold_like else "SEQUENCE"
