"""Turning a step of the sequence-of-tense template plus lexical material into a sentence.

    Se <subject> <copula> [stato] <adjective>, [<attractor>,] allora <copula> [stato] <adjective>.

The copula and participle agree with the subject in number and gender; the ``disagree`` flag puts
the consequent's copula in the other number (an agreement error inside the clause).
"""

from __future__ import annotations

from typing import NamedTuple

from builders import morphology
from builders.base import Sentence
from builders.seqtense.rules import FLIP, Step, Tenses, pattern


class Material(NamedTuple):
    """The words of a type I matrix: one subject, one adjective pair, one attractor frame."""

    subject: str        # subject id
    frame: int          # index of the (premise, consequent) adjective pair
    intro: int          # index of the attractor's introducer
    attractor_m: int    # index of the masculine attractor noun
    attractor_f: int    # index of the feminine attractor noun


def _agr(num: str, gen: str) -> str:
    """The key of an agreeing form: ms, fs, mp, fp."""
    return gen + ("s" if num == "sg" else "p")


class Realiser:
    """Builds sentences from a lexicon, the template's tense tables and a material."""

    def __init__(self, lex: dict, tenses: Tenses, tense_table: dict, with_gender: bool):
        self.lex, self.tenses, self.tense_table, self.with_gender = lex, tenses, tense_table, with_gender
        self.morph = morphology.language(lex["language"])
        self.subjects = {s["id"]: s for s in lex["subjects"]}
        self.nouns = {"m": [n for n in lex["attractors"]["nouns"] if n["gender"] == "m"],
                      "f": [n for n in lex["attractors"]["nouns"] if n["gender"] == "f"]}

    def subject_np(self, sid: str, num: str, gen: str) -> str:
        forms = self.subjects[sid][gen]
        entry = {"gender": gen, **forms}
        return self.morph.definite(entry, num)

    def verb_group(self, tense: str, num: str, gen: str, adjective: str, copula_num: str | None = None) -> str:
        """``fosse stata brava``: copula (in ``copula_num``), participle and adjective agreeing."""
        info = self.tense_table[tense]
        words = [self.lex["copula"][info["copula"]][copula_num or num]]
        form = _agr(num, gen)
        if info.get("compound"):
            words.append(self.lex["participle"][form])
        words.append(self.lex["adjectives"][adjective][form])
        return " ".join(words)

    def attractor(self, mat: Material, num: str, gen: str) -> str:
        noun = self.nouns[gen][mat.attractor_m if gen == "m" else mat.attractor_f]
        intro = self.lex["attractors"]["intros"][mat.intro]
        return self.morph.prep_phrase(intro, noun, num)

    def __call__(self, mat: Material, step: Step) -> Sentence:
        frame = self.lex["frames"][mat.frame]
        premise_tense, consequent_tense = self.tenses.premise(step), self.tenses.consequent(step)
        marker = self.lex["premise_marker"]
        chunks = [f"{marker[0].upper()}{marker[1:]} {self.subject_np(mat.subject, step.num, step.gen)}",
                  self.verb_group(premise_tense, step.num, step.gen, frame["premise"])]
        if step.attractor:
            chunks.append(self.attractor(mat, *step.attractor))
        copula_num = FLIP[step.num] if step.disagree else step.num
        chunks.append(f"{self.lex['consequent_marker']} "
                      + self.verb_group(consequent_tense, step.num, step.gen, frame["consequent"], copula_num))
        clauses = [f"{chunks[0]} {chunks[1]}", *chunks[2:]]
        text = ", ".join(clauses) + "."
        return Sentence(text, tuple(chunks), pattern(step, self.tenses, self.with_gender))
