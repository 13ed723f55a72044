"""The spray/load lexicon: its schema (pydantic, LEXICON.md beside this file), the checks a schema cannot state
(verbs listed once, words and prepositions as the language's morphology has them), and the verbs the generator
reads."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated, Any, NamedTuple

from pydantic import AfterValidator, Field, StrictBool, field_validator, model_validator

from builders import morphology
from builders.errors import InputError
from builders.lexicon import Checker, Entry, check_schema, disjoint_roles, load_checked
from builders.lexicon_schema import Preposition, Section, Text
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


def _judged(value: str) -> str:
    if value not in JUDGEMENTS:
        raise InputError(f"is {value!r}; expected one of {', '.join(JUDGEMENTS)}")
    return value


def _variant(value: str) -> str:
    if value not in VARIANTS:
        raise InputError(f"{value!r} is not one of {', '.join(VARIANTS)}")
    return value


Judgement = Annotated[str, AfterValidator(_judged)]


class Forms(Section):
    """Every form written out (spell-checked): the real ones, regular or from the morphology's table."""

    lemma: Text
    past: Text
    participle: Text

    @model_validator(mode="after")
    def _real(self):
        error = verbs.form_error(verbs.Verb(self.lemma, self.past, self.participle))
        if error:
            raise InputError(error)
        return self


class LexPrep(Section):
    prep: Preposition   # a preposition the verb does not select for its location
    theme_object: Judgement
    location_object: Judgement


class NoEmb(Section):
    theme_for_location: Judgement
    location_for_theme: Judgement


class BarePassive(Section):
    theme: Judgement
    location: Judgement


