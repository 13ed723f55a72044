"""The COS+ lexicon: its schema (pydantic, LEXICON.md beside this file), the cross-references a schema cannot
state (patients that exist, nouns as the language's morphology wants them), and the Lexicon the generator reads."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from builders import morphology
from builders.errors import InputError
from builders.lexicon import Checker, Entry, check_schema, load_checked, load_yaml
from builders.lexicon_schema import Section, Text, Words

HERE = Path(__file__).parent
MIN_AGENTS, MIN_VERBS, MIN_PATIENTS = 60, 25, 20


class Article(Section):
    sg: Text


class Noun(Section):
    """An agent or patient: a plain string (``chef``) or ``{sg, gender, ...}``; which of the two, and which
    genders, the language's morphology says (``check``)."""

    sg: Text
    gender: Text | None = None
    article: Article | None = None   # it: where the spelling misleads (lo chef)
    acc_sg: Text | None = None       # de: weak masculines (den Studenten)
    dat_sg: Text | None = None
    gen_sg: Text | None = None
    pl: Text | None = None
    dat_pl: Text | None = None

    @model_validator(mode="before")
    @classmethod
    def _plain(cls, value: Any) -> Any:
        return {"sg": value} if isinstance(value, str) else value


def _tense_visible(forms):
    if forms.present == forms.past:
        raise InputError(f"present and past are both {forms.present!r}: the tense would be invisible")
    return forms


class Forms(Section):
    """Third person singular, present and past (en simple past, it passato remoto, de Präteritum)."""

    present: Text
    past: Text

    @model_validator(mode="after")
    def _visible(self):
        return _tense_visible(self)


