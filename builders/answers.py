"""Answer sets built by the framework from the template's declarations and the rule book.

Paper set: the gold step and, for each declared candidate, the gold with its rules corrupted in
order. Balanced set (SPEC §6): the full crossing of the declared factors, each kept or corrupted
(a factor with several wrong values contributes each of them), so every attribute value appears
equally often among the candidates. Labels come from the rules; the class of a candidate is
GRAMMAR if any of its rules judges the sentence ungrammatical for this lemma, else SEQUENCE; a
candidate that one of its rules judges not to be an error here (a second valid answer, or a
corruption that changes nothing) is left out, and so is, in type II/III, a well-formed candidate all
of whose rules refill the gold's slots (``Rule.refills``): its context cannot tell it from the gold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from builders.record import GOLD_CLASS, GOLD_LABEL
from builders.rules import RuleBook, hides_fillers
from builders.template import BalancedDecl, CandidateDecl, RuleRef


@dataclass(frozen=True)
class Answer:
    """A candidate before realisation: its step, label, error class and the rules it corrupts."""

    step: Any
    label: str
    error_class: str
    rules: tuple[str, ...] = ()


def _alternatives(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _judged(step: Any, refs: Sequence[RuleRef], book: RuleBook, matrix: Any,
            label: str | None) -> Answer | None:
    """The candidate ``step`` with its label and class, or None when a rule is not broken here."""
    classes = []
    for ref in refs:
        verdict = book[ref.name].verdict(step, matrix, ref.params)
        if verdict is None:
            return None
        classes.append(verdict)
    if "GRAMMAR" not in classes and hides_fillers(matrix) and all(book[ref.name].keeps_roles(step, matrix) for ref in refs):
        return None  # the gold's frame and roles with other fillers: a second answer where fillers are hidden
    if label is None:
        label = "+".join(book[ref.name].label_for(step) for ref in refs)
    return Answer(step, label, "GRAMMAR" if "GRAMMAR" in classes else "SEQUENCE", tuple(r.name for r in refs))


def paper_answers(gold: Any, decls: Sequence[CandidateDecl], book: RuleBook, matrix: Any) -> list[Answer]:
    """The gold first, then one candidate per declaration that is a real error for these words."""
    out, seen = [Answer(gold, GOLD_LABEL, GOLD_CLASS)], {gold}
    for decl in decls:
        steps = [gold]
        for ref in decl.rules:
            steps = [alt for step in steps for alt in _alternatives(book[ref.name].corrupt(step, matrix, **ref.params))]
        for step in steps:
            if step in seen:
                continue
            answer = _judged(step, decl.rules, book, matrix, decl.label)
            if answer is not None:
                seen.add(step)
                out.append(answer)
    return out


def balanced_answers(gold: Any, declared: BalancedDecl | Sequence[RuleRef], book: RuleBook,
                     matrix: Any) -> list[Answer]:
    """The full crossing of the factors (each kept, or corrupted to each of its wrong values),
    keeping a well-formed candidate only where ``wellformed_from`` allows it."""
    if not isinstance(declared, BalancedDecl):
        declared = BalancedDecl(factors=tuple(declared))
    partial: list[tuple[Any, tuple[RuleRef, ...]]] = [(gold, ())]
    for ref in declared.factors:
        grown = []
        for step, applied in partial:
            grown.append((step, applied))
            for alt in _alternatives(book[ref.name].corrupt(step, matrix, **ref.params)):
                grown.append((alt, (*applied, ref)))
        partial = grown
    out, seen = [], set()
    for step, applied in partial:
        if step in seen:
            continue
        if not applied:
            answer = Answer(gold, GOLD_LABEL, GOLD_CLASS)
        else:
            answer = _judged(step, applied, book, matrix, None)
            if answer is None or step == gold:
                continue
            allowed = declared.wellformed_from
            if answer.error_class != "GRAMMAR" and allowed is not None and not set(answer.rules) <= set(allowed):
                continue
            answer = replace(answer, label=declared.labels.get(answer.label, answer.label))
        seen.add(step)
        out.append(answer)
    return out
