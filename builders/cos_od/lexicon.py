"""Loading and checking a COS/OD lexicon: its schema (pydantic, LEXICON.md beside this file) and the
cross-references a schema cannot state.

One file per language and verb class: ``lexicons/<lang>_<cos|od>.yaml``. Besides the words, a verb
entry states the facts the rule judges read (builders/README.md, class policy): what its
intransitive is with the other argument as subject, whether Italian ``si`` is obligatory, whether
the roles can be swapped; ``by_place`` lists the nouns whose by/da-phrase reads as a place.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, NamedTuple

from pydantic import AfterValidator, BeforeValidator, Field, create_model, field_validator, model_validator

from builders.cos_od import verbs
from builders.errors import InputError
from builders.lexicon import Checker, Entry, LexiconError, check_schema, load_yaml
from builders.lexicon_schema import Text, Words, distinct
from builders.template import Strict

HERE = Path(__file__).parent
MIN_VERBS = 10
MIN_POOL = {"agents": 3, "themes": 3, "p_nps": 3, "by_nps": 2}
SLOT_POOLS = {"agent": "agents", "theme": "themes", "pnp": "p_nps", "bynp": "by_nps"}
MIN_FRAMES_LEFT = 5   # what a not_with must leave: 4 pairs + the balanced set's other frame

READINGS = ("none", "undergoer", "doer", "marginal")   # the other argument as intransitive subject
# fact -> (verb classes and languages it applies to, allowed values, default: None = required)
FACTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], str | None]] = {
    "agent_intransitive": (("cos",), ("en", "it"), READINGS, "none"),
    "patient_intransitive": (("od",), ("en", "it"), READINGS, "none"),
    "si": (("cos",), ("it",), ("obligatory", "optional"), None),
    "agent_si": (("cos", "od"), ("it",), ("none", "undergoer", "reflexive", "marginal"), "none"),
    "patient_si": (("od",), ("it",), ("passive", "marginal", "none"), "passive"),
    "swapped_roles": (("cos", "od"), ("en", "it"), ("anomalous", "natural", "marginal"), "anomalous"),
    "swapped_passive": (("cos", "od"), ("en", "it"), ("like_transitive", "marginal"), "like_transitive"),
}
AGENT_SI = {"cos": ("none", "undergoer", "marginal"), "od": ("none", "reflexive", "marginal")}


class Noun(NamedTuple):
    """A noun phrase head: the morphology entry (``{gender, sg|pl, article}``) and its number."""

    form: str
    number: str
    gender: str
    article: str | None

    def entry(self) -> dict:
        entry = {"gender": self.gender, self.number: self.form}
        if self.article:
            entry["article"] = {self.number: self.article}
        return entry


class Phrase(NamedTuple):
    """A p-NP or non-agentive by-NP, with the frames it does not go with."""

    text: str
    not_with: frozenset[str]


class VerbFacts(NamedTuple):
    """The per-lemma facts the rule judges read (LEXICON.md, "Facts")."""

    agent_intransitive: str = "none"   # COS: The coach improved (undergoer) / The baker baked (doer)
    patient_intransitive: str = "none" # OD: The soup cooked (undergoer) / The babies nursed (doer)
    si: str | None = None              # it COS: the anticausative's si, obligatory or optional
    agent_si: str = "none"             # it: Le guardie si chiusero (undergoer) / La domestica si lava (reflexive)
    patient_si: str = "passive"        # it OD: I panini si mangiano (si passivante)
    swapped_roles: str = "anomalous"   # the theme acting on the agent: The team improved the coach (natural)
    swapped_passive: str = "like_transitive"   # the swapped passive alone: Il cane è stato strappato dalla tenda
    patient_si_marginal_in: frozenset[str] = frozenset()   # it OD, lexicon-wide: frames of a marginal si passivante


# --- the schema -----------------------------------------------------------------------------------------



def _pool(minimum: int) -> Any:
    return Annotated[tuple[Text, ...], Field(min_length=minimum), AfterValidator(distinct)]


class Numbers(Strict):
    sg: Words = ()
    pl: Words = ()


def _fact(key: str, allowed: tuple[str, ...]):
    """``fact: {value: example sentence}``: the value, one of ``allowed``, with an example that shows it (the
    example documents the judgement and is spell-checked with the rest of the lexicon)."""
    def parse(node: Any) -> str:
        if not (isinstance(node, Mapping) and len(node) == 1):
            raise InputError(f"fact {key!r} must be {{value: example sentence}}, e.g. {{{allowed[0]}: ...}}")
        (value, example), = node.items()
        if not isinstance(value, str) or value not in allowed:
            hint = " (YAML reads a bare no/yes as false/true: write none)" if isinstance(value, bool) else ""
            raise InputError(f"fact {key!r} is {value!r}; expected one of {', '.join(allowed)}{hint}")
        if not isinstance(example, str) or not example.strip():
            raise InputError(f"fact {key!r}: give an example sentence that shows it")
        return value
    return Annotated[str, BeforeValidator(parse)]


def _not_applicable(reason: str):
    """A key the schema knows but this language and verb class do not take."""
    def refuse(_: Any) -> None:
        raise InputError(reason)
    return Annotated[Any, BeforeValidator(refuse)]


@functools.cache
def schema(language: str, phenomenon: str) -> type[Strict]:
    """The lexicon's model for one language (its verb forms, frames, noun genders) and verb class (its facts)."""
    morph = verbs.module(language)

    def known_frame(frame: str) -> str:
        if frame not in morph.FRAMES:
            raise InputError(f"unknown frame {frame!r}; known: {', '.join(morph.FRAMES)}")
        return frame

    def leaves_enough(not_with: tuple) -> tuple:
        if len(morph.FRAMES) - len(not_with) < MIN_FRAMES_LEFT:
            raise InputError("not_with leaves fewer than 5 frames (4 pairs + the balanced set's other frame)")
        return not_with

    frame = Annotated[str, AfterValidator(known_frame)]
    frames = Annotated[tuple[frame, ...], Field(min_length=1), AfterValidator(distinct)]
    restricted = Annotated[frames, AfterValidator(leaves_enough)]

    def sg_pl(forms: tuple) -> tuple:
        if len(forms) != 2:
            raise InputError("must list the 3rd person singular and plural")
        return forms

    def masculine_singular(participle: str) -> str:
        if not participle.endswith("o"):
            raise InputError(f"participio {participle!r} must be the masculine singular (-o)")
        return participle

    person = Annotated[tuple[Text, ...], AfterValidator(sg_pl)]
    form_types = {name: (person if name in morph.PERSON_FORMS else Text, ...) for name in morph.FORM_FIELDS}
    if language == "it":
        form_types["participio"] = (Annotated[Text, AfterValidator(masculine_singular)], ...)
    forms = create_model("Forms", __base__=Strict, **form_types)

    def short_form(cls, value: Any) -> Any:
        """A phrase is a string, or ``{text, not_with}`` for one that does not go with some frames."""
        if isinstance(value, str):
            return {"text": value}
        if isinstance(value, Mapping) and "not_with" not in value:
            raise InputError("a phrase written as a mapping needs not_with: [frames]; else write it as a string")
        return value

    phrase = create_model("Phrase", __base__=Strict, text=(Text, ...), not_with=(restricted, ()),
                          __validators__={"_short_form": model_validator(mode="before")(classmethod(short_form))})

    def applies(fact: str) -> bool:
        classes, languages, _, _ = FACTS[fact]
        return phenomenon in classes and language in languages

    # si first: the it COS validator of agent_intransitive reads it
    facts = {key: (_fact(key, AGENT_SI[phenomenon] if key == "agent_si" else allowed) if applies(key) else
                   _not_applicable(f"fact {key!r} does not apply to {language} {phenomenon} verbs"), None)
             for key, (_, _, allowed, _) in sorted(FACTS.items(), key=lambda item: item[0] != "si")}

    def required_facts(verb):
        for key, (_, _, allowed, default) in FACTS.items():
            if default is None and applies(key) and key not in verb.model_fields_set:
                raise InputError(f"missing fact {key!r}: write {key}: {{{' or '.join(allowed)}: an example sentence}}"
                                 " (see LEXICON.md)")
        return verb

    def roles_apart(verb):
        overlap = set(verb.agents) & set(verb.themes)
        if overlap:
            raise InputError(f"{', '.join(sorted(overlap))} is both agent and theme")
        return verb

    validators: dict[str, Any] = {"_roles_apart": model_validator(mode="after")(roles_apart),
                                  "_required_facts": model_validator(mode="after")(required_facts)}
    if language == "it" and phenomenon == "cos":
        def bare_needs_optional_si(value, info):
            if value == "undergoer" and info.data.get("si") not in (None, "optional"):
                raise InputError("agent_intransitive: undergoer needs si: optional "
                                 "(a bare intransitive exists only where si is optional)")
            return value
        validators["_bare"] = field_validator("agent_intransitive")(bare_needs_optional_si)
    verb = create_model("Verb", __base__=Strict, __validators__=validators,
                        lemma=(Text, ...), forms=(forms, ...), agents=(_pool(MIN_POOL["agents"]), ...),
                        themes=(_pool(MIN_POOL["themes"]), ...), not_with=(restricted, ()),
                        **{pool: (Annotated[tuple[phrase, ...], Field(min_length=MIN_POOL[pool]),
                                            AfterValidator(distinct)], ...) for pool in ("p_nps", "by_nps")},
                        **facts)
    nouns = (create_model("Nouns", __base__=Strict, **{g: (Numbers, ...) for g in morph.GENDERS})
             if morph.GENDERS else Numbers)
    marginal_in = (frames if applies("patient_si") else _not_applicable(
        f"applies only where the fact 'patient_si' does, not to {language} {phenomenon}"))
    return create_model("CosOdLexicon", __base__=Strict, language=(Text, ...),
                        nouns=(nouns, ...), articles=(dict[Text, Text], {}),
                        verbs=(tuple[verb, ...], Field(min_length=MIN_VERBS)),
                        by_place=(Words, ()), agent_oriented=(Words, ()), patient_si_marginal_in=(marginal_in, ()))


