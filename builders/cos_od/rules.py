"""COS/OD rules: the steps of the sequence and the named corruptions of the answer.

A sentence of the template is a ``Step`` (subject role, voice, Italian ``si``, complements and the
tense/aspect/modal frame). Every wrong candidate is the gold step with named rules corrupted
(RAVEN-style); the class of each candidate is decided by ``judge.classify`` for the sentence as
realised with this lemma's facts (builders/README.md, class policy), never typed in the template.
"""

from __future__ import annotations

from typing import NamedTuple

from builders.cos_od import judge
from builders.rules import RuleBook

OTHER = {"Agent": "Theme", "Theme": "Agent"}
COMPLEMENTS = ("NP-Agent", "NP-Theme", "by-NP-Agent", "by-NP-Theme", "P-NP", "by-NP")
# which lexical slot each complement (or the subject role) draws on
SLOT = {"Agent": "agent", "Theme": "theme", "NP-Agent": "agent", "NP-Theme": "theme",
        "by-NP-Agent": "agent", "by-NP-Theme": "theme", "P-NP": "pnp", "by-NP": "bynp"}
_SWAP = {"NP-Agent": "NP-Theme", "NP-Theme": "NP-Agent", "by-NP-Agent": "by-NP-Theme", "by-NP-Theme": "by-NP-Agent"}

RULES = RuleBook("cos_od")


class Step(NamedTuple):
    subject: str                 # Agent | Theme
    voice: str                   # active | passive
    complements: tuple[str, ...]
    si: bool = False             # reflexive-like marker (Italian)
    frame: str = ""              # tense / aspect / modal frame (verbs/<lang>.py FRAMES)

    def pattern(self) -> str:
        """``NP-Theme si ActiveV by-NP [presente]``: the papers' pattern plus the frame."""
        verb = ("si " if self.si else "") + ("ActiveV" if self.voice == "active" else "PassiveV")
        return " ".join([f"NP-{self.subject}", verb, *self.complements]) + f" [{self.frame}]"

    def slots(self) -> set[str]:
        """Lexical slots the sentence uses (agent, theme, pnp, bynp)."""
        return {SLOT[self.subject], *(SLOT[c] for c in self.complements)}


def split_pattern(pattern: str) -> tuple[str, str]:
    """``'NP-Agent ActiveV NP-Theme P-NP [past]'`` -> (structure, frame)."""
    structure, _, frame = pattern.rpartition(" [")
    return structure, frame.rstrip("]")


# --- corruptions of the gold step ---------------------------------------------------------------

@RULES.rule("subject_role", label="I-INT", error_class="GRAMMAR")
def swap_roles(step: Step, matrix) -> Step:
    """Agent <-> Theme: the subject takes the other argument, role-bearing complements too."""
    return step._replace(subject=OTHER[step.subject], complements=tuple(_SWAP.get(c, c) for c in step.complements))


@RULES.rule("voice", label="ER-PASS", error_class="SEQUENCE")
def passivise(step: Step, matrix) -> Step:
    """Passive, with the other argument as agentive by-NP (no si: no longer the intransitive)."""
    return step._replace(voice="passive", complements=(f"by-NP-{OTHER[step.subject]}",), si=False)


@RULES.rule("transitivity", label="R-TRANS", error_class="SEQUENCE")
def transitivise(step: Step, matrix) -> Step:
    """A transitive: the other argument as a bare object instead of the by-NP."""
    return step._replace(voice="active", complements=(f"NP-{OTHER[step.subject]}",), si=False)


@RULES.rule("by_phrase", label="E-WRBY", error_class="GRAMMAR")
def fill_by_phrase(step: Step, matrix) -> Step:
    """The by-NP filled with the other argument (agentive by in an intransitive; no si, 000 Table 3)."""
    return step._replace(complements=(f"by-NP-{OTHER[step.subject]}",), si=False)


@RULES.rule("si", label="E-SI", error_class="GRAMMAR")
def flip_si(step: Step, matrix) -> Step:
    """The reflexive-like si added or removed; a language without it is left unchanged (no candidate)."""
    return step._replace(si=not step.si) if matrix.facts.has_si else step


@RULES.rule("frame", label="FRAME", error_class="SEQUENCE")
def other_frame(step: Step, matrix) -> Step:
    """The answer in another frame than sentence 7 (the plan's other frame, allowed by its words)."""
    return step._replace(frame=matrix.facts.other_frame)


for _name in ("subject_role", "voice", "transitivity", "by_phrase", "si"):
    RULES.judge(_name)(judge.classify)
