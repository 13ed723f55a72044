"""The data types every generator shares: config specs, planned matrices, realised sentences and
instances, and the errors of generation (the framework itself is builders/generator.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from builders.errors import InputError

CONFIG_NAME = re.compile(r"^(?P<phenomenon>[a-z]+)_(?P<language>[a-z]+)(?:_(?P<variant>[a-z0-9]+))?"
                         r"_type(?P<type>I|II|III)(?P<balanced>_balanced)?$")

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
        return "_".join([self.family, f"type{self.lexical_type}", *(["balanced"] if self.balanced else [])])

    @property
    def family(self) -> str:
        """The name without lexical type and balance: ``cosplus_decase_t2i`` (its types are one family)."""
        return "_".join([self.phenomenon, self.language.replace("-", ""), *([self.variant] if self.variant else [])])

    @property
    def paper_name(self) -> str:
        """The name of the paper's answer sets: the ``_balanced`` twin's pair."""
        return self.name.removesuffix("_balanced")

    @classmethod
    def parse(cls, name: str) -> ConfigSpec | None:
        """The parts of any well-formed config name, registered or not (an imported config): None when it is not
        ``{phenomenon}_{language}[_{variant}]_type{I|II|III}[_balanced]``. A registered config's own spec is
        ``registry.get_spec``; this reads the name alone (a hyphenated language such as de-case stays decase)."""
        found = CONFIG_NAME.match(name)
        if found is None:
            return None
        return cls(found["phenomenon"], found["language"], found["type"], found["variant"] or "",
                   bool(found["balanced"]))


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


class ImpossibleSize(InputError):
    """More instances were requested than the lexicon and template can produce.

    ``asked`` and ``possible`` are instance counts; ``exhausted`` means ``possible`` is what a random
    draw found before it stopped finding new instances (a lower bound, not the exact total);
    ``upper_bound`` means ``possible`` was counted from the lexicon before drawing (builders.size_bound):
    no more can exist, fewer may be found.
    """

    def __init__(self, what: str, asked: int | None = None, possible: int | None = None,
                 exhausted: bool = False, hint: str = "", message: str | None = None, upper_bound: bool = False):
        self.what, self.asked, self.possible, self.exhausted, self.hint = what, asked, possible, exhausted, hint
        self.upper_bound = upper_bound
        if message is not None:
            message = message
        elif asked is None:
            message = what
        elif upper_bound:
            message = (f"{what}: asked for {asked} instances, the lexicon allows at most {possible} "
                       "(an upper bound counted before drawing)")
        elif exhausted:
            message = (f"{what}: found only {possible} distinct instances of the {asked} asked "
                       f"({MAX_MISSES_NOTE} in a row gave nothing new)")
        else:
            message = f"{what}: asked for {asked} instances, the template and lexicon allow at most {possible}"
        super().__init__(message + (f"; {hint}" if hint else ""))


MAX_MISSES_NOTE = "20000 draws"


class SourceUnavailable(InputError):
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
    such as the balanced set's other frames); ``lexical_type`` is the config's (I, II, III), set by the
    framework before the answers are built, so that judges can tell whether the context shows which word
    fills which slot (``builders.rules.hides_fillers``).
    """

    template: str
    steps: tuple
    words: tuple
    lemma: str
    facts: Any = None
    lexical_type: str = ""
