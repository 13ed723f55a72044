"""Sequence-of-tense template rules: each can produce its value for a step and be corrupted.

A sentence of the matrix is a ``Step``; the gold answer is step 8 and every wrong candidate is step
8 with some named rules corrupted (RAVEN-style), so labels are derived, never typed by hand.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Literal, NamedTuple

from builders.rules import RuleBook

RULES = RuleBook("seqtense")   # shared by SeqTense and Mixture (their templates name what they use)
FLIP = {"sg": "pl", "pl": "sg", "m": "f", "f": "m", "simple": "compound", "compound": "simple"}
NUMBER_TAG = {"sg": "Sg", "pl": "Pl"}


class Facts(NamedTuple):
    """What the rules read (``Matrix.facts``): the sequence variant, and the consequents whose
    wrong-number copula is a first-person singular form: (number, period, aspect, subjunctive)."""

    variant: "Variant"
    pro_drop_ambiguous: frozenset


class Step(NamedTuple):
    """The attributes of one hypothetical sentence (and its corrupted realisation flags)."""

    num: str                  # subject number: sg | pl
    gen: str                  # subject gender: m | f
    period: str               # unreal | future | real
    aspect: str               # premise tense: simple | compound
    attractor: tuple[str, str] | None = None   # (number, gender) of the attractor noun, or none
    subjunctive: bool = False  # consequent in the subjunctive (sequence of tense broken)
    conditional: bool = False  # premise in the conditional
    disagree: bool = False     # consequent copula in the other number


@dataclass(frozen=True)
class Tenses:
    """The tense tables of the template (``periods``, ``tenses``, ``subjunctive``, ``conditional``)."""

    periods: dict
    tenses: dict
    subjunctive: dict
    conditional: dict

    def premise(self, step: Step) -> str:
        if step.conditional:
            return self.conditional[step.aspect]
        return self.periods[step.period][step.aspect][0]

    def consequent(self, step: Step) -> str:
        tense = self.periods[step.period][step.aspect][1]
        if step.subjunctive:  # the subjunctive of the same (simple or compound) tense
            return self.subjunctive["compound" if self.tenses[tense].get("compound") else "simple"]
        return tense


def pattern(step: Step, tenses: Tenses, with_gender: bool) -> str:
    """``PlF-IFutAnt | attrSgF | PlF-IFut`` as in appendix 11.1 (gender omitted when held constant)."""
    def feats(num: str, gen: str) -> str:
        return NUMBER_TAG[num] + (gen.upper() if with_gender else "")

    parts = [f"{feats(step.num, step.gen)}-{tenses.premise(step)}"]
    if step.attractor:
        parts.append("attr" + NUMBER_TAG[step.attractor[0]] + step.attractor[1].upper())
    consequent = f"{feats(step.num, step.gen)}-{tenses.consequent(step)}"
    if step.disagree:
        consequent += f"*V{NUMBER_TAG[FLIP[step.num]]}"
    parts.append(consequent)
    return " | ".join(parts)


@dataclass(frozen=True)
class Variant:
    """One sequence variant: period order, which values start, where the attractor is."""

    periods: tuple[str, str]
    number_start: str
    aspect_start: str
    aspect: tuple[str, str]          # per half, e.g. ("aabb", "abab")
    gender_start: str
    gender: str                      # "aaaa" (constant) or "aabb"
    attractor_half: int | None

    @property
    def name(self) -> str:
        return "-".join(self.periods)

    def step(self, i: int) -> Step:
        half, pos = divmod(i, 4)
        num = self.number_start if i % 2 == 0 else FLIP[self.number_start]
        gen = self.gender_start if self.gender[i % len(self.gender)] == "a" else FLIP[self.gender_start]
        aspect = self.aspect_start if self.aspect[half][pos] == "a" else FLIP[self.aspect_start]
        attractor = None
        if self.attractor_half == half:
            attractor = attractor_features(num, gen, pos)
        return Step(num, gen, self.periods[half], aspect, attractor)

    def steps(self) -> list[Step]:
        return [self.step(i) for i in range(8)]


def attractor_features(num: str, gen: str, pos: int) -> tuple[str, str]:
    """Never the subject's number; the other gender on the 1st and 3rd sentence of the half."""
    return FLIP[num], gen if pos % 2 else FLIP[gen]


