"""COS/OD template rules: the steps of the sequence and the named corruptions of the answer.

A sentence of the template is a ``Step`` (subject role, voice, reflexive-like ``si``, complements)
realised in a tense/aspect/modal frame. Every wrong candidate is the gold step with named rules
corrupted (RAVEN-style), so labels and error classes come from the template, not from hand-typed
sentences.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import NamedTuple

ROLES = ("Agent", "Theme")
OTHER = {"Agent": "Theme", "Theme": "Agent"}
COMPLEMENTS = ("NP-Agent", "NP-Theme", "by-NP-Agent", "by-NP-Theme", "P-NP", "by-NP")
# which lexical slot each complement (or the subject role) draws on
SLOT = {"Agent": "agent", "Theme": "theme", "NP-Agent": "agent", "NP-Theme": "theme",
        "by-NP-Agent": "agent", "by-NP-Theme": "theme", "P-NP": "pnp", "by-NP": "bynp"}


class Step(NamedTuple):
    subject: str                 # Agent | Theme
    voice: str                   # active | passive
    complements: tuple[str, ...]
    si: bool = False             # reflexive-like marker (Italian COS intransitive)

    def pattern(self, frame: str) -> str:
        """``NP-Theme si ActiveV by-NP [presente]``: the papers' pattern plus the frame."""
        verb = ("si " if self.si else "") + ("ActiveV" if self.voice == "active" else "PassiveV")
        return " ".join([f"NP-{self.subject}", verb, *self.complements]) + f" [{frame}]"

    def slots(self) -> set[str]:
        """Lexical slots the sentence uses (agent, theme, pnp, bynp)."""
        return {SLOT[self.subject], *(SLOT[c] for c in self.complements)}


def parse_step(node: Mapping, reflexive_marker: bool) -> Step:
    """A template step; ``si: true`` only holds in languages with the reflexive-like marker."""
    return Step(node["subject"], node["voice"], tuple(node["complements"]),
                bool(node.get("si", False)) and reflexive_marker)


def split_pattern(pattern: str) -> tuple[str, str]:
    """``'NP-Agent ActiveV NP-Theme P-NP [past]'`` -> (structure, frame)."""
    structure, _, frame = pattern.rpartition(" [")
    return structure, frame.rstrip("]")


# --- corruptions of the gold step ---------------------------------------------------------------

def corrupt_subject_role(step: Step) -> Step:
    """Agent <-> Theme everywhere: the subject takes the other role, role-bearing complements too."""
    swap = {"NP-Agent": "NP-Theme", "NP-Theme": "NP-Agent", "by-NP-Agent": "by-NP-Theme",
            "by-NP-Theme": "by-NP-Agent"}
    return step._replace(subject=OTHER[step.subject], complements=tuple(swap.get(c, c) for c in step.complements))


def corrupt_voice(step: Step) -> Step:
    """Passive, with the other argument as agentive by-NP (ER-PASS)."""
    return step._replace(voice="passive", complements=(f"by-NP-{OTHER[step.subject]}",), si=False)


def corrupt_transitivity(step: Step) -> Step:
    """A transitive: the other argument as a bare object instead of the by-NP (R-TRANS)."""
    return step._replace(voice="active", complements=(f"NP-{OTHER[step.subject]}",), si=False)


def corrupt_by_phrase(step: Step) -> Step:
    """The by-NP filled with the other argument (E-WRBY)."""
    return step._replace(complements=(f"by-NP-{OTHER[step.subject]}",), si=False)


def corrupt_si(step: Step) -> Step:
    return step._replace(si=not step.si)


CORRUPTIONS = {"subject_role": corrupt_subject_role, "voice": corrupt_voice,
               "transitivity": corrupt_transitivity, "by_phrase": corrupt_by_phrase, "si": corrupt_si}


def apply(step: Step, rules: Sequence[str]) -> Step:
    for rule in rules:
        step = CORRUPTIONS[rule](step)
    return step


class Answer(NamedTuple):
    """A candidate before realisation: its step, whether it takes the other frame, label, class."""

    step: Step
    other_frame: bool
    label: str
    error_class: str


def paper_answers(gold: Step, candidates: Sequence[Mapping], reflexive_marker: bool) -> list[Answer]:
    """The published answer set (8 candidates; 10 where the language has the reflexive-like marker)."""
    out = []
    for cand in candidates:
        if cand.get("reflexive_marker_only") and not reflexive_marker:
            continue
        out.append(Answer(apply(gold, cand["rules"]), False, cand["label"], cand["class"]))
    return out


_BASE_LABEL = {(): "Correct", ("subject_role",): "I-INT", ("si",): "E-SI", ("subject_role", "si"): "IE-SI"}


def balanced_answers(gold: Step, factors: Sequence[str], reflexive_marker: bool) -> list[Answer]:
    """Full crossing of the factors, each kept or corrupted: every value appears equally often."""
    factors = [f for f in factors if f != "si" or reflexive_marker]
    out = []
    for flags in itertools.product((False, True), repeat=len(factors)):
        chosen = [f for f, on in zip(factors, flags) if on]
        grammar_rules = tuple(f for f in chosen if f != "frame")
        step = apply(gold, grammar_rules)
        base = _BASE_LABEL[grammar_rules]
        other_frame = "frame" in chosen
        if other_frame:
            label = "FRAME" if base == "Correct" else f"FRAME+{base}"
        else:
            label = base
        cls = "CORRECT" if not chosen else ("GRAMMAR" if grammar_rules else "SEQUENCE")
        out.append(Answer(step, other_frame, label, cls))
    return out
