"""Loading and checking the spray/load lexicon (schema: LEXICON.md beside this file)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

from builders import morphology
from builders.lexicon import Checker, LexiconError, load_yaml
from builders.sprayload import verbs

HERE = Path(__file__).parent
ROLES = ("agents", "themes", "locations")
MIN_POOL = 5          # five agents, themes and locations per verb (BLM-s/lE)
MIN_VERBS = 8         # a type III instance uses eight verbs
MAX_CONTENT_WORDS = 2  # keeps type I sentences lexically close (validator: Jaccard >= 0.3)
RESERVED_PREPS = ("with", "by", "for")  # theme, passive agent, NOEMB


class NP(NamedTuple):
    text: str
    plural: bool = False
    prep: str = ""     # locations: the preposition that introduces this location (default: the verb's)


class VerbEntry(NamedTuple):
    lemma: str
    forms: verbs.Verb
    loc_prep: str
    wrong_prep: str
    agents: tuple[NP, ...]
    themes: tuple[NP, ...]
    locations: tuple[NP, ...]


@functools.cache
def load(language: str) -> tuple[VerbEntry, ...]:
    path = HERE / "lexicons" / f"{language}.yaml"
    if not path.exists():
        raise LexiconError(path, None, "file", "no spray/load lexicon for this language")
    return check(load_yaml(path), path)


def check(lex, path: Path) -> tuple[VerbEntry, ...]:
    """The verbs of a lexicon; raises LexiconError (file, line, entry, reason) on the first defect."""
    c = Checker(path)
    language = c.field(lex, "language", str, "language")
    if language != path.stem:
        c.fail(lex, "language", f"is {language!r} but the file is named {path.name}")
    function_words = morphology.function_words(language)
    entries = c.field(lex, "verbs", list, "verbs")
    if len(entries) < MIN_VERBS:
        c.fail(lex, "verbs", f"needs at least {MIN_VERBS} verbs (a type III instance uses eight), has {len(entries)}")
    out, seen = [], set()
    for i, entry in enumerate(entries):
        forms = c.field(entry, "verb", dict, f"verbs[{i}]")
        lemma = c.field(forms, "lemma", str, f"verbs[{i}].verb")
        name = f"verb {lemma!r}"
        if lemma in seen:
            c.fail(entry, name, "listed twice")
        seen.add(lemma)
        verb = verbs.Verb(lemma, c.field(forms, "past", str, name), c.field(forms, "participle", str, name))
        error = verbs.form_error(verb)
        if error:
            c.fail(forms, name, error)
        for key in ("loc_prep", "wrong_prep"):
            if isinstance(entry.get(key), bool):
                c.fail(entry, name, f"{key} reads as a boolean: quote it (YAML takes on/off/yes/no for true/false)")
        preps = {key: c.field(entry, key, str, name) for key in ("loc_prep", "wrong_prep")}
        pools = {role: tuple(_np(c, item, entry, f"{name}.{role}", role == "locations", language)
                             for item in c.field(entry, role, list, name)) for role in ROLES}
        for role, pool in pools.items():
            if len(pool) < MIN_POOL:
                c.fail(entry, name, f"{role!r} needs at least {MIN_POOL} noun phrases, has {len(pool)}")
        texts = [np.text for pool in pools.values() for np in pool]
        repeated = sorted({t for t in texts if texts.count(t) > 1})
        if repeated:
            c.fail(entry, name, f"noun phrases must be distinct across agents, themes and locations: {repeated}")
        disjoint_roles(c, entry, name, {role: [np.text for np in pool] for role, pool in pools.items()}, language,
                       {stem: "the verb" for stem in morphology.content_stems(" ".join(verb), language)})
        loc_preps = {np.prep or preps["loc_prep"] for np in pools["locations"]}
        for key, prep in [*preps.items(), *((f"locations prep {p!r}", p) for p in loc_preps)]:
            if any(word not in function_words for word in prep.split()):
                c.fail(entry, name, f"{key} {prep!r} is not a function word of {language} "
                                    f"(builders/morphology/function_words/{language}.txt)")
        wrong = preps["wrong_prep"]
        if wrong in loc_preps or wrong in RESERVED_PREPS:
            c.fail(entry, name, f"wrong_prep {wrong!r} must differ from the verb's locative prepositions "
                                f"and from {', '.join(RESERVED_PREPS)}")
        if preps["loc_prep"] in RESERVED_PREPS:
            c.fail(entry, name, f"loc_prep {preps['loc_prep']!r} is reserved ({', '.join(RESERVED_PREPS)})")
        out.append(VerbEntry(lemma, verb, preps["loc_prep"], wrong, pools["agents"], pools["themes"],
                             pools["locations"]))
    return tuple(out)


def disjoint_roles(c: Checker, entry, name: str, pools: dict[str, list[str]], language: str,
                   owner: dict[str, str] | None = None) -> None:
    """The noun phrases of different roles share no content word with each other or with ``owner``
    (stem -> what uses it, e.g. the verb): "the gardener sowed the garden" would leave type I
    sentences too few distinct words, and roles must stay tellable apart."""
    owner = dict(owner or {})
    for role, texts in pools.items():
        role_stems: dict[str, str] = {}
        for text in texts:
            for stem in morphology.content_stems(text, language):
                role_stems.setdefault(stem, text)
        for stem, text in role_stems.items():
            if stem in owner:
                c.fail(entry, name, f"{text!r} ({role}) shares the word stem {stem!r} with {owner[stem]}")
        owner.update({stem: f"{text!r} ({role})" for stem, text in role_stems.items()})


def _np(c: Checker, item, parent, entry: str, location: bool, language: str) -> NP:
    """A plain string (singular or mass NP) or {np: ...} / {pl: ...}, locations with optional prep."""
    if isinstance(item, str):
        np = NP(item.strip())
    elif isinstance(item, dict):
        allowed = {"np", "pl", "prep"} if location else {"np", "pl"}
        if set(item) - allowed or len({"np", "pl"} & set(item)) != 1:
            c.fail(item, entry, f"{dict(item)} must have exactly one of 'np' (singular) or 'pl' (plural)"
                                + (" and optionally 'prep'" if location else ""))
        if isinstance(item.get("prep"), bool):
            c.fail(item, entry, "prep reads as a boolean: quote it (YAML takes on/off/yes/no for true/false)")
        key = "np" if "np" in item else "pl"
        text = c.field(item, key, str, entry)
        np = NP(text.strip(), key == "pl", c.field(item, "prep", str, entry) if "prep" in item else "")
    else:
        c.fail(parent, entry, f"{item!r} is not a noun phrase (string or mapping)")
    if not np.text:
        c.fail(parent, entry, "empty noun phrase")
    if len(morphology.content_stems(np.text, language)) > MAX_CONTENT_WORDS:
        c.fail(parent, entry, f"{np.text!r} has more than {MAX_CONTENT_WORDS} content words "
                              "(type I sentences would share too little)")
    return np
