"""Loading and checking an agreement lexicon (schema and relation vocabulary: LEXICON.md beside this file)."""

from __future__ import annotations

import functools
from pathlib import Path

from builders import morphology
from builders.lexicon import Checker, Entry, load_checked

HERE = Path(__file__).parent
MIN_SEEDS, MIN_ALTERNATIVES, MIN_POOL = 40, 8, 10
SLOTS = ("subject", "attractor1", "attractor2")

# Every sentence of an instance crosses singular and plural subject, attractor 1 and attractor 2,
# so a seed's relations must read naturally in all four number combinations of head and dependent.
# Many-to-many relations do; the others fail in one combination (the example says which).
PLAUSIBLE = {
    "topic": "the head is about the dependent: the book about the kings",
    "source": "the head comes from the dependent: the letter from the lawyers (a joint letter)",
    "recipient": "the head is addressed to the dependent: the petition to the managers",
    "beneficiary": "the head is meant for the dependent: the present for the teachers",
    "participant": "the head is an event the dependent takes part in: the meeting with the accountants",
    "accompaniment": "the head is together with the dependent: the tourist with the guides",
    "proximity": "the head is near the dependent: the lamp near the beds",
    "representation": "the head depicts or records the dependent: the photo of the players",
    "authorship": "the head was made or told by the dependent: the song of the pianists (a duet)",
    "service": "a professional and those they serve: the lawyer of the clients, the lawyers of the client",
    "hierarchy": "a superior and those under them: the supervisor of the workers, the supervisors of the worker",
    "acquaintance": "a personal tie with many partners on each side: the friend of the neighbours, the fans of the band",
}
IMPLAUSIBLE = {
    "location": "a thing is in one place, so a singular head with a plural dependent is implausible "
                "(the painting on the walls)",
    "part": "a part belongs to one whole, so a singular head with a plural dependent is implausible "
            "(the door of the garages)",
    "owner": "a thing belongs to one owner, so a singular head with a plural dependent is implausible "
             "(the label of the wineries)",
    "member": "an office or membership is in one group, so a singular head with a plural dependent is "
              "implausible (the director of the banks, the king of the countries)",
    "attribute": "each head has its own, so a plural head with a singular dependent is implausible "
                 "(the dogs with the collar)",
    "content": "each container holds its own content, so a plural head with a singular dependent is "
               "implausible (the vases with the flower)",
    "kinship": "a child has one mother and one father, so a plural head with a singular dependent is "
               "implausible (the mothers of the child)",
    "counterpart": "an event with exactly one counterpart (a duel has one opponent) cannot have several, so a "
                   "singular head with a plural dependent is implausible (the duel with the enemies), and so is "
                   "the Coord candidate in any number (the duel with the enemy and the knight)",
}
# A noun fact the checker reads: `one_counterpart: true` marks an event noun with exactly one
# counterpart (duel). As the head of a `participant` relation it is a `counterpart` relation.
ONE_COUNTERPART = "one_counterpart"
NOUN_FACTS = ("gender", "elide", "article", ONE_COUNTERPART)  # entry keys that are not word forms
# relation key -> what it relates (head <- dependent), as the realiser shows it
RELATIONS = {
    "attractor1": "attractor 1 to the subject (the subject's preposition)",
    "attractor2": "attractor 2 to attractor 1 (the genitive)",
    "subject_attractor2": "attractor 2 to the subject (the WNA candidate's genitive)",
}
HEAD_SLOT = {"attractor1": "subject", "attractor2": "attractor1", "subject_attractor2": "subject"}


@functools.cache
def load(language: str) -> Entry:
    lex = load_checked(HERE / "lexicons" / f"{language}.yaml", check, "agreement")
    lex["seeds_by_id"] = {seed["id"]: seed for seed in lex["seeds"]}
    return lex


def seed_nouns(seed: dict) -> dict[str, str]:
    return {"subject": seed["subject"], "attractor1": seed["attractor1"]["noun"], "attractor2": seed["attractor2"]}


