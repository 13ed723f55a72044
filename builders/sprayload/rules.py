"""Spray/load template rules: sentence steps and the named corruptions that make each candidate.

A sentence is a ``Step``: its phrase slots (``NP-Agent``, ``Verb``, ``PP-Loc`` …) and the
tense/modal frame. The answer is step 8 of the template; every wrong candidate is step 8 with one
named rule corrupted (RAVEN-style), so labels and classes come from the template, not by hand.
"""

from __future__ import annotations

from typing import NamedTuple

VERB_SLOTS = ("Verb", "VerbPass")


class Step(NamedTuple):
    slots: tuple[str, ...]
    frame: str

    def pattern(self) -> str:
        return " ".join(f"{s}-{self.frame}" if s in VERB_SLOTS else s for s in self.slots)


def role(slot: str) -> str:
    """The semantic role of an argument slot: ``PP-Loc`` -> ``Loc``."""
    return slot.rsplit("-", 1)[1]


def roles(step: Step) -> set[str]:
    """Roles realised in a step (the embedded NOEMB slot counts both of its roles)."""
    out = set()
    for slot in step.slots:
        if slot in VERB_SLOTS:
            continue
        for part in slot.strip("[]").split():
            out.add(role(part))
    return out


# --- corruptions of the answer -------------------------------------------------------------------
# The answer is [NP-<subject>, Verb, NP-<object>, PP-<pp>].

def agent_active(gold: Step) -> Step:
    """AGENTACT: the agent stays in subject position but the verb is passive."""
    return gold._replace(slots=tuple("VerbPass" if s == "Verb" else s for s in gold.slots))


def alternation_np(gold: Step) -> Step:
    """ALT-NP: the verb is followed by two NPs instead of an NP and a PP."""
    subj, verb, obj, pp = gold.slots
    return gold._replace(slots=(subj, verb, obj, "NP-" + role(pp)))


def alternation_pp(gold: Step) -> Step:
    """ALT-PP: the verb is followed by two PPs instead of an NP and a PP."""
    subj, verb, obj, pp = gold.slots
    return gold._replace(slots=(subj, verb, "PP-" + role(obj), pp))


def no_embedding(gold: Step) -> Step:
    """NOEMB: the second argument is a PP embedded in the object NP, not an argument of the verb."""
    subj, verb, obj, pp = gold.slots
    return gold._replace(slots=(subj, verb, f"[{obj} {pp}]"))


def lexical_preposition(gold: Step) -> Step:
    """LEXPREP: the PP argument is introduced by a preposition the verb does not select."""
    subj, verb, obj, pp = gold.slots
    return gold._replace(slots=(subj, verb, obj, "*" + pp))


def mapping(gold: Step, order: list[str]) -> Step:
    """SSM/AASSM: the roles of subject, object and PP are redistributed (``order`` names the
    answer's position whose role each position takes)."""
    subj, verb, obj, pp = gold.slots
    old = {"subject": role(subj), "object": role(obj), "pp": role(pp)}
    new_subj, new_obj, new_pp = (old[position] for position in order)
    return gold._replace(slots=(f"NP-{new_subj}", verb, f"NP-{new_obj}", f"PP-{new_pp}"))


RULES = {
    "agent_active": lambda gold, cand: agent_active(gold),
    "alternation_np": lambda gold, cand: alternation_np(gold),
    "alternation_pp": lambda gold, cand: alternation_pp(gold),
    "no_embedding": lambda gold, cand: no_embedding(gold),
    "lexical_preposition": lambda gold, cand: lexical_preposition(gold),
    "mapping": lambda gold, cand: mapping(gold, cand["order"]),
}


def corrupt(gold: Step, candidate: dict) -> Step:
    return gold if candidate["class"] == "CORRECT" else RULES[candidate["rule"]](gold, candidate)


def paper_answers(gold: Step, candidates: list[dict]) -> list[tuple[Step, str, str]]:
    """The published answer set: (step, label, error class), the gold first."""
    return [(corrupt(gold, cand), cand["label"], cand["class"]) for cand in candidates]


def balanced_answers(gold: Step, frames: list[str], grammar: list[dict], frame_label: str
                     ) -> list[tuple[Step, str, str]]:
    """The answer in each of ``frames`` (the gold's first), each also corrupted by every rule of
    ``grammar``: the unordered set is the same whichever frame the context is in."""
    out = []
    for frame in frames:
        step = gold._replace(frame=frame)
        own = frame == gold.frame
        out.append((step, "Correct" if own else frame_label, "CORRECT" if own else "SEQUENCE"))
        for cand in grammar:
            label = cand["label"] if own else f"{frame_label}+{cand['label']}"
            out.append((corrupt(step, cand), label, "GRAMMAR"))
    return out
