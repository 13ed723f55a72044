"""The generator framework: what every phenomenon shares, and the few hooks it fills in.

The framework owns the BLM logic: the template (schema-checked), the rule book, the answer sets
(paper and balanced, built from the declared candidates), the class of every candidate, and the
continuation table the validator uses (``next_patterns``, derived from the declared sequences).
A phenomenon supplies its lexicons, a planner (which words, which sequence; type II / III contexts
through ``builders.planning``, which draws and checks them) and ``sentence`` (step + words -> text,
chunks, pattern). builders/README.md shows how to add one.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import random
from collections.abc import Hashable, Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from builders import template as templates
from builders.answers import Answer, balanced_answers, paper_answers
from builders.base import LEXICAL_TYPES, Candidate, ConfigSpec, Instance, Matrix, Sentence
from builders.errors import InputError
from builders.lexicon import LexiconError
from builders.rules import RuleBook

# realised sentences kept per generator (cleared when full): enough for every sentence of a type I config and the
# recurring ones of type II/III, small enough that generation memory stays flat in --size (README, Speed)
SENTENCE_CACHE = 1 << 15


class _FromTemplate:
    """A class-level attribute read from the phenomenon's template (``Generator.description``)."""

    def __init__(self, field: str):
        self.field = field

    def __get__(self, instance, owner) -> Any:
        return getattr(owner.load_template(), self.field)