# --- loading ---------------------------------------------------------------------------------------------

def path_for(language: str, phenomenon: str) -> Path:
    return HERE / "lexicons" / f"{language}_{phenomenon}.yaml"


@functools.cache
def load(language: str, phenomenon: str) -> dict:
    path = path_for(language, phenomenon)
    if not path.exists():
        raise LexiconError(path, None, "file", f"no {phenomenon} lexicon for language {language!r}")
    return check(load_yaml(path), path)


def check(lex: Entry, path: Path) -> dict:
    """The schema, then what it cannot say (the file's language and verb class, nouns that exist and are used,
    unique lemmas, agent-oriented phrases that are by-NPs), as LexiconError (file, line, entry, reason); return
    the realiser's view of the lexicon (``_view``)."""
    c = Checker(path)
    language, _, phenomenon = path.stem.partition("_")
    if phenomenon not in ("cos", "od") or language not in verbs.LANGUAGES:
        c.fail(lex, "file", f"the file name must be <language>_cos.yaml or <language>_od.yaml with a language of "
                            f"{', '.join(verbs.LANGUAGES)} (builders/cos_od/verbs/), not {path.name}")
    try:
        check_schema(lex, path, schema(language, phenomenon))
    except LexiconError as err:
        raise _naming_the_verb(err, lex) from None
    if lex["language"] != language:
        c.fail(lex, "language", f"is {lex['language']!r} but the file is named {path.name}")
    nouns = _nouns(c, lex, verbs.module(language).GENDERS)
    c.unique(lex["verbs"], "lemma", "verb")
    for verb in lex["verbs"]:
        entry = f"verb {verb['lemma']!r}"
        for pool in ("agents", "themes"):
            for noun in verb[pool]:
                if noun not in nouns:
                    c.fail(verb, entry, f"{pool[:-1]} {noun!r} has no entry under 'nouns'")
    unused = sorted(set(nouns) - {n for verb in lex["verbs"] for n in (*verb["agents"], *verb["themes"])})
    if unused:
        c.fail(lex["nouns"], "nouns", f"{', '.join(unused)} not used by any verb (a typo?)")
    for noun in lex.get("by_place", ()):
        if noun not in nouns:
            c.fail(lex["by_place"], "by_place", f"{noun!r} is not a noun of 'nouns'")
    by_nps = {_phrase(p).text for verb in lex["verbs"] for p in verb["by_nps"]}
    for phrase in lex.get("agent_oriented", ()):
        if phrase not in by_nps:
            c.fail(lex["agent_oriented"], "agent_oriented", f"{phrase!r} is not a by-NP of any verb")
    return _view(lex, path, phenomenon, nouns)


