"""Sequence-of-tense template rules: each can produce its value for a step and be corrupted.

A sentence of the matrix is a ``Step``; the gold answer is step 8 and every wrong candidate is step
8 with some named rules corrupted (RAVEN-style), so labels are derived, never typed by hand.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import NamedTuple

FLIP = {"sg": "pl", "pl": "sg", "m": "f", "f": "m", "simple": "compound", "compound": "simple"}
NUMBER_TAG = {"sg": "Sg", "pl": "Pl"}


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


def variants(sequence: dict) -> list[Variant]:
    halves = tuple(sequence["aspect"])
    out = []
    for periods in itertools.permutations(sequence["periods"], 2):
        for number, aspect, gender in itertools.product(sequence["number_start"], sequence["aspect_start"],
                                                        sequence["gender_start"]):
            for half in sequence["attractor_half"] or [None]:
                out.append(Variant(periods, number, aspect, halves, gender, sequence["gender"], half))
    return out


# --- corruptions of the gold step ---------------------------------------------------------------

def corrupt(gold: Step, variant: Variant, rules: list[str], period_mode: str = "unused") -> Step:
    """The gold step with each named rule corrupted."""
    step = gold
    for rule in rules:
        if rule == "number":
            step = step._replace(num=FLIP[step.num])
        elif rule == "gender":
            step = step._replace(gen=FLIP[step.gen])
        elif rule == "aspect":
            step = step._replace(aspect=FLIP[step.aspect])
        elif rule == "period":
            step = step._replace(period=_wrong_period(variant, period_mode))
        elif rule == "attractor":
            step = step._replace(attractor=None if step.attractor else ("", ""))
        elif rule == "sequence_of_tense":
            step = step._replace(subjunctive=True)
        elif rule == "premise_mood":
            step = step._replace(conditional=True)
        elif rule == "agreement":
            step = step._replace(disagree=True)
        else:
            raise ValueError(f"unknown rule {rule!r}")
    if step.attractor is not None:  # the attractor follows the (possibly corrupted) subject
        step = step._replace(attractor=attractor_features(step.num, step.gen, 3))
    return step


def _wrong_period(variant: Variant, mode: str) -> str:
    if mode == "first":
        return variant.periods[0]
    unused = [p for p in ("unreal", "future", "real") if p not in variant.periods]
    return unused[0]


def label_and_class(rules: list[str], rule_table: dict) -> tuple[str, str]:
    if not rules:
        return "Correct", "CORRECT"
    label = "+".join(rule_table[r]["label"] for r in rules)
    grammar = any(rule_table[r]["class"] == "GRAMMAR" for r in rules)
    return label, "GRAMMAR" if grammar else "SEQUENCE"


def paper_answers(gold: Step, variant: Variant, candidates: list[dict], rule_table: dict):
    """The published answer set: (step, label, error class) with the gold first."""
    out = []
    for cand in candidates:
        rules = list(cand["corrupt"])
        step = corrupt(gold, variant, rules, cand.get("period", "unused"))
        out.append((step, *label_and_class(rules, rule_table)))
    return out


def balanced_answers(gold: Step, variant: Variant, balanced: dict, rule_table: dict):
    """Full crossing of the factors, each kept or corrupted: every value appears equally often."""
    factors = balanced["factors"]
    out = []
    for flags in itertools.product((False, True), repeat=len(factors)):
        rules = [f for f, on in zip(factors, flags) if on]
        step = corrupt(gold, variant, rules, balanced.get("period", "unused"))
        out.append((step, *label_and_class(rules, rule_table)))
    return out
