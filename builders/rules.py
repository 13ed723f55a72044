"""Rules of a template, declared once: name, label, error class, how they corrupt a step.

As in RAVEN's generator (``Rule.py``), a rule is an object that knows how to corrupt itself: a wrong
candidate is the gold step with named rules corrupted and carries their names, never a hand-typed
sentence. A rule may also consult the lexicon through a *judge*: for this lemma and these words, is
the corrupted sentence ungrammatical (GRAMMAR), well-formed but off the pattern (SEQUENCE), or not
an error at all (``None``: the candidate would be a second valid answer, so it is not generated).
The class policy is written in builders/README.md.

Type II/III (``hides_fillers``): the context no longer shows which noun plays which role, so a candidate
with the gold's frame and roles that differs only in which word fills a slot is a second valid answer. A
rule declared ``refills=True`` makes such a sentence whenever its judge finds it well-formed (SEQUENCE):
the framework leaves it out of type II/III answer sets (``builders.answers``); where whether the roles are
kept depends on the lemma or the template, the judge decides it from ``matrix.lexical_type``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from builders.errors import InputError
from builders.record import WRONG_CLASSES

ErrorClass = Literal["SEQUENCE", "GRAMMAR"]
FILLER_BLIND_TYPES = ("II", "III")  # lexical types whose context does not show which word fills a slot


def hides_fillers(matrix: Any) -> bool:
    """Whether the matrix's context cannot tell the solver which word fills which slot (type II/III)."""
    return getattr(matrix, "lexical_type", "") in FILLER_BLIND_TYPES

# corrupt(step, matrix, **params) -> the corrupted step, or a list of alternatives (a factor with
# several wrong values, e.g. other frames); judge(step, matrix, **params) -> class or None.
Corrupt = Callable[..., Any]
Judge = Callable[..., "ErrorClass | None"]


@dataclass(frozen=True)
class Rule:
    """One named rule of a template."""

    name: str
    label: str | Callable[[Any], str]   # a label, or a function of the corrupted step (AEN1 vs AEN2)
    error_class: ErrorClass             # what corrupting it yields unless the judge says otherwise
    corrupt: Corrupt
    judge: Judge | None = None
    doc: str = ""
    refills: bool | Callable[[Any, Any], bool] = False  # a well-formed corruption keeps the gold's frame
                                                       # and roles (or: whether it does, for step, matrix)

    def keeps_roles(self, step: Any, matrix: Any) -> bool:
        """Whether ``step``, where well-formed, is the gold's frame and roles with other fillers."""
        return self.refills(step, matrix) if callable(self.refills) else self.refills


    def label_for(self, step: Any) -> str:
        return self.label(step) if callable(self.label) else self.label

    def verdict(self, step: Any, matrix: Any, params: dict) -> ErrorClass | None:
        """The class that is true of ``step`` for this matrix's words (None: not an error here)."""
        if self.judge is None:
            return self.error_class
        verdict = self.judge(step, matrix, **params)
        if verdict is not None and verdict not in WRONG_CLASSES:
            raise InputError(f"rule {self.name}: judge returned {verdict!r}; expected SEQUENCE, GRAMMAR or None")
        return verdict


@dataclass
class RuleBook:
    """The rules of one phenomenon; templates name them, the framework applies them."""

    phenomenon: str
    rules: dict[str, Rule] = field(default_factory=dict)

    def rule(self, name: str, *, label: str | Callable[[Any], str], error_class: ErrorClass,
             refills: bool | Callable[[Any, Any], bool] = False):
        """Decorator: register ``corrupt(step, matrix, **params)`` as the rule ``name``; ``refills``: where
        its sentence is well-formed, it has the gold's frame and roles with other fillers (a second answer
        in type II/III); a function ``(step, matrix) -> bool`` where that depends on the template."""
        if error_class not in WRONG_CLASSES:
            raise InputError(f"rule {name}: error class must be SEQUENCE or GRAMMAR, got {error_class!r}")

        def register(corrupt: Corrupt) -> Corrupt:
            if name in self.rules:
                raise InputError(f"{self.phenomenon}: rule {name!r} declared twice")
            self.rules[name] = Rule(name, label, error_class, corrupt, doc=(corrupt.__doc__ or "").strip(),
                                    refills=refills)
            return corrupt

        return register

    def judge(self, name: str):
        """Decorator: ``judge(step, matrix, **params)`` decides the class of ``name``'s corruptions."""

        def register(judge: Judge) -> Judge:
            rule = self[name]
            self.rules[name] = Rule(rule.name, rule.label, rule.error_class, rule.corrupt, judge, rule.doc, rule.refills)
            return judge

        return register

    def __getitem__(self, name: str) -> Rule:
        try:
            return self.rules[name]
        except KeyError:
            raise KeyError(f"{self.phenomenon} has no rule {name!r}; its rules are: {', '.join(self.rules)}") from None

    def __contains__(self, name: object) -> bool:
        return name in self.rules

    def __iter__(self) -> Iterator[str]:
        return iter(self.rules)

    def table(self) -> list[tuple[str, str, str, str]]:
        """(name, label, class, doc) of every rule, for READMEs and cards."""
        return [(r.name, r.label if isinstance(r.label, str) else "(by step)", r.error_class, r.doc)
                for r in self.rules.values()]
