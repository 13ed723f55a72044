"""Turning a Roll step plus the words of the two paradigms into a sentence."""

from __future__ import annotations

from typing import Callable, NamedTuple

from builders.base import Sentence
from builders.errors import InputError
from builders.roll.lexicon import Lexicon
from builders.roll.rules import Step
from builders.morphology import en as forms

DIAGNOSTIC = "did something"   # the agentivity diagnostic: "The boy did something to the ball"


class Words(NamedTuple):
    """Indices of an instance's words: the scene, each paradigm's verb, agent and location (the
    answer-set-only locations 3, 4 … last), and the theme shared by both paradigms."""

    scene: int
    verbs: tuple[str, ...]       # (verb of paradigm 1, verb of paradigm 2)
    theme: int
    agents: tuple[int, ...]      # (paradigm 1, paradigm 2)
    locations: tuple[int, ...]   # (paradigm 1, paradigm 2, the balanced set's other locations …)


class Realiser:
    """Compiles each step once into chunk makers over the scene's words."""

    def __init__(self, lex: Lexicon):
        self.lex = lex
        self._recipes: dict[Step, tuple[list[Callable[[Words], str]], str]] = {}

    def _compile(self, step: Step) -> tuple[list[Callable[[Words], str]], str]:
        scenes, past = self.lex.scenes, {lemma: v.past for lemma, v in self.lex.verbs.items()}
        paradigm = step.paradigm() - 1
        static = "was" in step.slots
        subject = step.slots[0]

        def subject_np(w: Words):
            scene = scenes[w.scene]
            return scene.themes[w.theme] if subject == "NP-Theme" else scene.agents[w.agents[int(subject[-1]) - 1]]

        makers: list[Callable[[Words], str]] = []
        for slot in step.slots:
            if slot == "rollV":
                makers.append(lambda w: past[w.verbs[paradigm]])
            elif slot == "was":
                makers.append(lambda w: forms.copula_past(subject_np(w).plural))
            elif slot == "did":
                makers.append(lambda w: DIAGNOSTIC)
            elif slot == "NP-Theme":
                makers.append(lambda w: scenes[w.scene].themes[w.theme].text)
            elif slot == "PP-Theme":
                makers.append(lambda w: "to " + scenes[w.scene].themes[w.theme].text)
            elif slot.startswith("NP-Agent"):
                makers.append(lambda w, i=int(slot[-1]) - 1: scenes[w.scene].agents[w.agents[i]].text)
            elif slot.startswith("PP-Loc"):
                def location(w: Words, i=int(slot[-1]) - 1) -> str:
                    loc = scenes[w.scene].locations[w.locations[i]]
                    return f"{loc.at if static else loc.to} {loc.text}"
                makers.append(location)
            else:
                raise InputError(f"unknown slot {slot!r} in {step}")
        self._recipes[step] = (makers, step.pattern())
        return self._recipes[step]

    def __call__(self, w: Words, step: Step) -> Sentence:
        makers, pattern = self._recipes.get(step) or self._compile(step)
        chunks = [make(w) for make in makers]
        chunks[0] = chunks[0][0].upper() + chunks[0][1:]
        return Sentence(" ".join(chunks) + ".", tuple(chunks), pattern)
