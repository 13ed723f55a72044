"""Roll template rules: the two-paradigm sequence and the named changes that make each candidate.

A sentence is a ``Step`` of phrase slots (``NP-Agent2``, ``rollV``, ``PP-Loc1`` …). The answer is
the eighth step; every other candidate is the answer changed along the dimensions of the paper's
labels (structure, role, paradigm), declared in template.yaml rather than typed in as sentences.
"""

from __future__ import annotations

from typing import NamedTuple

STRUCTURES = ("motion", "copula", "transitive")
ROLES = ("theme", "agent", "swap")


class Step(NamedTuple):
    slots: tuple[str, ...]

    def pattern(self) -> str:
        return " ".join(self.slots)

    def paradigm(self) -> int:
        """Which paradigm's verb the sentence uses: the first one if any slot is indexed 1."""
        return 1 if any(slot.endswith("1") for slot in self.slots) else 2


def change(structure: str, role: str, paradigm: int, location: int | None = None) -> Step:
    """The answer's sentence with the given structure, role mapping and paradigm's words.

    structure: motion (THEME verb into LOC), copula (THEME was in LOC) or transitive;
    role: theme (as in the answer), agent (the agent takes the theme's place, RR) or swap
    (transitive with theme and agent exchanged, RS); ``location`` overrides the location index.
    """
    loc = f"PP-Loc{location or paradigm}"
    agent = f"NP-Agent{paradigm}"
    if structure == "transitive":
        subject, obj = ("NP-Theme", agent) if role == "swap" else (agent, "NP-Theme")
        return Step((subject, "rollV", obj))
    subject = agent if role == "agent" else "NP-Theme"
    return Step((subject, "was" if structure == "copula" else "rollV", loc))


def paper_answers(candidates: list[dict]) -> list[tuple[Step, str, str]]:
    """The published answer set: (step, label, error class), the gold first."""
    out = []
    for cand in candidates:
        if cand["class"] == "CORRECT":
            out.append((change("motion", "theme", 2), cand["label"], cand["class"]))
        else:
            out.append((change(cand["structure"], cand["role"], cand["paradigm"]), cand["label"], cand["class"]))
    return out


def balanced_answers(candidates: list[dict], balanced: dict) -> list[tuple[Step, str, str]]:
    """The answer at its own location and at ``other_locations`` locations the context does not
    use (indices 3, 4 …), plus the paper's GRAMMAR candidates named in ``balanced['grammar']``."""
    out = [(change("motion", "theme", 2), "Correct", "CORRECT")]
    for k in range(balanced["other_locations"]):
        out.append((change("motion", "theme", 2, location=3 + k), balanced["location_label"], "SEQUENCE"))
    by_label = {c["label"]: c for c in candidates}
    for label in balanced["grammar"]:
        cand = by_label[label]
        out.append((change(cand["structure"], cand["role"], cand["paradigm"]), label, cand["class"]))
    return out
