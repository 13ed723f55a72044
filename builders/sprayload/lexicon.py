"""Loading and checking the spray/load lexicon (schema: LEXICON.md beside this file)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

from builders import morphology
from builders.lexicon import Checker, LexiconError, disjoint_roles, load_yaml
from builders.sprayload import verbs

HERE = Path(__file__).parent
ROLES = ("agents", "themes", "locations")
MIN_POOL = 5          # five agents, themes and locations per verb (BLM-s/lE)
MIN_VERBS = 8         # a type III instance uses eight verbs
MAX_CONTENT_WORDS = 2  # keeps type I sentences lexically close (validator: Jaccard >= 0.3)
RESERVED_PREPS = ("with", "by", "for")  # theme, passive agent, NOEMB
VARIANTS = ("locative", "with")   # "sprayed the water onto the roses" / "sprayed the roses with the water"
ROLES_OF = {"agents": "agent", "themes": "theme", "locations": "location"}
# a judgement of a sentence: natural (a candidate is SEQUENCE), anomalous (GRAMMAR), marginal (odd but not
# clearly wrong, or judged differently by speakers: no candidate makes a claim about it)
JUDGEMENTS = ("natural", "anomalous", "marginal")
LEXPREP_KEYS = ("theme_object", "location_object")
NOEMB_KEYS = ("theme_for_location", "location_for_theme")
BARE_PASSIVE_KEYS = ("theme", "location")   # "The paint was sprayed by the girl" / "The wall was sprayed by the girl"
Judged = frozenset[tuple[str, str]]   # (key, judgement) pairs: hashable, so an entry can sit in a matrix's facts


class NP(NamedTuple):
    text: str
    plural: bool = False
    prep: str = ""     # locations: the preposition that introduces this location (default: the verb's)


class VerbEntry(NamedTuple):
    """A verb with its words and the facts the rules read (LEXICON.md)."""

    lemma: str
    forms: verbs.Verb
    variants: frozenset[str]            # the alternants the verb has: locative, with
    loc_prep: str
    wrong_prep: str                     # LEXPREP's preposition
    lexprep: Judged                     # (theme_object | location_object, judgement) of the LEXPREP sentences
    noemb: Judged                       # (theme_for_location | location_for_theme, judgement) of the NOEMB ones
    bare_passive: Judged                # (theme | location, judgement): the passive with the agent and no other PP
    agent_moves: bool                   # "The movers loaded into the truck": ALT-PP is a well-formed sentence
    can_also_be: frozenset[tuple[str, str]]  # (role, other role its nouns can take with this verb)
    agents: tuple[NP, ...]
    themes: tuple[NP, ...]
    locations: tuple[NP, ...]

    def judgement(self, fact: str, key: str) -> str:
        """``natural``, ``anomalous`` or ``marginal``: the verb's judgement ``fact.key`` (LEXICON.md)."""
        return dict(getattr(self, fact))[key]


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
        variants = _variants(c, entry, name)
        lexprep = c.field(entry, "lexprep", dict, name)
        for key, node in (("loc_prep", entry), ("prep", lexprep)):
            if isinstance(node.get(key), bool):
                c.fail(node, name, f"{key} reads as a boolean: quote it (YAML takes on/off/yes/no for true/false)")
        preps = {"loc_prep": c.field(entry, "loc_prep", str, name),
                 "lexprep.prep": c.field(lexprep, "prep", str, f"{name}.lexprep")}
        judged = {"lexprep": _judgements(c, lexprep, LEXPREP_KEYS, f"{name}.lexprep", frozenset({"prep"})),
                  "noemb": _judgements(c, c.field(entry, "noemb", dict, name), NOEMB_KEYS, f"{name}.noemb"),
                  "bare_passive": _judgements(c, c.field(entry, "bare_passive", dict, name), BARE_PASSIVE_KEYS,
                                              f"{name}.bare_passive")}
        agent_moves = entry.get("agent_moves", False)
        if not isinstance(agent_moves, bool):
            c.fail(entry, name, f"agent_moves must be true or false, got {agent_moves!r}")
        also = _can_also_be(c, entry, name)
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
        wrong = preps["lexprep.prep"]
        if wrong in loc_preps or wrong in RESERVED_PREPS:
            c.fail(lexprep, f"{name}.lexprep", f"prep {wrong!r} must differ from the verb's locative prepositions "
                                               f"and from {', '.join(RESERVED_PREPS)}")
        if preps["loc_prep"] in RESERVED_PREPS:
            c.fail(entry, name, f"loc_prep {preps['loc_prep']!r} is reserved ({', '.join(RESERVED_PREPS)})")
        out.append(VerbEntry(lemma, verb, variants, preps["loc_prep"], wrong, judged["lexprep"], judged["noemb"],
                             judged["bare_passive"], agent_moves, also,
                             pools["agents"], pools["themes"], pools["locations"]))
    return tuple(out)


def _variants(c: Checker, entry, name: str) -> frozenset[str]:
    """The alternants the verb has (Levin 1993: §9.7 verbs have both, §9.5 pour verbs only the
    locative one, §9.8 fill verbs only the with one)."""
    values = c.strings(entry, "variants", name)
    for value in values:
        if value not in VARIANTS:
            c.fail(entry, name, f"variants: {value!r} is not one of {', '.join(VARIANTS)}")
    return frozenset(values)


def _judgements(c: Checker, node, keys: tuple[str, ...], entry: str, other: frozenset[str] = frozenset()
                ) -> Judged:
    """Each key with its judgement (natural, anomalous or marginal); every key must be judged."""
    unknown = sorted(set(node) - set(keys) - set(other))
    if unknown:
        c.fail(node, entry, f"unknown key {unknown[0]!r}; expected {', '.join((*sorted(other), *keys))}")
    return frozenset((key, c.one_of(node, key, JUDGEMENTS, entry)) for key in keys)


def _can_also_be(c: Checker, entry, name: str) -> frozenset[tuple[str, str]]:
    """Optional ``can_also_be: {location: [agent], agent: [location]}``: the roles a pool's nouns
    can also take with this verb (role swaps are SEQUENCE only when every moved noun can)."""
    node = entry.get("can_also_be", {})
    if not isinstance(node, dict):
        c.fail(entry, name, "can_also_be must map a role to the other roles its nouns can take")
    roles = tuple(ROLES_OF.values())
    out = set()
    for own, others in node.items():
        if own not in roles:
            c.fail(node, f"{name}.can_also_be", f"{own!r} is not a role; roles are {', '.join(roles)}")
        if not isinstance(others, list) or any(o not in roles or o == own for o in others):
            c.fail(node, f"{name}.can_also_be", f"{own}: must list other roles among {', '.join(roles)}")
        out |= {(own, other) for other in others}
    return frozenset(out)


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
