"""COS+ template rules: clause steps of the matrix and the named corruptions of the gold step.

A sentence of the matrix is a ``Step`` (clause type, subject role, object role, tense). The gold
answer is the template's fifth step; each wrong candidate is the gold with one named rule
corrupted (RAVEN-style), so labels come from the rule, never typed in per sentence.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import NamedTuple

AGENT, PATIENT = "agent", "patient"
OTHER_ROLE = {AGENT: PATIENT, PATIENT: AGENT}
CLAUSES = ("main", "subject_relative", "object_relative")
TENSES = ("present", "past")
OTHER_TENSE = {"present": "past", "past": "present"}


class Step(NamedTuple):
    clause: str               # main | subject_relative | object_relative
    subject: str              # agent | patient
    object: str | None        # agent | patient | None (intransitive)
    tense: str                # present | past
    fronted_object: bool = False  # main clause with the object first (German OVS, roles kept)

    @property
    def transitive(self) -> bool:
        return self.object is not None


def step(spec: Mapping, tense: str) -> Step:
    """A template entry (``{clause, subject, object}``) in a tense."""
    return Step(spec["clause"], spec["subject"], spec.get("object"), tense)


def sequence(template: Mapping, tense: str) -> list[Step]:
    """The four context steps and the gold step of a template, all in ``tense``."""
    return [step(s, tense) for s in template["context"]] + [step(template["gold"], tense)]


# --- corruptions of the gold step ---------------------------------------------------------------

def corrupt_subject_role(gold: Step) -> Step:
    """The wrong role as subject: the agent as intransitive subject, or agent and patient swapped."""
    if gold.transitive:
        return gold._replace(subject=gold.object, object=gold.subject)
    return gold._replace(subject=OTHER_ROLE[gold.subject])


def corrupt_alternant(gold: Step, case_marking: bool) -> Step:
    """The other alternant with the gold's first noun kept first.

    Intransitive gold -> transitive with the patient first: with overt case the roles are kept
    (OVS, ``Den Käse schmilzt der Koch``, 000 Fig. 10); without case only word order marks the
    roles, so the patient is the subject (``The butter melts the chef``, Fig. 9 ``Pa Verb Ag``).
    Transitive gold -> intransitive with the agent as subject (``The chef melts``).
    """
    if gold.transitive:
        return gold._replace(object=None)
    if case_marking:
        return gold._replace(subject=AGENT, object=gold.subject, fronted_object=True)
    return gold._replace(object=AGENT)


def corrupt_tense(gold: Step) -> Step:
    return gold._replace(tense=OTHER_TENSE[gold.tense])


def apply_rule(gold: Step, rule: str, case_marking: bool) -> Step:
    if rule == "subject_role":
        return corrupt_subject_role(gold)
    if rule == "alternant":
        return corrupt_alternant(gold, case_marking)
    if rule == "tense":
        return corrupt_tense(gold)
    raise ValueError(f"unknown COS+ rule {rule!r} (known: subject_role, alternant, tense)")


RULE_CLASS = {"subject_role": "GRAMMAR", "alternant": "SEQUENCE", "tense": "SEQUENCE"}


def paper_answers(gold: Step, candidates: Sequence[Mapping], case_marking: bool) -> list[tuple[Step, str, str]]:
    """The published answer set (000 Fig. 9): (step, label, error class), gold first."""
    out = []
    for cand in candidates:
        if cand["class"] == "CORRECT":
            out.append((gold, cand["label"], "CORRECT"))
        else:
            out.append((apply_rule(gold, cand["rule"], case_marking), cand["label"], cand["class"]))
    return out


def balanced_answers(gold: Step, factors: Sequence[str], candidates: Sequence[Mapping],
                     extra_labels: Mapping[str, str], case_marking: bool) -> list[tuple[Step, str, str]]:
    """Full crossing of the factors, each kept or corrupted; labels name every corrupted rule.

    The class is GRAMMAR as soon as a GRAMMAR rule is corrupted, else SEQUENCE, so every
    well-formed candidate has a GRAMMAR twin that differs from it only in that rule.
    """
    labels = {c["rule"]: c["label"] for c in candidates if "rule" in c}
    labels.update(extra_labels)
    out = []
    for flags in itertools.product((False, True), repeat=len(factors)):
        current, names, classes = gold, [], []
        for factor, corrupted in zip(factors, flags):
            if corrupted:
                current = apply_rule(current, factor, case_marking)
                names.append(labels[factor])
                classes.append(RULE_CLASS[factor])
        if not names:
            out.append((gold, "Correct", "CORRECT"))
        else:
            cls = "GRAMMAR" if "GRAMMAR" in classes else "SEQUENCE"
            grammar_first = sorted(zip(classes, names), key=lambda x: x[0] != "GRAMMAR")
            out.append((current, "+".join(n for _, n in grammar_first), cls))
    return out
