"""What every phenomenon generator shares: config specs, realised sentences and instances.

A generator works in two stages so that generation can be split across processes:
``plan`` (cheap, deterministic choices: which seed, which sequence variant, which words) and
``realise`` (turn one plan into sentences). The answer set is produced by corrupting named rules
of the template; every candidate carries its rule label and error class.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Hashable, Sequence

LEXICAL_TYPES = ("I", "II", "III")


@dataclass(frozen=True)
class ConfigSpec:
    """One dataset config: phenomenon × language × template variant × lexical type (± balanced)."""

    phenomenon: str
    language: str
    lexical_type: str
    variant: str = ""
    balanced: bool = False

    @property
    def iso(self) -> str:
        """ISO 639-1 code of the language (``de-case`` -> ``de``), as written in the records."""
        return self.language.split("-")[0]

    @property
    def name(self) -> str:
        parts = [self.phenomenon, self.language.replace("-", "")]
        if self.variant:
            parts.append(self.variant)
        parts.append(f"type{self.lexical_type}")
        if self.balanced:
            parts.append("balanced")
        return "_".join(parts)


@dataclass(frozen=True)
class Sentence:
    """A realised sentence with its phrase chunks and abstract pattern."""

    text: str
    chunks: tuple[str, ...]
    pattern: str


@dataclass(frozen=True)
class Candidate:
    sentence: Sentence
    label: str
    error_class: str  # CORRECT | SEQUENCE | GRAMMAR


@dataclass
class Instance:
    """A BLM instance before shuffling: ``candidates[0]`` is the gold answer."""

    context: list[Sentence]
    candidates: list[Candidate]
    lemma: str
    template: str
    meta: dict[str, Any] = field(default_factory=dict)


class ImpossibleSize(ValueError):
    """More instances were requested than the lexicon and template can produce.

    ``asked`` and ``possible`` are instance counts; ``exhausted`` means ``possible`` is what a random
    draw found before it stopped finding new instances (a lower bound, not the exact total).
    """

    def __init__(self, what: str, asked: int | None = None, possible: int | None = None,
                 exhausted: bool = False, hint: str = "", message: str | None = None):
        self.what, self.asked, self.possible, self.exhausted, self.hint = what, asked, possible, exhausted, hint
        if message is not None:
            message = message
        elif asked is None:
            message = what
        elif exhausted:
            message = (f"{what}: found only {possible} distinct instances of the {asked} asked "
                       f"({MAX_MISSES_NOTE} in a row gave nothing new)")
        else:
            message = f"{what}: asked for {asked} instances, the template and lexicon allow at most {possible}"
        super().__init__(message + (f"; {hint}" if hint else ""))


MAX_MISSES_NOTE = "20000 draws"


class SourceUnavailable(ValueError):
    """A corpus-based config has no readable source files (pass them with ``--sources``)."""


class GeneratorBug(RuntimeError):
    """A generated instance failed a check: the generator, not the user, is wrong."""

    def __init__(self, config: str, failures: Sequence[str], record: dict[str, Any]):
        self.config, self.failures, self.record = config, list(failures), record
        lines = [f"{config}: generated instance {record.get('id')} fails {', '.join(failures)} "
                 "(a generator bug: please report it with this instance)"]
        for i, sentence in enumerate(record.get("context", []), 1):
            lines.append(f"  {i}. {sentence}")
        for i, answer in enumerate(record.get("answers", [])):
            labels, classes = record.get("answer_labels", []), record.get("answer_error_classes", [])
            tag = f"{labels[i]} ({classes[i]})" if i < len(labels) and i < len(classes) else ""
            lines.append(f"  {'*' if i == record.get('label') else ' '}{chr(65 + i)}. {answer}  {tag}")
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class Matrix:
    """A planned instance before realisation: the template's steps and the words of each sentence.

    ``steps`` has context_size + 1 entries (the last one is the gold step); ``words[i]`` is what the
    phenomenon's ``sentence`` needs to realise step i (``words[-1]`` serves every candidate);
    ``facts`` is what rule judges may consult (the lexicon entry of the lemma, plan-level choices
    such as the balanced set's other frames).
    """

    template: str
    steps: tuple
    words: tuple
    lemma: str
    facts: Any = None


class Generator:
    """Base class of a phenomenon generator; subclasses fill in the class attributes and hooks."""

    phenomenon: ClassVar[str]
    description: ClassVar[str] = ""
    context_size: ClassVar[int]
    lexical_types: ClassVar[tuple[str, ...]] = LEXICAL_TYPES
    variants: ClassVar[tuple[str, ...]] = ("",)  # template variants that appear in config names
    test_lemma_fraction: ClassVar[float] = 0.1
    min_test_lemmas: ClassVar[int] = 1
    has_balanced: ClassVar[bool] = True
    type_i_min_jaccard: ClassVar[float] = 0.3  # validator: type I sentences share their words

    def __init__(self, language: str):
        self.language = language

    # --- discovery -------------------------------------------------------------------------
    @classmethod
    def directory(cls) -> Path:
        import importlib

        return Path(importlib.import_module(cls.__module__).__file__).parent

    @classmethod
    def languages(cls) -> list[str]:
        """Languages are the lexicon files present: adding one adds the language."""
        return sorted(p.stem for p in (cls.directory() / "lexicons").glob("*.yaml"))

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

    def read_template(self, check=None):
        """The package's template.yaml, schema-checked, with its test share of lemmas applied."""
        from builders.lexicon import load_yaml

        path = self.directory() / "template.yaml"
        template = load_yaml(path)
        if check is not None:
            check(template, path)
        self.test_lemma_fraction = template.get("test_lemma_fraction", self.test_lemma_fraction)
        return template

    # --- hooks -----------------------------------------------------------------------------
    def configure(self, spec: ConfigSpec, options) -> None:
        """Read generation options before planning (e.g. ``options.sources``: corpus files)."""
    def default_size(self, spec: ConfigSpec) -> int:
        raise NotImplementedError

    def lemmas(self, spec: ConfigSpec) -> list[str]:
        """The split units (verbs, seeds …); test lemmas never occur in train by default."""
        raise NotImplementedError

    def split_lemmas(self, lemmas: Sequence[str], n_test: int, rng: random.Random) -> list[str]:
        """Choose the test lemmas (shared by every lexical type and variant of a language)."""
        order = list(lemmas)
        rng.shuffle(order)
        return order[:n_test]

    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        """``n`` distinct plans drawn from ``lemmas``; raise ImpossibleSize when there are fewer."""
        raise NotImplementedError

    def realise(self, spec: ConfigSpec, plan: Hashable) -> Instance:
        raise NotImplementedError

    def next_patterns(self, spec: ConfigSpec, template: str, context_patterns: Sequence[str]) -> set[str]:
        """Patterns the template allows as the next step after ``context_patterns`` (validator)."""
        raise NotImplementedError


MAX_MISSES = 20_000  # consecutive draws without a new instance before a generator gives up


def draw_distinct(draw: Callable[[], Hashable | None], n: int, what: str,
                  key: Callable[[Hashable], Hashable] = lambda plan: plan) -> list[Hashable]:
    """``n`` plans with distinct keys from a random ``draw`` (None = a failed draw), or a clear error."""
    plans, seen, misses = [], set(), 0
    while len(plans) < n:
        plan = draw()
        plan_key = key(plan) if plan is not None else None
        if plan is not None and plan_key not in seen:
            seen.add(plan_key)
            plans.append(plan)
            misses = 0
        else:
            misses += 1
            if misses > MAX_MISSES:
                raise ImpossibleSize(f"{what}: found only {len(plans)} distinct instances of the {n} asked "
                                     f"({MAX_MISSES} draws in a row gave nothing new)")
    return plans


def disjoint_lemmas(lemmas: Sequence[str], n: int, rng: random.Random,
                    stems: Callable[[str], frozenset[str]]) -> list[str]:
    """``n`` lemmas chosen greedily so their words share no content stem (type III needs them)."""
    order = list(lemmas)
    rng.shuffle(order)
    chosen, used = [], set()
    for lemma in order:
        if not stems(lemma) & used:
            chosen.append(lemma)
            used |= stems(lemma)
        if len(chosen) == n:
            return chosen
    return (chosen + [lemma for lemma in order if lemma not in chosen])[:n]


def sample_distinct(space_size: int, n: int, rng: random.Random, what: str) -> list[int]:
    """``n`` distinct indices of a finite space, or a clear error when the space is too small."""
    if n > space_size:
        raise ImpossibleSize(f"{what}: asked for {n} instances, the combinatorics allow only {space_size}")
    return rng.sample(range(space_size), n)
