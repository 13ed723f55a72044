"""The agreement lexicon: its schema (pydantic, LEXICON.md beside this file) built for the morphology of the
file's language, and what a schema cannot state: nouns that exist, a coordination decision for every
preposition, number visible in every form a slot takes."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, StrictBool, create_model, model_validator

from builders import morphology
from builders.errors import InputError
from builders.lexicon import Checker, Entry, LexiconError, check_schema, load_checked
from builders.lexicon_schema import Text, distinct
from builders.template import Strict

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


def _relation(kind: str) -> str:
    if kind in IMPLAUSIBLE:
        raise InputError(f"is {kind!r}: {IMPLAUSIBLE[kind]}; every sentence crosses singular and plural, so rewrite "
                         f"the seed with a relation that holds in all four combinations ({', '.join(PLAUSIBLE)})")
    if kind not in PLAUSIBLE:
        raise InputError(f"is {kind!r}, not a relation type; use one of {', '.join(PLAUSIBLE)} (see LEXICON.md)")
    return kind


def _relative(text: str) -> str:
    if text.count("{name}") != 1:
        raise InputError(f"{text!r} must contain the slot {{name}} exactly once")
    return text


Relation = Annotated[str, AfterValidator(_relation)]


def words(minimum: int, item=Text):
    """A list of distinct non-empty strings, at least ``minimum`` of them."""
    return Annotated[tuple[item, ...], Field(min_length=minimum), AfterValidator(distinct)]


class Numbers(Strict):
    sg: Text
    pl: Text

    @model_validator(mode="after")
    def _visible(self):
        if self.sg == self.pl:
            raise InputError(f"singular and plural are both {self.sg!r}: agreement would be invisible")
        return self


class Article(Strict):
    """An article the spelling rule gets wrong (it *le carceri*, es *el aula*)."""

    sg: Text = None
    pl: Text = None


# optional noun facts the morphology of a language reads (LEXICON.md, "Noun entries per language")
NOUN_OPTIONS = {"fr": {"elide": (StrictBool, None)}, "it": {"article": (Article, None)},
                "es": {"article": (Article, None)}}


class Attractor1(Strict):
    prep: Text
    noun: Text


class Relations(Strict):
    attractor1: Relation
    attractor2: Relation
    subject_attractor2: Relation


class Alternatives(Strict):
    """Type II/III substitutes for each noun of the seed."""

    subject: words(MIN_ALTERNATIVES)
    attractor1: words(MIN_ALTERNATIVES)
    attractor2: words(MIN_ALTERNATIVES)


class Seed(Strict):
    id: Text
    subject: Text
    attractor1: Attractor1
    attractor2: Text
    relations: Relations
    alternatives: Alternatives

    @model_validator(mode="after")
    def _alternatives_are_others(self):
        own = {"subject": self.subject, "attractor1": self.attractor1.noun, "attractor2": self.attractor2}
        for slot, noun in own.items():
            if noun in getattr(self.alternatives, slot):
                raise InputError(f"alternatives.{slot} lists the seed's own noun {noun!r}")
        return self


class AgrLexicon(Strict):
    language: Text
    complementizer: Text
    possessive_relations: Annotated[tuple[Relation, ...], Field(min_length=1), AfterValidator(distinct)] = None
    coordination_repeats: words(0)   # prepositions a coordinated attractor 2 repeats
    coordination_shares: words(0)    # prepositions that scope over both conjuncts
    names: words(MIN_POOL)
    completive_verbs: words(MIN_POOL)
    relatives: words(MIN_POOL, Annotated[Text, AfterValidator(_relative)])


def _sg_pl_or_genders(predicate):
    """A predicate is {sg, pl} or, when it agrees in gender, {sg, pl} per gender."""
    genders = [g for g in type(predicate).model_fields if g not in ("sg", "pl")]
    given = {key for key, value in predicate if value is not None}
    if given - {"sg", "pl"}:
        if given & {"sg", "pl"}:
            raise InputError(f"give either sg/pl or a form per gender ({', '.join(genders)}), not both")
    elif given != {"sg", "pl"}:
        raise InputError(f"needs sg and pl, or a form per gender ({', '.join(genders)})")
    elif predicate.sg == predicate.pl:
        raise InputError(f"singular and plural are both {predicate.sg!r}: agreement would be invisible")
    return predicate


@functools.cache
def schema(language: str) -> type[Strict]:
    """The lexicon's model for a language: its nouns carry the fields its morphology reads, its predicates
    agree in its genders."""
    morph = morphology.language(language)
    gender = Literal[tuple(morph.GENDERS)] if morph.GENDERS else None
    noun = create_model(f"Noun_{language}", __base__=Strict, **{ONE_COUNTERPART: (StrictBool, None)},
                        **{f: (gender if f == "gender" else Text, ...) for f in morph.NOUN_FIELDS},
                        **{f: (Text, None) for f in getattr(morph, "OPTIONAL_NOUN_FIELDS", ())},
                        **NOUN_OPTIONS.get(language, {}))
    predicate = Numbers
    if morph.GENDERS:
        predicate = create_model(f"Predicate_{language}", __base__=Strict, sg=(Text, None), pl=(Text, None),
                                 **{g: (Numbers, None) for g in morph.GENDERS}, __validators__={
                                     "_form": model_validator(mode="after")(_sg_pl_or_genders)})
    seed = create_model(f"Seed_{language}", __base__=Seed, predicate=(predicate, ...))
    return create_model(f"AgrLexicon_{language}", __base__=AgrLexicon, nouns=(dict[str, noun], ...),
                        seeds=(tuple[seed, ...], Field(min_length=MIN_SEEDS)))


@functools.cache
def load(language: str) -> Entry:
    lex = load_checked(HERE / "lexicons" / f"{language}.yaml", check, "agreement")
    lex["seeds_by_id"] = {seed["id"]: seed for seed in lex["seeds"]}
    return lex


def seed_nouns(seed: dict) -> dict[str, str]:
    return {"subject": seed["subject"], "attractor1": seed["attractor1"]["noun"], "attractor2": seed["attractor2"]}


def check(lex: Entry, path: Path) -> None:
    """The file's language, the schema of its morphology, then what the schema cannot state, as LexiconError
    (file, line, entry, reason)."""
    c, line = Checker(path), lex.key_lines.get("language")
    if "language" in lex and lex["language"] != path.stem:
        raise LexiconError(path, line, "language", f"is {lex['language']!r} but the file is named {path.name}")
    try:
        morph = morphology.language(path.stem)
    except ValueError as err:  # no morphology module for the file's language
        raise LexiconError(path, line, "language", str(err)) from None
    check_schema(lex, path, schema(path.stem))
    if "possessive_relations" in lex and not hasattr(morph, "possessive"):
        c.fail(lex["possessive_relations"], "possessive_relations", f"{path.stem} has no prenominal possessive "
                                            f"(morphology.{path.stem}.possessive)")
    coordination = _coordination(c, lex)
    nouns = lex["nouns"]
    c.unique(lex["seeds"], "id", "seed")
    for seed in lex["seeds"]:
        entry = f"seed {seed['id']!r}"
        _check_seed(c, seed, entry, nouns, morph, coordination)


def _coordination(c: Checker, lex: Entry) -> dict[str, str]:
    """{preposition: 'repeats' | 'shares'}: what a coordinated attractor 2 does with it."""
    out: dict[str, str] = {}
    for key, kind in (("coordination_repeats", "repeats"), ("coordination_shares", "shares")):
        for prep in lex[key]:
            if prep in out:
                c.fail(lex[key], key, f"{prep!r} is in both coordination_repeats and coordination_shares")
            out[prep] = kind
    return out


def _check_seed(c: Checker, seed: dict, entry: str, nouns: dict, morph, coordination: dict[str, str]) -> None:
    """The seed's preposition has a coordination decision, its nouns exist and show their number, its
    relations fit its nouns, its predicate has a form for every subject's gender."""
    prep = seed["attractor1"]["prep"]
    if prep not in coordination and prep.rsplit(" ", 1)[-1] not in coordination:
        c.fail(seed["attractor1"], entry + ".attractor1", f"preposition {prep!r} is in neither coordination_repeats "
               "nor coordination_shares: say whether a coordinated attractor 2 (Coord) repeats it")
    alternatives = seed["alternatives"]
    for slot, noun in seed_nouns(seed).items():
        for key in [noun, *alternatives[slot]]:
            if key not in nouns:
                c.fail(seed, entry, f"noun {key!r} ({slot}) has no entry under 'nouns'")
    _check_counterparts(c, seed, entry, nouns)
    for slot, noun in seed_nouns(seed).items():
        for key in [noun, *alternatives[slot]]:
            _check_visible_number(c, seed, entry, slot, key, nouns[key], prep, morph)
    predicate = seed["predicate"]
    if "sg" not in predicate:
        for gender in sorted({nouns[s]["gender"] for s in [seed["subject"], *alternatives["subject"]]}):
            if gender not in predicate:
                c.fail(predicate, f"{entry}.predicate", f"no form for gender {gender!r} of a subject noun")


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