def check(lex: Entry, path: Path) -> None:
    """Raise LexiconError (file, line, entry, reason) on the first schema violation."""
    c = Checker(path)
    language = c.field(lex, "language", str, "language")
    if language != path.stem:
        c.fail(lex, "language", f"is {language!r} but the file is named {path.name}")
    morph = morphology.language(language)
    c.field(lex, "complementizer", str, "complementizer")
    if "possessive_relations" in lex:
        if not hasattr(morph, "possessive"):
            c.fail(lex, "possessive_relations", f"{language} has no prenominal possessive (morphology.{language}.possessive)")
        for rel in c.strings(lex, "possessive_relations", "possessive_relations", 1):
            if rel not in PLAUSIBLE:
                c.fail(lex, "possessive_relations", f"{rel!r} is not a relation type; known: {', '.join(PLAUSIBLE)}")
    coordination = _coordination(c, lex)
    c.strings(lex, "names", "names", MIN_POOL)
    c.strings(lex, "completive_verbs", "completive_verbs", MIN_POOL)
    for rel in c.strings(lex, "relatives", "relatives", MIN_POOL):
        if rel.count("{name}") != 1:
            c.fail(lex, "relatives", f"{rel!r} must contain the slot {{name}} exactly once")
    nouns = c.field(lex, "nouns", dict, "nouns")
    for key, noun in nouns.items():
        for fld in morph.NOUN_FIELDS:
            if fld == "gender":
                c.one_of(noun, "gender", morph.GENDERS, f"nouns.{key}")
            else:
                c.field(noun, fld, str, f"nouns.{key}")
        if ONE_COUNTERPART in noun:
            c.field(noun, ONE_COUNTERPART, bool, f"nouns.{key}")
    seeds = c.field(lex, "seeds", list, "seeds")
    if len(seeds) < MIN_SEEDS:
        c.fail(seeds, "seeds", f"needs at least {MIN_SEEDS} seeds, has {len(seeds)}")
    seen = set()
    for i, seed in enumerate(seeds):
        sid = c.field(seed, "id", str, f"seeds[{i}]")
        entry = f"seed {sid!r}"
        if sid in seen:
            c.fail(seed, entry, "duplicate id")
        seen.add(sid)
        _check_seed(c, seed, entry, nouns, morph, coordination)


def _coordination(c: Checker, lex: Entry) -> dict[str, str]:
    """{preposition: 'repeats' | 'shares'}: what a coordinated attractor 2 does with it."""
    out: dict[str, str] = {}
    for key, kind in (("coordination_repeats", "repeats"), ("coordination_shares", "shares")):
        preps = c.field(lex, key, list, key)
        if any(not isinstance(p, str) or not p.strip() for p in preps):
            c.fail(preps, key, "must be a list of prepositions")
        for prep in preps:
            if prep in out:
                c.fail(preps, key, f"{prep!r} is in both coordination_repeats and coordination_shares")
            out[prep] = kind
    return out


def _check_seed(c: Checker, seed: dict, entry: str, nouns: dict, morph, coordination: dict[str, str]) -> None:
    c.field(seed, "subject", str, entry)
    a1 = c.field(seed, "attractor1", dict, entry)
    prep = c.field(a1, "prep", str, entry + ".attractor1")
    c.field(a1, "noun", str, entry + ".attractor1")
    if prep not in coordination and prep.rsplit(" ", 1)[-1] not in coordination:
        c.fail(a1, entry + ".attractor1", f"preposition {prep!r} is in neither coordination_repeats nor "
               "coordination_shares: say whether a coordinated attractor 2 (Coord) repeats it")
    c.field(seed, "attractor2", str, entry)
    _check_relations(c, seed, entry)
    alternatives = c.field(seed, "alternatives", dict, entry)
    for slot, noun in seed_nouns(seed).items():
        alts = c.strings(alternatives, slot, f"{entry}.alternatives", MIN_ALTERNATIVES)
        for key in [noun, *alts]:
            if key not in nouns:
                c.fail(seed, entry, f"noun {key!r} ({slot}) has no entry under 'nouns'")
    _check_counterparts(c, seed, entry, nouns)
    for slot, noun in seed_nouns(seed).items():
        alts = alternatives[slot]
        for key in [noun, *alts]:
            _check_visible_number(c, seed, entry, slot, key, nouns[key], prep, morph)
        if noun in alts:
            c.fail(alternatives, f"{entry}.alternatives", f"{slot} lists the seed's own noun {noun!r}")
    predicate = c.field(seed, "predicate", dict, entry)
    subjects = [seed["subject"], *alternatives["subject"]]
    if "sg" in predicate:
        _check_numbers(c, predicate, f"{entry}.predicate")
    else:
        for gender in {nouns[s]["gender"] for s in subjects}:
            if gender not in predicate:
                c.fail(predicate, f"{entry}.predicate", f"no form for gender {gender!r} of a subject noun")
            _check_numbers(c, predicate[gender], f"{entry}.predicate.{gender}")


