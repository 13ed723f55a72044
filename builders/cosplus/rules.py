"""COS+ rules: the clause steps of a matrix and the named corruptions of the gold step.

A sentence of the matrix is a ``Step`` (clause type, subject role, object role, tense). Each wrong
candidate is the gold step with named rules corrupted; a rule is defined by the sentence it makes
(``Ag V``, ``Pa V Ag`` …), so the same kind of sentence is made by the same rule in both templates,
and its class is decided by a judge that reads the lexicon facts of these words
(``matrix.facts``, a :class:`Facts`), never by the template it appears in (builders/README.md).
"""

from __future__ import annotations

from typing import NamedTuple

from builders.rules import RuleBook

AGENT, PATIENT = "agent", "patient"
CLAUSES = ("main", "subject_relative", "object_relative")
TENSES = ("present", "past")
OTHER_TENSE = {"present": "past", "past": "present"}
RULES = RuleBook("cosplus")


class Step(NamedTuple):
    clause: str                   # main | subject_relative | object_relative
    subject: str                  # agent | patient
    object: str | None            # agent | patient | None (intransitive)
    tense: str                    # present | past
    fronted_object: bool = False  # main clause with the object first, roles kept (German OVS)

    @property
    def transitive(self) -> bool:
        return self.object is not None


class Facts(NamedTuple):
    """What the judges know about the answer sentence's words (``Matrix.facts``)."""

    case_marking: bool         # the language tells subject from object by case (de), not by position
    person_intransitive: str   # lexicon: the bare intransitive with a person subject is natural | marginal | none
    person_causer: str         # lexicon: this patient acting on a person is natural | marginal | none
    case_ambiguous: bool       # de: neither noun shows nominative vs accusative (die Butter, die Köchin)


# a lexicon reading -> the class of the sentence (None: marginal, the candidate is not generated)
READING_CLASS = {"natural": "SEQUENCE", "marginal": None, "none": "GRAMMAR"}


# --- tense -------------------------------------------------------------------------------------

@RULES.rule("tense", label="TENSE", error_class="SEQUENCE")
def other_tense(gold: Step, matrix) -> Step:
    """The other tense: every sentence of a matrix is in one tense, so the other one breaks the
    progression; the sentence itself is well-formed."""
    return gold._replace(tense=OTHER_TENSE[gold.tense])


# --- Ag V: the agent as the subject of the intransitive ----------------------------------------

def _gold_intransitive(step: Step, matrix) -> bool:
    return not matrix.steps[-1].transitive


@RULES.rule("agent_subject", label="I-INT", error_class="GRAMMAR", refills=_gold_intransitive)
def agent_intransitive(gold: Step, matrix) -> Step:
    """``The chef melts``: the intransitive main clause with the agent as its subject. Where a person
    can undergo the change (*The boy softened*), the person is the undergoer, the role of the T2I gold's
    subject: in type III, whose context does not show which noun is the agent, a second answer of T2I
    (refills where the gold is intransitive)."""
    return Step("main", AGENT, None, gold.tense)


@RULES.judge("agent_subject")
def person_intransitive(step: Step, matrix) -> str | None:
    """GRAMMAR where a person cannot be the intransitive's subject (*The chef melts*); SEQUENCE
    (in T2I type III a second answer, left out by the framework) where the verb has that use (lexicon ``person_intransitive``: *The chef burns*, *Il cuoco si
    raffreddò*, *Der Junge reifte*); not generated where it is marginal
    (``marginal_person_intransitive``: *The chef browned*)."""
    return READING_CLASS[matrix.facts.person_intransitive]


# --- Pa V Ag -----------------------------------------------------------------------------------

@RULES.rule("reverse_roles", label="R-TRANS", error_class="GRAMMAR")
def reverse_roles(gold: Step, matrix) -> Step:
    """``The butter melts the chef``: the transitive with the patient as subject (nominative) and
    the agent as object (accusative)."""
    return Step("main", PATIENT, AGENT, gold.tense)


def _reversal_class(matrix) -> str | None:
    facts = matrix.facts
    if facts.case_ambiguous:
        return None  # de: 'Die Butter schmilzt die Köchin' reads as a reversal or as OVS: no claim
    return READING_CLASS[facts.person_causer]


@RULES.judge("reverse_roles")
def reversal_is_possible(step: Step, matrix) -> str | None:
    """SEQUENCE when the patient can cause this change in a person (lexicon ``person_causers``:
    *The stew warmed the teenager*); GRAMMAR otherwise (*The butter melts the chef*, *Der Käse
    schmilzt den Koch*). Not generated where the reversal is marginal (``marginal_person_causers``,
    or a verb with a person-object sense, ``person_object``: *Il pane seccò il cuoco* 'annoyed'), or,
    in German, where neither noun shows its case (*Die Butter schmilzt die Köchin*: reversal or OVS)."""
    return _reversal_class(matrix)


def patient_first_label(step: Step) -> str:
    return "OVS" if step.fronted_object else "R-TRANS"


@RULES.rule("patient_first", label=patient_first_label, error_class="SEQUENCE")
def patient_first(gold: Step, matrix) -> Step:
    """Fig. 9's ``Pa V Ag`` after an intransitive gold: the transitive with the patient first. Where
    case shows the roles (German) they are kept: ``Den Käse schmilzt der Koch`` (OVS, Fig. 10);
    where only position does (en, it), the patient first is the subject: the roles are reversed."""
    if matrix.facts.case_marking:
        return Step("main", AGENT, PATIENT, gold.tense, fronted_object=True)
    return reverse_roles(gold, matrix)


@RULES.judge("patient_first")
def patient_first_class(step: Step, matrix) -> str | None:
    """OVS is a well-formed German transitive (SEQUENCE) where a noun shows its case (*Den Käse
    schmilzt die Köchin*); where neither does (*Die Butter schmilzt die Köchin*) it reads first as a
    reversal, so it is not generated. A reversal (en, it) is judged as ``reverse_roles``."""
    if step.fronted_object:
        return None if matrix.facts.case_ambiguous else "SEQUENCE"
    return _reversal_class(matrix)
