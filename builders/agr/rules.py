"""Agreement rules: the steps of the sequence and the named corruptions of the gold step.

A sentence of the sequence is a ``Step``; the gold answer is step 8 and every wrong candidate is
step 8 with one named rule corrupted (RAVEN-style), so labels come from the rules, never typed.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import NamedTuple

from builders.rules import RuleBook

FLIP = {"sg": "pl", "pl": "sg"}
RULES = RuleBook("agr")


class Step(NamedTuple):
    subj: str          # subject number
    verb: str          # verb number (== subj unless the agreement rule is corrupted)
    count: int         # number of attractors, 1 or 2
    n1: str            # number of attractor 1
    n2: str            # number of attractor 2
    coord: bool = False  # attractor 2 coordinated ("and the N2") instead of genitive
    drop1: bool = False  # attractor 1 left out, attractor 2 kept (the WNA candidate)

    @functools.cache  # a few dozen steps, read by every sentence
    def pattern(self, clause: str) -> str:
        parts = ["COMP"] if clause == "completive" else []
        parts.append(f"NP-{self.subj}")
        if self.drop1:
            parts.append(f"PP2-{self.n2}")
        else:
            parts.append(f"PP1-{self.n1}")
        if self.count == 2:
            parts.append(f"{'Coord-NP2' if self.coord else 'PP2'}-{self.n2}")
        if clause == "relative":
            parts.append("REL")
        parts.append(f"VP-{self.verb}")
        return " ".join(parts)


@dataclass(frozen=True)
class Variant:
    """One sequence variant of the template (which numbers start, in which phase)."""

    subject_start: str
    n1_pattern: str
    n2_pattern: str

    def step(self, i: int) -> Step:
        subj = self.subject_start if i % 2 == 0 else FLIP[self.subject_start]
        n1 = "sg" if self.n1_pattern[i % 4] == "a" else "pl"
        n2 = "sg" if self.n2_pattern[i % 4] == "a" else "pl"
        return Step(subj, subj, 1 if i < 4 else 2, n1, n2)

    def steps(self) -> tuple[Step, ...]:
        return tuple(self.step(i) for i in range(8))


def variants(subject_start, n1_pattern, n2_pattern) -> list[Variant]:
    return [Variant(*values) for values in itertools.product(subject_start, n1_pattern, n2_pattern)]


@RULES.rule("attractor2_structure", label="Coord", error_class="SEQUENCE")
def coordinate_attractor2(gold: Step, matrix) -> Step:
    """Attractor 2 coordinated with attractor 1 instead of depending on it."""
    return gold._replace(count=2, coord=True)


@RULES.rule("attractor_count", label="WNA", error_class="SEQUENCE")
def drop_attractor1(gold: Step, matrix) -> Step:
    """Wrong number of attractors: attractor 1 left out, attractor 2 kept (dropping attractor 2
    would repeat a sentence of the one-attractor half verbatim)."""
    return gold._replace(count=1, drop1=True)


@RULES.rule("attractor1_number", label="WN1", error_class="SEQUENCE")
def flip_attractor1(gold: Step, matrix) -> Step:
    """Attractor 1 in the other number."""
    return gold._replace(n1=FLIP[gold.n1])


@RULES.rule("attractor2_number", label="WN2", error_class="SEQUENCE")
def flip_attractor2(gold: Step, matrix) -> Step:
    """Attractor 2 in the other number."""
    return gold._replace(n2=FLIP[gold.n2])


def agreement_label(step: Step) -> str:
    """Name an agreement error by the nearest noun whose number the wrong verb matches."""
    if step.count == 2 and not step.coord and step.n2 == step.verb:
        return "AEN2"
    if not step.drop1 and step.n1 == step.verb:
        return "AEN1"
    return "AEV"


@RULES.rule("agreement", label=agreement_label, error_class="GRAMMAR")
def break_agreement(gold: Step, matrix) -> Step:
    """The verb in the other number than its subject (nothing else changes)."""
    return gold._replace(verb=FLIP[gold.subj])