def _view(lex: Entry, path: Path, phenomenon: str, nouns: dict[str, Noun]) -> dict:
    """What the realiser reads: ``noun_info``, ``verbs`` and ``verbs_by_lemma`` (phrases as ``Phrase``,
    ``not_with`` as a frozenset, the facts as ``VerbFacts``), ``by_place``, ``agent_oriented``."""
    si_marginal = frozenset(lex.get("patient_si_marginal_in", ()))
    out_verbs = []
    for verb in lex["verbs"]:
        facts = VerbFacts(**{key: next(iter(verb[key])) for key in FACTS if key in verb})
        out_verbs.append({
            "lemma": verb["lemma"], "forms": verb["forms"], "agents": list(verb["agents"]),
            "themes": list(verb["themes"]), "not_with": frozenset(verb.get("not_with", ())), "line": verb.line,
            "facts": facts._replace(patient_si_marginal_in=si_marginal),
            **{pool: [_phrase(p) for p in verb[pool]] for pool in ("p_nps", "by_nps")}})
    return {"language": lex["language"], "phenomenon": phenomenon, "path": str(path), "noun_info": nouns,
            "verbs": out_verbs, "verbs_by_lemma": {v["lemma"]: v for v in out_verbs},
            "by_place": frozenset(lex.get("by_place", ())), "agent_oriented": frozenset(lex.get("agent_oriented", ()))}