def _check_relations(c: Checker, seed: dict, entry: str) -> None:
    """Each relation is a known type that stays plausible in every number combination."""
    relations = c.field(seed, "relations", dict, entry)
    where = f"{entry}.relations"
    for key in relations:
        if key not in RELATIONS:
            c.fail(relations, where, f"unknown key {key!r}; give {', '.join(RELATIONS)}")
    for key in RELATIONS:
        kind = c.field(relations, key, str, where)
        if kind in IMPLAUSIBLE:
            c.fail(relations, where, f"{key} is {kind!r}: {IMPLAUSIBLE[kind]}; every sentence crosses singular "
                   "and plural, so rewrite the seed with a relation that holds in all four combinations "
                   f"({', '.join(PLAUSIBLE)})")
        if kind not in PLAUSIBLE:
            c.fail(relations, where, f"{key} is {kind!r}, not a relation type; use one of "
                   f"{', '.join(PLAUSIBLE)} (see LEXICON.md)")


def _check_counterparts(c: Checker, seed: dict, entry: str, nouns: dict) -> None:
    """A `participant` relation whose head (the seed's noun or an alternative) is an event with one
    counterpart is a `counterpart` relation, which number crossing makes implausible."""
    relations = seed["relations"]
    for key, head in HEAD_SLOT.items():
        if relations[key] != "participant":
            continue
        own = seed_nouns(seed)[head]
        for noun in [own, *seed["alternatives"][head]]:
            if nouns[noun].get(ONE_COUNTERPART):
                role = head if noun == own else f"{head} alternative"
                c.fail(relations, f"{entry}.relations", f"{key} is 'participant' but the {role} {noun!r} is an "
                       f"event with one counterpart ({ONE_COUNTERPART}), so the relation is 'counterpart': "
                       f"{IMPLAUSIBLE['counterpart']}; choose an event that takes any number of participants")


def _check_visible_number(c: Checker, seed: dict, entry: str, slot: str, key: str, noun: dict, prep: str,
                          morph) -> None:
    """Singular and plural of a noun must read differently in every form its slot takes, or the
    sequence's number pattern (and the WN1/WN2 candidates) would be invisible."""
    if slot == "subject":
        forms = [lambda n: morph.definite(noun, n)]
    elif slot == "attractor1":
        forms = [lambda n, m=m: morph.prep_phrase(prep, noun, n, m) for m in (False, True)]
    else:
        forms = [lambda n: morph.genitive(noun, n), lambda n: morph.coordinate(noun, n, prep),
                 lambda n: morph.coordinate(noun, n, "")]
    for form in forms:
        if morph.finalize(form("sg")) == morph.finalize(form("pl")):
            c.fail(seed, entry, f"{slot} {key!r} reads {morph.finalize(form('sg'))!r} in both numbers: "
                   "the number pattern of the sequence would be invisible; choose another noun")


def _check_numbers(c: Checker, node: dict, entry: str) -> None:
    sg, pl = c.field(node, "sg", str, entry), c.field(node, "pl", str, entry)
    if sg == pl:
        c.fail(node, entry, f"singular and plural are both {sg!r}: agreement would be invisible")