class Generator:
    """Base class of a phenomenon generator; subclasses set the class attributes and fill the hooks."""

    description = _FromTemplate("description")

    phenomenon: ClassVar[str]
    rules: ClassVar[RuleBook]
    template_model: ClassVar[type[templates.TemplateBase]] = templates.Template
    lexical_types: ClassVar[tuple[str, ...]] = LEXICAL_TYPES
    variants: ClassVar[tuple[str, ...]] = ("",)  # template variants that appear in config names
    min_test_lemmas: ClassVar[int] = 1
    has_balanced: ClassVar[bool] = True

    def __init__(self, language: str):
        self.language = language
        self.template = self.load_template()
        self._answer_cache: dict = {}
        self._sentence_cache: dict = {}

    # --- discovery -------------------------------------------------------------------------
    @classmethod
    def directory(cls) -> Path:
        return Path(importlib.import_module(cls.__module__).__file__).parent

    @classmethod
    def template_path(cls) -> Path:
        """``<package>/<phenomenon>.yaml`` when the package serves several phenomena, else template.yaml."""
        own = cls.directory() / f"{cls.phenomenon}.yaml"
        return own if own.exists() else cls.directory() / "template.yaml"

    @classmethod
    @functools.cache
    def load_template(cls) -> templates.TemplateBase:
        path = cls.template_path()
        template = templates.load(path, cls.template_model)
        templates.check_rules(template, cls.rules.rules, path)
        if template.phenomenon != cls.phenomenon:
            raise templates.LexiconError(path, None, "phenomenon",
                                         f"is {template.phenomenon!r}, but the generator is {cls.phenomenon!r}")
        return template

    @classmethod
    def lexicon_dir(cls) -> Path:
        return cls.directory() / "lexicons"

    @classmethod
    def languages(cls) -> list[str]:
        """Languages are the lexicon files present: adding one adds the language."""
        return sorted(p.stem for p in cls.lexicon_dir().glob("*.yaml"))

    @classmethod
    def specs(cls) -> list[ConfigSpec]:
        out = []
        for language in cls.languages():
            for variant in cls.variants:
                for lexical_type in cls.lexical_types:
                    for balanced in (False, True) if cls.has_balanced else (False,):
                        out.append(ConfigSpec(cls.phenomenon, language, lexical_type, variant, balanced))
        return out

    @classmethod
    def data_files(cls) -> list[Path]:
        """Templates and lexicons whose content keys the dataset cache."""
        return sorted(p for p in cls.directory().rglob("*") if p.suffix in {".yaml", ".tsv", ".conllu", ".txt"})

    @property
    def context_size(self) -> int:
        return self.template.context_size

    @property
    def type_i_min_jaccard(self) -> float:
        return self.template.type_i_min_jaccard

    # --- hooks of the phenomenon -----------------------------------------------------------
    def configure(self, spec: ConfigSpec, options: Any) -> None:
        """Read generation options before planning (e.g. ``options.sources``: corpus files)."""

    def default_size(self, spec: ConfigSpec) -> int:
        return self.template.sizes[spec.lexical_type]

    def lemmas(self, spec: ConfigSpec) -> list[str]:
        """The split units (verbs, seeds …); test lemmas never occur in train by default."""
        raise NotImplementedError

    def test_fraction(self, spec: ConfigSpec) -> float:
        """The share of lemmas held out for test: the template's ``test_lemma_fraction``, or its value for the
        config's variant."""
        share = self.template.test_lemma_fraction
        if not isinstance(share, dict):
            return share
        if spec.variant not in share:
            raise LexiconError(self.template_path(), None, "test_lemma_fraction",
                               f"has no share for variant {spec.variant!r}; give one per variant")
        return share[spec.variant]

    def split_lemmas(self, spec: ConfigSpec, lemmas: Sequence[str], n_test: int, rng: random.Random) -> list[str]:
        """Choose the test lemmas (shared by every lexical type and variant of a language)."""
        order = list(lemmas)
        rng.shuffle(order)
        return order[:n_test]

    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        """``n`` distinct plans drawn from ``lemmas`` (builders.sampling); the same for a config and
        its ``_balanced`` twin (the pipeline gives both the same rng)."""
        raise NotImplementedError

    def plan_bound(self, spec: ConfigSpec, lemmas: Sequence[str]) -> int | None:
        """An upper bound on the distinct plans ``plan`` can draw from ``lemmas``, counted from the lexicon without
        drawing: a larger size is refused at once (builders.size_bound). None where ``plan`` needs none (a product
        space, whose ``sample`` refuses a size beyond it before drawing)."""
        return None

    def matrix(self, spec: ConfigSpec, plan: Hashable) -> Matrix:
        """The steps and words of a plan (cheap; realisation is ``sentence``'s job)."""
        raise NotImplementedError

    def sentence(self, words: Any, step: Any, template: str) -> Sentence:
        """One sentence: the step realised with the words."""
        raise NotImplementedError

    def sequences(self) -> Iterable[tuple[str, Sequence[Any]]]:
        """Every sequence the template declares: (template name, context_size + 1 steps)."""
        raise NotImplementedError

    def pattern(self, step: Any, template: str) -> str:
        """The abstract pattern of a step (what the validator compares)."""
        raise NotImplementedError

    # --- what the framework does -----------------------------------------------------------
    def answers(self, matrix: Matrix, balanced: bool) -> list[Answer]:
        """The answer set of a matrix (gold first), built from the template's declarations; cached
        by what it depends on (gold step, template, facts) when the facts are hashable."""
        # judges read only the gold step, the template and matrix.facts (never matrix.words): so cached
        key = (balanced, matrix.steps[-1], matrix.template, matrix.facts, matrix.lexical_type)
        try:
            return self._answer_cache[key]
        except KeyError:
            pass
        except TypeError:  # unhashable facts: no caching
            return self._answers(matrix, balanced)
        if len(self._answer_cache) > 1 << 16:
            self._answer_cache.clear()
        answers = self._answer_cache[key] = self._answers(matrix, balanced)
        return answers

    def _answers(self, matrix: Matrix, balanced: bool) -> list[Answer]:
        gold, declared = matrix.steps[-1], self.declared_answers(matrix.template)
        if balanced:
            return balanced_answers(gold, declared.balanced, self.rules, matrix)
        return paper_answers(gold, declared.paper, self.rules, matrix)

    def declared_answers(self, template: str) -> templates.AnswersDecl:
        """The answer sets a template variant declares (one for all unless a phenomenon says otherwise)."""
        return self.template.answers

    def realised(self, words: Any, step: Any, template: str) -> Sentence:
        """``sentence`` cached per (words, step, template): a sentence recurs across instances and
        twins (unhashable words are realised every time)."""
        key = (words, step, template)
        try:
            return self._sentence_cache[key]
        except KeyError:
            pass
        except TypeError:
            return self.sentence(words, step, template)
        if len(self._sentence_cache) > SENTENCE_CACHE:
            self._sentence_cache.clear()
        sentence = self._sentence_cache[key] = self.sentence(words, step, template)
        return sentence

    def context(self, matrix: Matrix) -> list[Sentence]:
        n = self.context_size
        return [self.realised(matrix.words[i], matrix.steps[i], matrix.template) for i in range(n)]

    def candidates(self, matrix: Matrix, balanced: bool) -> list[Candidate]:
        words = matrix.words[-1]
        return [Candidate(self.realised(words, a.step, matrix.template), a.label, a.error_class)
                for a in self.answers(matrix, balanced)]

    def typed_matrix(self, spec: ConfigSpec, plan: Hashable) -> Matrix:
        """The plan's matrix with the config's lexical type, which judges read (``builders.rules.hides_fillers``)."""
        return dataclasses.replace(self.matrix(spec, plan), lexical_type=spec.lexical_type)

    def realise(self, spec: ConfigSpec, plan: Hashable) -> Instance:
        matrix = self.typed_matrix(spec, plan)
        return Instance(self.context(matrix), self.candidates(matrix, spec.balanced), matrix.lemma, matrix.template)

    def realise_twins(self, spec: ConfigSpec, plan: Hashable) -> tuple[Instance, Instance]:
        """The paper instance and its ``_balanced`` twin, sharing one realised context."""
        matrix = self.typed_matrix(spec, plan)
        context = self.context(matrix)
        return (Instance(context, self.candidates(matrix, False), matrix.lemma, matrix.template),
                Instance(context, self.candidates(matrix, True), matrix.lemma, matrix.template))

    def next_patterns(self, spec: ConfigSpec, template: str, context_patterns: Sequence[str]) -> set[str]:
        """Patterns the template allows as the answer after this context (for the validator)."""
        return set(self._continuations().get((template, tuple(context_patterns)), ()))

    @functools.cache
    def _continuations(self) -> dict[tuple[str, tuple[str, ...]], frozenset[str]]:
        n, table = self.context_size, {}
        for name, steps in self.sequences():
            if len(steps) != n + 1:
                raise InputError(f"{self.phenomenon} template {name}: a sequence has {len(steps)} steps; "
                                 f"context_size is {n}, so it needs {n + 1}")
            patterns = tuple(self.pattern(step, name) for step in steps)
            key = (name, patterns[:n])
            table[key] = table.get(key, frozenset()) | {patterns[n]}
        return table