def _phrase(item: str | Entry) -> Phrase:
    return Phrase(item, frozenset()) if isinstance(item, str) else Phrase(item["text"], frozenset(item["not_with"]))


def _naming_the_verb(err: LexiconError, lex: Entry) -> LexiconError:
    """``verbs.3.si`` -> ``verb 'addolcire' (verbs.3.si)``: the entry as the author knows it."""
    parts = err.entry.split(".")
    if parts[0] == "verbs" and len(parts) > 1 and parts[1].isdigit():
        verb = lex["verbs"][int(parts[1])]
        if isinstance(verb, Mapping) and isinstance(verb.get("lemma"), str):
            return LexiconError(err.path, err.line, f"verb {verb['lemma']!r} ({err.entry})", err.reason)
    return err


def _nouns(c: Checker, lex: Entry, genders: tuple[str, ...]) -> dict[str, Noun]:
    """``nouns: {sg: [...], pl: [...]}`` (en) or ``{m: {sg, pl}, f: {sg, pl}}`` (it): each form once, with its
    article (``articles``, a noun's own) if any."""
    table, articles = lex["nouns"], lex.get("articles") or {}
    out: dict[str, Noun] = {}
    for gender, node in [(g, table[g]) for g in genders] if genders else [("", table)]:
        for number in ("sg", "pl"):
            for form in node.get(number, ()):
                if form in out:
                    c.fail(node, f"nouns.{gender + '.' if gender else ''}{number}", f"{form!r} is listed twice")
                out[form] = Noun(form, number, gender, articles.get(form))
    for form in articles:
        if form not in out:
            c.fail(lex, "articles", f"{form!r} is not a noun of 'nouns'")
    return out
