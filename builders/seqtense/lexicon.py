"""The SeqTense/Mixture lexicon: its schema (pydantic, LEXICON.md beside this file) and the cross-references a
schema cannot state (frames name adjectives, subjects and attractors that exist)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from builders.errors import InputError
from builders.lexicon import Checker, Entry, check_schema, load_checked
from builders.template import Strict

HERE = Path(__file__).parent
MIN_SUBJECTS, MIN_FRAMES, MIN_ATTRACTORS = 10, 8, 4


class Numbers(Strict):
    sg: str
    pl: str


class CopulaForms(Numbers):
    first_singular: str  # a plural copula equal to it ("sono") reads as "(io) sono": no agreement error

    @model_validator(mode="after")
    def _visible(self):
        if self.sg == self.pl:
            raise InputError(f"singular and plural are both {self.sg!r}: agreement would be invisible")
        return self


class Copula(Strict):
    CPas: CopulaForms
    CnPr: CopulaForms
    IFut: CopulaForms
    IPr: CopulaForms


class FourForms(Strict):
    ms: str
    fs: str
    mp: str
    fp: str

    @model_validator(mode="after")
    def _visible(self):
        if len({self.ms, self.fs, self.mp, self.fp}) < 2:
            raise InputError("all four forms are identical: agreement would be invisible")
        return self


class Subject(Strict):
    id: str
    m: Numbers
    f: Numbers
    article: str | None = None


class Frame(Strict):
    premise: str
    consequent: str
    subjects: tuple[str, ...] | None = Field(default=None, min_length=1)  # the subjects it fits (default: all)
    attractors: tuple[str, ...] | None = Field(default=None, min_length=2)  # the difficulties it concedes


class AttractorNoun(Numbers):
    gender: Literal["m", "f"]

    @model_validator(mode="after")
    def _visible(self):
        if self.sg == self.pl:
            raise InputError(f"singular and plural are both {self.sg!r}: the attractor's number would be invisible")
        return self


class Attractors(Strict):
    intros: tuple[str, ...] = Field(min_length=1)
    nouns: tuple[AttractorNoun, ...]


class SeqTenseLexicon(Strict):
    language: str
    premise_marker: str
    consequent_marker: str
    copula: Copula
    participle: FourForms
    subjects: tuple[Subject, ...] = Field(min_length=MIN_SUBJECTS)
    adjectives: dict[str, FourForms]
    frames: tuple[Frame, ...] = Field(min_length=MIN_FRAMES)
    attractors: Attractors


@functools.cache
def load(language: str) -> Entry:
    return load_checked(HERE / "lexicons" / f"{language}.yaml", check, "sequence-of-tense")


def check(lex: Entry, path: Path) -> None:
    """The schema, then what it cannot say, as LexiconError (file, line, entry, reason): the file's language,
    unique subject ids, and frames naming adjectives, subjects and attractors that exist."""
    check_schema(lex, path, SeqTenseLexicon)
    c = Checker(path)
    if lex["language"] != path.stem:
        c.fail(lex, "language", f"is {lex['language']!r} but the file is named {path.name}")
    ids = [subject["id"] for subject in lex["subjects"]]
    c.unique(lex["subjects"], "id", "subject")
    nouns = lex["attractors"]["nouns"]
    genders = {noun["sg"]: noun["gender"] for noun in nouns}
    for gender in ("m", "f"):
        if sum(noun["gender"] == gender for noun in nouns) < MIN_ATTRACTORS:
            c.fail(lex["attractors"], "attractors.nouns", f"needs at least {MIN_ATTRACTORS} nouns of gender {gender!r}")
    for i, frame in enumerate(lex["frames"]):
        entry = f"frames[{i}]"
        for role in ("premise", "consequent"):
            if frame[role] not in lex["adjectives"]:
                c.fail(frame, entry, f"{role} adjective {frame[role]!r} has no entry under 'adjectives'")
        unknown = sorted(set(frame.get("subjects") or ()) - set(ids))
        if unknown:
            c.fail(frame, entry, f"subjects {unknown} are not subject ids")
        conceded = frame.get("attractors") or ()
        unknown = sorted(set(conceded) - set(genders))
        if unknown:
            c.fail(frame, entry, f"attractors {unknown} are not attractor nouns (singular forms)")
        for gender in ("m", "f") if conceded else ():
            if not any(genders[a] == gender for a in conceded):
                c.fail(frame, entry, f"attractors: needs at least one noun of gender {gender!r}")