class Phrase(Section):
    """A noun phrase: a plain string (singular or mass), ``{np: ...}`` or ``{pl: ...}`` (plural)."""

    np: Text | None = None
    pl: Text | None = None

    @model_validator(mode="before")
    @classmethod
    def _plain(cls, value: Any) -> Any:
        return {"np": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _one_text(self):
        if (self.np is None) == (self.pl is None):
            raise InputError("needs exactly one of 'np' (singular) or 'pl' (plural)")
        return self

    @property
    def text(self) -> str:
        return (self.np or self.pl).strip()


class Location(Phrase):
    prep: Preposition = ""   # overrides the verb's loc_prep for this location


class VerbItem(Section):
    """A verb with its words and the facts the rules read (LEXICON.md)."""

    verb: Forms
    variants: Annotated[tuple[Annotated[str, AfterValidator(_variant)], ...], Field(min_length=1)]
    bare_passive: BarePassive
    loc_prep: Preposition
    lexprep: LexPrep
    noemb: NoEmb
    agent_moves: StrictBool = False
    can_also_be: dict[str, tuple[str, ...]] = {}
    agents: tuple[Phrase, ...] = Field(min_length=MIN_POOL)
    themes: tuple[Phrase, ...] = Field(min_length=MIN_POOL)
    locations: tuple[Location, ...] = Field(min_length=MIN_POOL)

    @field_validator("variants")
    @classmethod
    def _distinct(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(values)) < len(values):
            raise InputError(f"repeats an alternant: {', '.join(values)}")
        return values

    @field_validator("can_also_be")
    @classmethod
    def _roles(cls, also: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        """Role swaps are SEQUENCE only when every moved noun can take its new role."""
        roles = tuple(ROLES_OF.values())
        for own, others in also.items():
            if own not in roles:
                raise InputError(f"{own!r} is not a role; roles are {', '.join(roles)}")
            if any(o not in roles or o == own for o in others):
                raise InputError(f"{own}: must list other roles among {', '.join(roles)}")
        return also

    @model_validator(mode="after")
    def _distinct_words(self):
        """Arguments told apart by their words, candidates by their prepositions."""
        texts = [np.text for role in ROLES for np in getattr(self, role)]
        repeated = sorted({t for t in texts if texts.count(t) > 1})
        if repeated:
            raise InputError(f"noun phrases must be distinct across agents, themes and locations: {repeated}")
        if self.loc_prep in RESERVED_PREPS:
            raise InputError(f"loc_prep {self.loc_prep!r} is reserved ({', '.join(RESERVED_PREPS)})")
        wrong = self.lexprep.prep
        if wrong in {loc.prep or self.loc_prep for loc in self.locations} or wrong in RESERVED_PREPS:
            raise InputError(f"lexprep: prep {wrong!r} must differ from the verb's locative prepositions "
                             f"and from {', '.join(RESERVED_PREPS)}")
        return self


class SprayLoadLexicon(Section):
    language: Text
    verbs: tuple[VerbItem, ...] = Field(min_length=MIN_VERBS)   # a type III instance uses eight


@functools.cache
def load(language: str) -> tuple[VerbEntry, ...]:
    path = HERE / "lexicons" / f"{language}.yaml"
    return entries(load_checked(path, check, "spray/load"))


def check(lex: Entry, path: Path) -> None:
    """The schema, then what it cannot say, as LexiconError (file, line, entry, reason): the file's language,
    each verb listed once, noun phrases short and sharing no word stem across roles or with the verb, and
    prepositions that are function words of the language."""
    check_schema(lex, path, SprayLoadLexicon)
    c = Checker(path)
    language = lex["language"]
    if language != path.stem:
        c.fail(lex, "language", f"is {language!r} but the file is named {path.name}")
    try:
        function_words = morphology.function_words(language)
    except ValueError as err:
        c.fail(lex, "language", str(err))
    seen = set()
    for node, entry in zip(lex["verbs"], entries(lex)):
        name = f"verb {entry.lemma!r}"
        if entry.lemma in seen:
            c.fail(node, name, "listed twice")
        seen.add(entry.lemma)
        pools = {role: [np.text for np in getattr(entry, role)] for role in ROLES}
        for role, texts in pools.items():
            for text in texts:
                if len(morphology.content_stems(text, language)) > MAX_CONTENT_WORDS:
                    c.fail(node[role], f"{name}.{role}", f"{text!r} has more than {MAX_CONTENT_WORDS} content words "
                                                         "(type I sentences would share too little)")
        disjoint_roles(c, node, name, pools, language,
                       {stem: "the verb" for stem in morphology.content_stems(" ".join(entry.forms), language)})
        preps = {"loc_prep": entry.loc_prep, "lexprep.prep": entry.wrong_prep,
                 **{f"locations prep {p!r}": p for p in {np.prep or entry.loc_prep for np in entry.locations}}}
        for key, prep in preps.items():
            if any(word not in function_words for word in prep.split()):
                c.fail(node, name, f"{key} {prep!r} is not a function word of {language} "
                                   f"(builders/morphology/function_words/{language}.txt)")


def entries(lex: Entry) -> tuple[VerbEntry, ...]:
    """The verbs of a lexicon that passed the schema."""
    return tuple(_entry(node) for node in lex["verbs"])


def _entry(node: Entry) -> VerbEntry:
    forms = node["verb"]
    judged = {fact: frozenset((key, node[fact][key]) for key in keys)
              for fact, keys in (("lexprep", LEXPREP_KEYS), ("noemb", NOEMB_KEYS), ("bare_passive", BARE_PASSIVE_KEYS))}
    also = frozenset((own, other) for own, others in node.get("can_also_be", {}).items() for other in others)
    return VerbEntry(forms["lemma"], verbs.Verb(forms["lemma"], forms["past"], forms["participle"]),
                     frozenset(node["variants"]), node["loc_prep"], node["lexprep"]["prep"], judged["lexprep"],
                     judged["noemb"], judged["bare_passive"], node.get("agent_moves", False), also,
                     *(tuple(_np(item) for item in node[role]) for role in ROLES))


def _np(item: str | Entry) -> NP:
    """A plain string (singular or mass NP) or {np: ...} / {pl: ...}, locations with optional prep."""
    if isinstance(item, str):
        return NP(item.strip())
    key = "np" if "np" in item else "pl"
    return NP(item[key].strip(), key == "pl", item.get("prep", ""))
