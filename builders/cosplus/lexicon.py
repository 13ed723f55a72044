"""Loading and checking a COS+ lexicon (schema: LEXICON.md beside this file)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from builders import morphology
from builders.lexicon import Checker, LexiconError, load_yaml

HERE = Path(__file__).parent
MIN_AGENTS, MIN_VERBS, MIN_PATIENTS = 60, 25, 20
NOUN_KEYS = {"sg", "gender", "article", "acc_sg", "dat_sg", "gen_sg", "pl", "dat_pl"}
VERB_KEYS = {"lemma", "present", "past", "intransitive", "patients", "person_intransitive", "person_causers",
             "marginal_person_intransitive", "marginal_person_causers", "person_object"}


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
    if not path.exists():
        raise LexiconError(path, None, "file", f"no COS+ lexicon for language {language!r}")
    lex = parse(load_yaml(path), path)
    check_variant(lex, genders, path)
    return lex.restrict(genders)


def _noun(c: Checker, item, parent, pool: str, morph) -> dict:
    """A noun entry: a plain string where the language has no gender, else a mapping."""
    if isinstance(item, str) and item.strip():
        if morph.GENDERS:
            c.fail(parent, f"{pool} {item!r}", "needs a mapping with 'sg' and 'gender' in this language")
        return {"sg": item}
    if not isinstance(item, Mapping):
        c.fail(parent, pool, f"expected a noun (string or mapping), got {item!r}")
    sg = c.field(item, "sg", str, pool)
    entry = f"{pool} {sg!r}"
    unknown = set(item) - NOUN_KEYS
    if unknown:
        c.fail(item, entry, f"unknown field(s) {', '.join(sorted(unknown))}; allowed: {', '.join(sorted(NOUN_KEYS))}")
    if morph.GENDERS:
        c.one_of(item, "gender", morph.GENDERS, entry)
    for key in NOUN_KEYS - {"gender", "article"}:
        if key in item:
            c.field(item, key, str, entry)
    if "article" in item:
        c.field(c.field(item, "article", Mapping, entry), "sg", str, entry + ".article")
    return dict(item)


def _forms(c: Checker, node, entry: str) -> dict[str, str]:
    forms = {t: c.field(node, t, str, entry) for t in ("present", "past")}
    if forms["present"] == forms["past"]:
        c.fail(node, entry, f"present and past are both {forms['present']!r}: the tense would be invisible")
    return forms


def parse(raw: Mapping, path: Path) -> Lexicon:
    """Raise LexiconError (file, line, entry, reason) on the first schema violation."""
    c = Checker(path)
    language = c.field(raw, "language", str, "language")
    if language != path.stem:
        c.fail(raw, "language", f"is {language!r} but the file is named {path.name}")
    morph = morphology.language(language)
    relatives = None
    if "relative_pronouns" in raw:
        node = c.field(raw, "relative_pronouns", Mapping, "relative_pronouns")
        relatives = {role: c.field(node, role, str, "relative_pronouns") for role in ("agent", "patient")}
    elif not hasattr(morph, "relative_pronoun"):
        c.fail(raw, "relative_pronouns", f"missing: the {language} morphology has no relative pronouns")
    marker = raw.get("intransitive_marker", "")
    if not isinstance(marker, str):
        c.fail(raw, "intransitive_marker", "must be a string (Italian: si)")
    pools = {}
    for pool in ("agents", "patients"):
        items = c.field(raw, pool, list, pool)
        nouns: dict[str, dict] = {}
        for item in items:
            noun = _noun(c, item, raw, pool, morph)
            if noun["sg"] in nouns:
                c.fail(item if isinstance(item, Mapping) else raw, pool, f"{noun['sg']!r} is listed twice")
            nouns[noun["sg"]] = noun
        pools[pool] = nouns
    both = set(pools["agents"]) & set(pools["patients"])
    if both:
        c.fail(raw, "patients", f"{', '.join(sorted(both))} is both an agent and a patient")
    verbs: dict[str, Verb] = {}
    for i, node in enumerate(c.field(raw, "verbs", list, "verbs")):
        lemma = c.field(node, "lemma", str, f"verbs[{i}]")
        entry = f"verb {lemma!r}"
        if lemma in verbs:
            c.fail(node, entry, "duplicate lemma")
        unknown = set(node) - VERB_KEYS
        if unknown:
            c.fail(node, entry,
                   f"unknown field(s) {', '.join(sorted(unknown))}; allowed: {', '.join(sorted(VERB_KEYS))}")
        transitive = _forms(c, node, entry)
        intransitive = dict(transitive)
        if "intransitive" in node:
            intransitive = _forms(c, c.field(node, "intransitive", Mapping, entry), entry + ".intransitive")
        patients = c.strings(node, "patients", entry, 1)
        for p in patients:
            if p not in pools["patients"]:
                c.fail(node, entry, f"patient {p!r} has no entry under 'patients'")
        readings = {key: c.field(node, key, str, entry) if key in node else None
                    for key in ("person_intransitive", "marginal_person_intransitive", "person_object")}
        if readings["person_intransitive"] and readings["marginal_person_intransitive"]:
            c.fail(node, entry, "has both person_intransitive and marginal_person_intransitive; keep one")
        causers = {key: _causers(c, node, key, entry, patients) for key in ("person_causers", "marginal_person_causers")}
        both = causers["person_causers"] & causers["marginal_person_causers"]
        if both:
            c.fail(node["marginal_person_causers"], entry,
                   f"{', '.join(sorted(both))} is in both person_causers and marginal_person_causers")
        verbs[lemma] = Verb(lemma, transitive, intransitive, tuple(patients), readings["person_intransitive"],
                            causers["person_causers"], readings["marginal_person_intransitive"],
                            causers["marginal_person_causers"], readings["person_object"])
    return Lexicon(language, str(path), pools["agents"], pools["patients"], verbs, relatives, marker)


def _causers(c: Checker, node, key: str, entry: str, patients: list[str]) -> frozenset[str]:
    """A list of causer patients (``person_causers``, ``marginal_person_causers``), each one of the verb's."""
    causers = c.strings(node, key, entry) if key in node else []
    for p in causers:
        if p not in patients:
            c.fail(node[key], entry, f"{key}: {p!r} is not one of this verb's patients")
    return frozenset(causers)


def check_variant(lex: Lexicon, genders: tuple[str, ...] | None, path: Path) -> None:
    """Enough material for the paper's sizes once restricted to ``genders``."""
    raw = load_yaml(path)
    c = Checker(path)
    sub = lex.restrict(genders)
    what = f" {'/'.join(genders)}" if genders else ""
    if len(sub.agents) < MIN_AGENTS:
        c.fail(raw, "agents", f"needs at least {MIN_AGENTS}{what} agents, has {len(sub.agents)}")
    if len(sub.verbs) < MIN_VERBS:
        c.fail(raw, "verbs", f"needs at least {MIN_VERBS} verbs, has {len(sub.verbs)}")
    nodes = {n["lemma"]: n for n in raw["verbs"]}
    for lemma, verb in sub.verbs.items():
        if len(verb.patients) < MIN_PATIENTS:
            c.fail(nodes[lemma], f"verb {lemma!r}",
                   f"needs at least {MIN_PATIENTS}{what} patients, has {len(verb.patients)}")
