"""Turning a Roll step plus the words of the two paradigms into a sentence."""

from __future__ import annotations

from typing import NamedTuple

from builders.base import Sentence
from builders.roll.lexicon import Lexicon
from builders.roll.rules import Step
from builders.sprayload import verbs

DIAGNOSTIC = "did something"   # the agentivity diagnostic: "The boy did something to the ball"


class Words(NamedTuple):
    """Indices of an instance's words: the scene, each paradigm's verb, agent and location (the
    answer-set-only locations 3, 4 … last), and the theme shared by both paradigms."""

    scene: int
    verbs: tuple[str, ...]       # (verb of paradigm 1, verb of paradigm 2)
    theme: int
    agents: tuple[int, ...]      # (paradigm 1, paradigm 2)
    locations: tuple[int, ...]   # (paradigm 1, paradigm 2, other locations …)


class Realiser:
    def __init__(self, lex: Lexicon):
        self.lex = lex

    def __call__(self, w: Words, step: Step) -> Sentence:
        scene = self.lex.scenes[w.scene]
        verb = self.lex.verbs[w.verbs[step.paradigm() - 1]]
        subject = step.slots[0]
        subject_np = scene.themes[w.theme] if subject == "NP-Theme" else scene.agents[w.agents[int(subject[-1]) - 1]]
        chunks = []
        for slot in step.slots:
            if slot == "rollV":
                chunks.append(verb.past)
            elif slot == "was":
                chunks.append(verbs.copula_past(subject_np.plural))
            elif slot == "did":
                chunks.append(DIAGNOSTIC)
            elif slot == "NP-Theme":
                chunks.append(scene.themes[w.theme].text)
            elif slot == "PP-Theme":
                chunks.append(f"to {scene.themes[w.theme].text}")
            elif slot.startswith("NP-Agent"):
                chunks.append(scene.agents[w.agents[int(slot[-1]) - 1]].text)
            elif slot.startswith("PP-Loc"):
                loc = scene.locations[w.locations[int(slot[-1]) - 1]]
                chunks.append(f"{loc.at if 'was' in step.slots else loc.to} {loc.text}")
            else:
                raise ValueError(f"unknown slot {slot!r} in {step}")
        chunks[0] = chunks[0][0].upper() + chunks[0][1:]
        return Sentence(" ".join(chunks) + ".", tuple(chunks), step.pattern())
