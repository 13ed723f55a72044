"""Spray/load rules: the sentence steps and the named corruptions of the answer, with their judges.

A sentence is a ``Step``: its phrase slots and the tense/modal frame. A slot names the noun that
fills it by the noun's role in the matrix (``NP-Theme`` is the theme noun, wherever it stands), so a
role swap is a reordering of slots. The answer is step 8; every wrong candidate is step 8 with named
rules corrupted. Whether a candidate is well-formed depends on the verb: the judges read the verb's
lexicon entry (``matrix.facts.entry``; LEXICON.md lists the facts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from builders.rules import RuleBook
from builders.sprayload.lexicon import VerbEntry

VERB_SLOTS = ("Verb", "VerbPass")
ROLE_NAMES = {"Agent": "agent", "Theme": "theme", "Loc": "location"}
# the class a candidate gets from the lexicon's judgement of its sentence (marginal: not generated)
CLASS_OF = {"natural": "SEQUENCE", "anomalous": "GRAMMAR", "marginal": None}
RULES = RuleBook("sprayload")


class Step(NamedTuple):
    slots: tuple[str, ...]
    frame: str
    rule: str = ""   # the label of the structural corruption (names balanced candidates); not shown

    def pattern(self) -> str:
        return " ".join(f"{s}-{self.frame}" if s in VERB_SLOTS else s for s in self.slots)


@dataclass(frozen=True)
class Facts:
    """What the judges and the balanced factors of one matrix read."""

    entry: VerbEntry
    other_frames: tuple[str, ...] = ()                        # balanced: the FRAME candidates' frames
    grammar: tuple[tuple[str, str, tuple], ...] = ()         # balanced: (label, rule, params) crossed with them


def role(slot: str) -> str:
    """The role of the noun filling a slot: ``PP-Loc`` -> ``Loc``."""
    return slot.rsplit("-", 1)[1]


def roles(step: Step) -> set[str]:
    """Roles realised in a step (the embedded NOEMB slot counts both of its nouns)."""
    return {role(part) for slot in step.slots if slot not in VERB_SLOTS for part in slot.strip("[]").split()}


def variant(slots: tuple[str, ...]) -> str | None:
    """Which alternant a sentence is: ``locative`` (theme object or passive subject: *sprayed the
    water onto the roses*, *the water was sprayed*), ``with`` (location object or passive subject),
    or None (no verb object: not a sentence of the alternation)."""
    if slots[1] == "VerbPass":
        undergoer = role(slots[0])
    elif slots[1] == "Verb" and len(slots) > 2 and slots[2].startswith("NP-"):
        undergoer = role(slots[2])
    else:
        return None
    return {"Theme": "locative", "Loc": "with"}.get(undergoer)


def bare_passive(slots: tuple[str, ...]) -> str | None:
    """``theme`` or ``location`` for a passive whose subject is that argument and that shows neither
    the other one nor anything but the agent (*The paint was sprayed by the girl*, *The wall was
    sprayed by the girl*): a verb must have it naturally to appear in such a sentence; else None."""
    if len(slots) < 2 or slots[1] != "VerbPass":
        return None
    subject, rest = role(slots[0]), {role(s) for s in slots[2:]}
    if subject in ("Theme", "Loc") and rest == {"Agent"}:
        return ROLE_NAMES[subject]
    return None


def with_frame(subject: str, obj: str, pp: str) -> bool:
    """Whether an active ``subject Verb object PP`` takes the with-frame (PP = with + theme): the PP
    holds the theme, or the agent after a location object (the realiser's choice of preposition)."""
    return role(pp) == "Theme" or (role(pp) == "Agent" and role(obj) == "Loc")


# --- corruptions of the answer [NP-<subject>, Verb, NP-<object>, PP-<pp>] --------------------------

@RULES.rule("agent_active", label="AGENTACT", error_class="GRAMMAR")
def agent_active(gold: Step, matrix) -> Step:
    """The agent stays in subject position but the verb is passive (*The girl was sprayed the
    paint onto the wall*): ungrammatical with every verb."""
    return gold._replace(slots=tuple("VerbPass" if s == "Verb" else s for s in gold.slots), rule="AGENTACT")


@RULES.rule("alternation_np", label="ALT-NP", error_class="GRAMMAR")
def alternation_np(gold: Step, matrix) -> Step:
    """The verb followed by two NPs (*sprayed the paint the wall*): no verb of the class takes a
    double object with these roles."""
    subj, verb, obj, pp = gold.slots
    return gold._replace(slots=(subj, verb, obj, "NP-" + role(pp)), rule="ALT-NP")


@RULES.rule("alternation_pp", label="ALT-PP", error_class="GRAMMAR")
def alternation_pp(gold: Step, matrix) -> Step:
    """The verb followed by two PPs (*sprayed with the paint onto the wall*)."""
    subj, verb, obj, pp = gold.slots
    return gold._replace(slots=(subj, verb, "PP-" + role(obj), pp), rule="ALT-PP")


@RULES.judge("alternation_pp")
def alternation_pp_class(step: Step, matrix) -> str:
    """Without an object the verb is intransitive: where the agent can move itself into the location
    with this verb, the location PP first makes a well-formed sentence (*The movers loaded into the
    truck with the boxes*); the with-PP first does not (*The movers loaded with the boxes into the
    truck*)."""
    location_first = role(step.slots[2]) == "Loc"
    return "SEQUENCE" if matrix.facts.entry.agent_moves and location_first else "GRAMMAR"


@RULES.rule("no_embedding", label="NOEMB", error_class="SEQUENCE")
def no_embedding(gold: Step, matrix) -> Step:
    """The second argument embedded in the object NP with *for* (*sprayed [the paint for the wall]*)."""
    subj, verb, obj, pp = gold.slots
    return gold._replace(slots=(subj, verb, f"[{obj} {pp}]"), rule="NOEMB")


@RULES.judge("no_embedding")
def no_embedding_class(step: Step, matrix) -> str | None:
    """Natural, anomalous or marginal (not generated) for this verb, by which noun is the object
    (lexicon ``noemb``)."""
    head = role(step.slots[2].strip("[]").split()[0])
    key = "theme_for_location" if head == "Theme" else "location_for_theme"
    return CLASS_OF[matrix.facts.entry.judgement("noemb", key)]


def _locative_pp(step: Step, matrix) -> bool:
    """Whether the gold's PP is the location: another locative preposition keeps its frame and roles."""
    return role(matrix.steps[-1].slots[3]) == "Loc"


@RULES.rule("lexical_preposition", label="LEXPREP", error_class="SEQUENCE", refills=_locative_pp)
def lexical_preposition(gold: Step, matrix) -> Step:
    """The PP argument introduced by a preposition the verb does not select (*sprayed the paint
    near the wall*): the PP can only be an adjunct, with another meaning. Where the gold's PP is the
    location (ALT-ATL), a natural one (*plant the bulbs beside the park*) is the same locative frame: only
    the verb's preferred preposition, which a type II/III context never shows, tells it from the gold."""
    subj, verb, obj, pp = gold.slots
    return gold._replace(slots=(subj, verb, obj, "*" + pp), rule="LEXPREP")


@RULES.judge("lexical_preposition")
def lexical_preposition_class(step: Step, matrix) -> str | None:
    """Natural, anomalous or marginal (not generated) for this verb, by which noun is the object
    (lexicon ``lexprep``)."""
    key = "theme_object" if role(step.slots[2]) == "Theme" else "location_object"
    return CLASS_OF[matrix.facts.entry.judgement("lexprep", key)]


POSITIONS = ("subject", "object", "pp")


def _same_alternant(step: Step, matrix) -> bool:
    """Whether a redistribution keeps the gold's alternant (with-frame or locative frame)."""
    return with_frame(*step.slots[0:1], *step.slots[2:4]) == with_frame(*matrix.steps[-1].slots[0:1],
                                                                           *matrix.steps[-1].slots[2:4])


@RULES.rule("mapping", label="SSM", error_class="GRAMMAR", refills=_same_alternant)
def mapping(gold: Step, matrix, order: list[str]) -> Step:
    """SSM/AASSM: the nouns redistributed over subject, object and PP (``order``: for each position,
    the answer's position whose noun it takes). Where the nouns can take their new roles and the
    alternant is the gold's (ATL-ALT SSM-1: *The children squirted the jester with the juice*), it is the
    gold's frame and roles with the fillers swapped: a second answer in type II/III (refills)."""
    subj, verb, obj, pp = gold.slots
    old = dict(zip(POSITIONS, (role(subj), role(obj), role(pp))))
    new_subj, new_obj, new_pp = (old[position] for position in order)
    return gold._replace(slots=(f"NP-{new_subj}", verb, f"NP-{new_obj}", f"PP-{new_pp}"), rule="SSM")


def new_roles(step: Step) -> dict[str, str]:
    """The role each noun of an active ``subject Verb object PP`` takes: {'Theme': 'agent', …}."""
    subj, _, obj, pp = step.slots
    frame_with = with_frame(subj, obj, pp)
    return {role(subj): "agent", role(obj): "location" if frame_with else "theme",
            role(pp): "theme" if frame_with else "location"}


@RULES.judge("mapping")
def mapping_class(step: Step, matrix, order: list[str]) -> str:
    """A role swap is SEQUENCE when every moved noun can take its new role with this verb (lexicon
    ``can_also_be``: *The bride showered the guests with the rice*), else GRAMMAR (*The paint
    sprayed the girl onto the wall*)."""
    also = matrix.facts.entry.can_also_be
    moved = {(ROLE_NAMES[noun], new) for noun, new in new_roles(step).items() if ROLE_NAMES[noun] != new}
    return "SEQUENCE" if moved <= also else "GRAMMAR"


# --- balanced factors ---------------------------------------------------------------------------

@RULES.rule("frame", label="FRAME", error_class="SEQUENCE")
def other_frames(gold: Step, matrix) -> list[Step]:
    """The answer in the other tense/modal frames of this matrix's balanced set: well-formed, but
    every sentence of the context is in the gold's frame."""
    return [gold._replace(frame=frame) for frame in matrix.facts.other_frames]


@RULES.rule("grammar", label=lambda step: step.rule, error_class="GRAMMAR")
def grammar_twins(step: Step, matrix) -> list[Step]:
    """The step corrupted by each of the paper candidates chosen for this matrix (only candidates
    that are GRAMMAR for this verb are chosen, so every well-formed candidate has GRAMMAR twins)."""
    return [RULES[name].corrupt(step, matrix, **dict(params))._replace(rule=label)
            for label, name, params in matrix.facts.grammar]


@RULES.judge("grammar")
def grammar_twin_class(step: Step, matrix) -> str | None:
    for label, name, params in matrix.facts.grammar:
        if label == step.rule:
            return RULES[name].verdict(step, matrix, dict(params))
    return None