class VerbEntry(Section):
    """A verb with its forms, its patients and the facts the rules read (LEXICON.md)."""

    lemma: Text
    present: Text
    past: Text
    intransitive: Forms | None = None   # conjugated apart (de quellen: quellt / quillt)
    patients: Words = Field(min_length=MIN_PATIENTS)   # natural as object and as intransitive subject
    person_intransitive: Text | None = None
    marginal_person_intransitive: Text | None = None
    person_object: Text | None = None
    person_causers: Words = ()
    marginal_person_causers: Words = ()

    @model_validator(mode="after")
    def _visible(self):
        return _tense_visible(self)

    @field_validator("marginal_person_intransitive")
    @classmethod
    def _one_reading(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value and info.data.get("person_intransitive"):
            raise InputError(f"verb {info.data.get('lemma')!r} has both person_intransitive and "
                             "marginal_person_intransitive; keep one")
        return value

    @field_validator("person_causers", "marginal_person_causers")
    @classmethod
    def _causers(cls, causers: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        """Causers are the verb's own patients, natural or marginal, not both."""
        lemma = info.data.get("lemma")
        for p in causers:
            if "patients" in info.data and p not in info.data["patients"]:
                raise InputError(f"{p!r} is not one of the patients of verb {lemma!r}")
        both = sorted(set(causers) & set(info.data.get("person_causers", ())))
        if both and info.field_name == "marginal_person_causers":
            raise InputError(f"verb {lemma!r}: {', '.join(both)} is in both person_causers and marginal_person_causers")
        return causers


class RelativePronouns(Section):
    agent: Text
    patient: Text


class CosPlusLexicon(Section):
    language: Text
    relative_pronouns: RelativePronouns | None = None   # None: from the morphology (de der/den)
    intransitive_marker: str = ""                       # it: si
    agents: tuple[Noun, ...] = Field(min_length=MIN_AGENTS)   # natural as the agent of every verb
    patients: tuple[Noun, ...] = Field(min_length=MIN_PATIENTS)   # every patient any verb uses
    verbs: tuple[VerbEntry, ...] = Field(min_length=MIN_VERBS)


@dataclass(frozen=True)
class Verb:
    lemma: str
    transitive: dict[str, str]     # tense -> 3sg form
    intransitive: dict[str, str]   # tense -> 3sg form (German quellen: quellt / quillt)
    patients: tuple[str, ...]
    person_intransitive: str | None = None    # the reading on which "The chef <verb>s." is natural
    person_causers: frozenset[str] = frozenset()  # patients that can cause this change in a person
    marginal_person_intransitive: str | None = None   # why "The chef <verb>s." is marginal (no candidate)
    marginal_person_causers: frozenset[str] = frozenset()  # patients whose reversal is marginal (no candidate)
    person_object: str | None = None   # a sense with a person object: every other reversal is marginal

    def with_patients(self, keep) -> "Verb":
        """The verb restricted to the patients in ``keep`` (its facts too)."""
        return dataclasses.replace(self, patients=tuple(p for p in self.patients if p in keep),
                                   person_causers=frozenset(p for p in self.person_causers if p in keep),
                                   marginal_person_causers=frozenset(p for p in self.marginal_person_causers if p in keep))

    def intransitive_reading(self) -> str:
        """``The chef <verb>s.``: natural (a person can undergo or do it), marginal, or none."""
        return "natural" if self.person_intransitive else "marginal" if self.marginal_person_intransitive else "none"

    def reversal_reading(self, patient: str) -> str:
        """``The <patient> <verb>s the chef.``: natural (a causer), marginal, or none (anomalous)."""
        if patient in self.person_causers:
            return "natural"
        return "marginal" if patient in self.marginal_person_causers or self.person_object else "none"


@dataclass(frozen=True)
class Lexicon:
    language: str
    path: str
    agents: dict[str, dict]        # singular form -> noun entry
    patients: dict[str, dict]
    verbs: dict[str, Verb]         # lemma -> verb
    relative_pronouns: dict[str, str] | None   # role -> pronoun; None: from the morphology (de)
    intransitive_marker: str = ""  # Italian "si"

    def restrict(self, genders: Sequence[str] | None) -> "Lexicon":
        """The lexicon with only nouns of ``genders`` (``None``: all), e.g. masculine for de-case."""
        if not genders:
            return self
        keep = lambda nouns: {k: v for k, v in nouns.items() if v.get("gender") in genders}  # noqa: E731
        patients = keep(self.patients)
        verbs = {lemma: v.with_patients(patients) for lemma, v in self.verbs.items()}
        return Lexicon(self.language, self.path, keep(self.agents), patients, verbs, self.relative_pronouns,
                       self.intransitive_marker)


@functools.cache
def load(language: str, genders: tuple[str, ...] | None = None) -> Lexicon:
    """The checked lexicon of ``language`` (ISO code), restricted to ``genders`` when given."""
    path = HERE / "lexicons" / f"{language}.yaml"
    lex = parse(load_checked(path, check, "COS+"), path)
    check_variant(lex, genders, path)
    return lex.restrict(genders)


def check(lex: Entry, path: Path) -> None:
    """The schema, then what it cannot say, as LexiconError (file, line, entry, reason): the file's language,
    nouns as its morphology wants them (genders, relative pronouns), nouns listed once and in one pool, and
    verbs listed once with patients that have an entry."""
    check_schema(lex, path, CosPlusLexicon)
    c = Checker(path)
    language = lex["language"]
    if language != path.stem:
        c.fail(lex, "language", f"is {language!r} but the file is named {path.name}")
    try:
        morph = morphology.language(language)
    except ValueError as err:
        c.fail(lex, "language", str(err))
    if "relative_pronouns" not in lex and not hasattr(morph, "relative_pronoun"):
        c.fail(lex, "relative_pronouns", f"missing: the {language} morphology has no relative pronouns")
    pools: dict[str, set[str]] = {}
    for pool in ("agents", "patients"):
        pools[pool] = set()
        for item in lex[pool]:
            node = item if isinstance(item, Entry) else lex[pool]
            sg = item if isinstance(item, str) else item["sg"]
            entry = f"{pool} {sg!r}"
            genders = ", ".join(morph.GENDERS)
            if morph.GENDERS and not isinstance(item, Entry):
                c.fail(node, entry, f"needs a mapping with 'sg' and 'gender' ({genders}) in {language}")
            if morph.GENDERS and item.get("gender") not in morph.GENDERS:
                c.fail(node, entry, f"'gender' is {item.get('gender')!r}; expected one of {genders}")
            if sg in pools[pool]:
                c.fail(node, entry, "listed twice")
            pools[pool].add(sg)
    both = pools["agents"] & pools["patients"]
    if both:
        c.fail(lex["patients"], "patients", f"{', '.join(sorted(both))} is both an agent and a patient")
    c.unique(lex["verbs"], "lemma", "verb")
    for verb in lex["verbs"]:
        entry = f"verb {verb['lemma']!r}"
        unknown = [p for p in verb["patients"] if p not in pools["patients"]]
        if unknown:
            c.fail(verb["patients"], entry, f"patient {unknown[0]!r} has no entry under 'patients'")


def parse(raw: Entry, path: Path) -> Lexicon:
    """A lexicon read from ``raw`` once ``check`` passes (LexiconError on the first problem)."""
    check(raw, path)
    pools = {pool: {noun["sg"]: dict(noun) for noun in ({"sg": n} if isinstance(n, str) else n for n in raw[pool])}
             for pool in ("agents", "patients")}
    verbs = {}
    for node in raw["verbs"]:
        forms = {t: node[t] for t in ("present", "past")}
        verbs[node["lemma"]] = Verb(
            node["lemma"], forms, {t: node["intransitive"][t] for t in forms} if "intransitive" in node else dict(forms),
            tuple(node["patients"]), node.get("person_intransitive"), frozenset(node.get("person_causers", ())),
            node.get("marginal_person_intransitive"), frozenset(node.get("marginal_person_causers", ())),
            node.get("person_object"))
    relatives = raw.get("relative_pronouns")
    return Lexicon(raw["language"], str(path), pools["agents"], pools["patients"], verbs,
                   {role: relatives[role] for role in ("agent", "patient")} if relatives else None,
                   raw.get("intransitive_marker", ""))


def check_variant(lex: Lexicon, genders: tuple[str, ...] | None, path: Path) -> None:
    """Enough material for the paper's sizes once restricted to ``genders``."""
    raw = load_yaml(path)
    c = Checker(path)
    sub = lex.restrict(genders)
    what = f" {'/'.join(genders)}" if genders else ""
    if len(sub.agents) < MIN_AGENTS:
        c.fail(raw["agents"], "agents", f"needs at least {MIN_AGENTS}{what} agents, has {len(sub.agents)}")
    nodes = {n["lemma"]: n for n in raw["verbs"]}
    for lemma, verb in sub.verbs.items():
        if len(verb.patients) < MIN_PATIENTS:
            c.fail(nodes[lemma], f"verb {lemma!r}",
                   f"needs at least {MIN_PATIENTS}{what} patients, has {len(verb.patients)}")
