"""Agreement template rules: each can produce its value for a step and be corrupted.

A sentence of the sequence is a ``Step``; the gold answer is step 8 and every wrong candidate is
step 8 with one named rule corrupted (RAVEN-style), so labels are never typed in by hand.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import NamedTuple

FLIP = {"sg": "pl", "pl": "sg"}


class Step(NamedTuple):
    subj: str          # subject number
    verb: str          # verb number (== subj unless the agreement rule is corrupted)
    count: int         # number of attractors, 1 or 2
    n1: str            # number of attractor 1
    n2: str            # number of attractor 2
    coord: bool = False  # attractor 2 coordinated ("and the N2") instead of genitive
    drop1: bool = False  # attractor 1 left out, attractor 2 kept (the WNA candidate)

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

    def steps(self) -> list[Step]:
        return [self.step(i) for i in range(8)]


def variants(sequence: dict) -> list[Variant]:
    keys = ("subject_start", "n1_pattern", "n2_pattern")
    return [Variant(*values) for values in itertools.product(*(sequence[k] for k in keys))]


# --- corruptions of the gold step ---------------------------------------------------------------

def corrupt_count(gold: Step) -> Step:
    """Wrong number of attractors: drop attractor 1 and keep attractor 2.

    Dropping attractor 2 instead would repeat a sentence of the one-attractor half verbatim.
    """
    return gold._replace(count=1, drop1=True)


def corrupt_n1(gold: Step) -> Step:
    return gold._replace(n1=FLIP[gold.n1])


def corrupt_n2(gold: Step) -> Step:
    return gold._replace(n2=FLIP[gold.n2])


def corrupt_structure(gold: Step) -> Step:
    return gold._replace(count=2, coord=True)


def corrupt_agreement(gold: Step, agrees_with: str) -> Step:
    """The verb takes the wrong number and agrees with the named attractor (or with none)."""
    wrong = FLIP[gold.subj]
    n1 = wrong if agrees_with == "attractor1" else gold.subj
    n2 = wrong if agrees_with == "attractor2" else gold.subj
    return gold._replace(verb=wrong, n1=n1, n2=n2)


def agreement_label(step: Step) -> str:
    """Name an agreement error by the nearest noun the verb agrees with."""
    if step.count == 2 and not step.coord and step.n2 == step.verb:
        return "AEN2"
    if step.n1 == step.verb:
        return "AEN1"
    return "AEV"


def paper_answers(gold: Step, candidates: list[dict]) -> list[tuple[Step, str, str]]:
    """The published answer set: (step, label, error class) with the gold first."""
    corrupt = {
        "attractor2_structure": lambda c: corrupt_structure(gold),
        "attractor_count": lambda c: corrupt_count(gold),
        "attractor1_number": lambda c: corrupt_n1(gold),
        "attractor2_number": lambda c: corrupt_n2(gold),
        "agreement": lambda c: corrupt_agreement(gold, c["agrees_with"]),
    }
    out = []
    for cand in candidates:
        step = gold if cand["class"] == "CORRECT" else corrupt[cand["rule"]](cand)
        out.append((step, cand["label"], cand["class"]))
    return out


_FACTOR_LABEL = {"attractor_count": "WNA", "attractor1_number": "WN1", "attractor2_number": "WN2"}
_FACTOR_CORRUPT = {"attractor_count": corrupt_count, "attractor1_number": corrupt_n1,
                   "attractor2_number": corrupt_n2}


def balanced_answers(gold: Step, factors: list[str]) -> list[tuple[Step, str, str]]:
    """Full crossing of the factors, each kept or corrupted: every value appears equally often."""
    out = []
    for flags in itertools.product((False, True), repeat=len(factors)):
        step, labels = gold, []
        for factor, corrupted in zip(factors, flags):
            if not corrupted:
                continue
            if factor == "agreement":
                step = step._replace(verb=FLIP[step.subj])
            else:
                step = _FACTOR_CORRUPT[factor](step)
                labels.append(_FACTOR_LABEL[factor])
        grammatical = step.verb == step.subj
        if not grammatical:
            labels.append(agreement_label(step))
        label = "+".join(labels) or "Correct"
        cls = "CORRECT" if not labels else ("SEQUENCE" if grammatical else "GRAMMAR")
        out.append((step, label, cls))
    return out
