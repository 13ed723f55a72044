"""Roll rules: the two-paradigm sequence and the named changes that make each candidate, with judges.

A sentence is a ``Step`` of phrase slots (``NP-Agent2``, ``rollV``, ``PP-Loc1`` …); the index names
the paradigm whose words fill the slot (the theme is shared, so it has none; locations 3, 4 … are
the balanced set's locations the context does not use). The roll verb is the verb of the step's
paradigm. The answer is the eighth step; a wrong candidate is the answer with named rules changed
(Fig. 10's labels are combinations: SC = structure change, RR = role error, RS = role swap, P =
paradigm). Judges read the scene's facts (``matrix.facts``; LEXICON.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from builders.roll.lexicon import Scene
from builders.rules import RuleBook

RULES = RuleBook("roll")
# the class a candidate gets from the lexicon's judgement of its sentence (marginal: not generated)
CLASS_OF = {"natural": "SEQUENCE", "anomalous": "GRAMMAR", "marginal": None}


class Step(NamedTuple):
    slots: tuple[str, ...]

    def pattern(self) -> str:
        return " ".join(self.slots)

    def paradigm(self) -> int:
        """The paradigm whose verb the sentence uses: the first one if any slot is indexed 1."""
        return 1 if any(slot.endswith("1") for slot in self.slots) else 2


@dataclass(frozen=True)
class Facts:
    """The scene of a matrix, the verb of each paradigm, and how many unused locations it holds."""

    scene: Scene
    verbs: tuple[str, str]
    other_locations: int

    def verb(self, step: Step) -> str:
        return self.verbs[step.paradigm() - 1]


@RULES.rule("paradigm", label="P", error_class="SEQUENCE")
def first_paradigm(step: Step, matrix) -> Step:
    """The words (and verb) of the first paradigm instead of the second."""
    return Step(tuple(slot[:-1] + "1" if slot[-1] == "2" else slot for slot in step.slots))


@RULES.rule("copula", label="SC", error_class="SEQUENCE")
def copula(step: Step, matrix) -> Step:
    """Structure change: the static sentence (*was in the pool*) instead of the motion one."""
    return Step(tuple("was" if slot == "rollV" else slot for slot in step.slots))


@RULES.rule("agent_subject", label="RR", error_class="SEQUENCE")
def agent_subject(step: Step, matrix) -> Step:
    """Role error: the paradigm's agent in the theme's place (*The girl rolled into the pool*)."""
    return Step((f"NP-Agent{step.paradigm()}", *step.slots[1:]))


@RULES.judge("agent_subject")
def agent_subject_class(step: Step, matrix) -> str | None:
    """SEQUENCE where the scene says its agents can be where the theme was (*The girl was in the
    pool*) or move with this verb (*The girl rolled into the pool*), GRAMMAR where not (*The
    mechanic rotated on the axle*), not generated where that is marginal (*The sailor was around
    the pole*: 'around' also means 'near')."""
    facts = matrix.facts
    if "was" in step.slots:
        return CLASS_OF[facts.scene.agents_located]
    return CLASS_OF[facts.scene.judgement("agents_move", facts.verb(step))]


def swap_label(step: Step) -> str:
    return "PSC-RS" if step.paradigm() == 1 else "SC-RS"


@RULES.rule("role_swap", label=swap_label, error_class="GRAMMAR")
def role_swap(step: Step, matrix, paradigms: list[int] | None = None, grammar_only: bool = False):
    """Structure change with a role swap: the transitive with the theme acting on the agent (*The
    ball rolled the girl*), for the step's paradigm or each of ``paradigms``; ``grammar_only``
    keeps only the swaps that are GRAMMAR for this scene and verb (balanced twins)."""
    swaps = [Step(("NP-Theme", "rollV", f"NP-Agent{p}")) for p in (paradigms or [step.paradigm()])]
    if grammar_only:
        return [s for s in swaps if role_swap_class(s, matrix) == "GRAMMAR"]
    return swaps if paradigms else swaps[0]


@RULES.judge("role_swap")
def role_swap_class(step: Step, matrix, **params) -> str | None:
    """GRAMMAR unless the scene says its themes can move its agents with this verb (SEQUENCE) or
    that this is marginal (*The raft floated the oarsman*: kept him afloat; not generated)."""
    facts = matrix.facts
    return CLASS_OF[facts.scene.judgement("themes_move_agents", facts.verb(step))]


@RULES.rule("location", label="LOC", error_class="SEQUENCE")
def other_locations(step: Step, matrix) -> list[Step]:
    """The answer at locations of the scene that the context does not use (*The ball rolled into
    the hole*): well-formed, but the second paradigm's theme was at its own location."""
    return [Step(tuple(f"PP-Loc{3 + k}" if slot.startswith("PP-Loc") else slot for slot in step.slots))
            for k in range(matrix.facts.other_locations)]
