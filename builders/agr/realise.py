"""Turning a step of the agreement template plus lexical material into a sentence."""

from __future__ import annotations

from typing import NamedTuple

from builders import morphology
from builders.agr.rules import Step
from builders.base import Sentence


class Material(NamedTuple):
    """The words of one sentence: a seed, possibly with one word swapped (type II/III)."""

    seed: str
    subject: str
    prep: str
    attractor1: str
    attractor2: str
    name: str        # subject of the completive frame
    verb: str        # verb of the completive frame
    relative: str    # relative clause template with {name}
    rel_name: str


class Realiser:
    """Builds sentences from cached phrases: each noun phrase is inflected once per language."""

    def __init__(self, lex: dict):
        self.lex = lex
        self.morph = morphology.language(lex["language"])
        self.nouns = lex["nouns"]
        self._cache: dict[tuple | str, str] = {}

    def repeated(self, prep: str) -> str:
        """What a coordinated second attractor repeats of attractor 1's preposition: the language
        lists the prepositions that cannot scope over a coordination (fr ``de``: "des touristes et
        des vols"; it articulated ``della``; ro ``din`` + bare noun); others are not repeated."""
        repeats = self.lex.get("coordination_repeats", ())
        if prep in repeats:
            return prep
        last = prep.rsplit(" ", 1)[-1]
        return last if last in repeats else ""

    def phrase(self, kind: str, key: str, number: str, prep: str = "", modified: bool = False) -> str:
        cache_key = (kind, key, number, prep, modified)
        text = self._cache.get(cache_key)
        if text is None:
            noun, morph = self.nouns[key], self.morph
            if kind == "definite":
                text = morph.definite(noun, number)
            elif kind == "pp":
                text = morph.prep_phrase(prep, noun, number, modified)
            elif kind == "genitive":
                text = morph.genitive(noun, number)
            else:
                text = morph.coordinate(noun, number, prep)
            text = self._cache[cache_key] = morph.finalize(text)
        return text

    def finalized(self, text: str) -> str:
        """``finalize`` of a frame chunk (completive subject and verb, relative clause), cached: they recur."""
        out = self._cache.get(text)
        if out is None:
            out = self._cache[text] = self.morph.finalize(text)
        return out

    def __call__(self, mat: Material, step: Step, clause: str) -> Sentence:
        lex, chunks = self.lex, []
        if clause == "completive":
            chunks.append(self.finalized(f"{mat.name} {mat.verb} {lex['complementizer']}"))
        modified = (step.count == 2 and not step.coord) or (step.count == 1 and clause == "relative")
        relation = lex["seeds_by_id"][mat.seed]["relations"]["subject_attractor2"]
        if step.drop1 and relation in lex.get("possessive_relations", ()):
            # the language's natural genitive of a person for this relation: the comedian's question
            chunks.append(self.morph.finalize(self.morph.possessive(
                self.nouns[mat.subject], step.subj, self.nouns[mat.attractor2], step.n2)))
        else:
            chunks.append(self.phrase("definite", mat.subject, step.subj))
        if step.drop1:
            if relation not in lex.get("possessive_relations", ()):
                chunks.append(self.phrase("genitive", mat.attractor2, step.n2))
        else:
            chunks.append(self.phrase("pp", mat.attractor1, step.n1, mat.prep, modified))
        if step.count == 2 and step.coord:
            chunks.append(self.phrase("coord", mat.attractor2, step.n2, self.repeated(mat.prep)))
        elif step.count == 2:
            chunks.append(self.phrase("genitive", mat.attractor2, step.n2))
        if clause == "relative":
            chunks.append(self.finalized(mat.relative.format(name=mat.rel_name)))
        predicate = lex["seeds_by_id"][mat.seed]["predicate"]
        if "sg" not in predicate:
            predicate = predicate[self.nouns[mat.subject]["gender"]]
        chunks.append(predicate[step.verb])
        chunks[0] = chunks[0][0].upper() + chunks[0][1:]
        return Sentence(" ".join(chunks) + ".", tuple(chunks), step.pattern(clause))