def variants(sequence) -> list[Variant]:
    """Every sequence variant of a template's ``sequence`` section."""
    halves = tuple(sequence.aspect)
    out = []
    for periods in itertools.permutations(sequence.periods, 2):
        for number, aspect, gender in itertools.product(sequence.number_start, sequence.aspect_start,
                                                        sequence.gender_start):
            for half in sequence.attractor_half or [None]:
                out.append(Variant(periods, number, aspect, halves, gender, sequence.gender, half))
    return out


# --- rules: each corrupts the gold step (the last sentence of its half) -------------------------

def _follow(step: Step) -> Step:
    """The attractor, when present, keeps the template's relation to the (possibly corrupted)
    subject: never its number, its gender on the half's last sentence."""
    return step._replace(attractor=attractor_features(step.num, step.gen, 3)) if step.attractor else step


@RULES.rule("number", label="WN", error_class="SEQUENCE")
def flip_number(gold: Step, matrix) -> Step:
    """The subject (and its agreeing words) in the other number."""
    return _follow(gold._replace(num=FLIP[gold.num]))


@RULES.rule("gender", label="WG", error_class="SEQUENCE")
def flip_gender(gold: Step, matrix) -> Step:
    """The subject (and its agreeing words) in the other gender."""
    return _follow(gold._replace(gen=FLIP[gold.gen]))


@RULES.rule("aspect", label="WT", error_class="SEQUENCE")
def flip_aspect(gold: Step, matrix) -> Step:
    """The premise in the other aspect (simple <-> compound tense)."""
    return gold._replace(aspect=FLIP[gold.aspect])


@RULES.rule("period", label="WP", error_class="SEQUENCE")
def other_period(gold: Step, matrix, take: Literal["unused", "first"] = "unused") -> Step:
    """Another period type: the first half's (``take: first``) or the one the matrix never uses."""
    periods = matrix.facts.variant.periods
    if take == "first":
        return gold._replace(period=periods[0])
    return gold._replace(period=next(p for p in ("unreal", "future", "real") if p not in periods))


@RULES.rule("attractor", label="WA", error_class="SEQUENCE")
def toggle_attractor(gold: Step, matrix) -> Step:
    """The incidental attractor added where the half has none, or left out where it has one."""
    if gold.attractor:
        return gold._replace(attractor=None)
    return _follow(gold._replace(attractor=("", "")))


@RULES.rule("sequence_of_tense", label="SOT", error_class="GRAMMAR")
def subjunctive_consequent(gold: Step, matrix) -> Step:
    """The consequent in the subjunctive (*se fosse bravo, allora fosse premiato*)."""
    return gold._replace(subjunctive=True)


@RULES.rule("premise_mood", label="PCOND", error_class="GRAMMAR")
def conditional_premise(gold: Step, matrix) -> Step:
    """The premise in the conditional (*se sarebbe bravo*)."""
    return gold._replace(conditional=True)


@RULES.rule("agreement", label="AGR", error_class="GRAMMAR")
def disagreeing_copula(gold: Step, matrix) -> Step:
    """The consequent's copula in the other number than the subject."""
    return gold._replace(disagree=True)


@RULES.judge("agreement")
def visible_disagreement(step: Step, matrix) -> str | None:
    """GRAMMAR, unless the wrong copula could be a first person singular (it: *sono*): with a
    dropped subject, "… allora sono soddisfatto" is a well-formed "then I am satisfied", so the
    candidate is not generated (lexicon ``copula.<tense>.first_singular``). Judged for both
    numbers of the consequent, so a balanced set drops the agreement twin of every well-formed
    candidate alike (a twin missing for one number only would point at the other)."""
    ambiguous = matrix.facts.pro_drop_ambiguous
    if any((number, step.period, step.aspect, step.subjunctive) in ambiguous for number in ("sg", "pl")):
        return None
    return "GRAMMAR"


