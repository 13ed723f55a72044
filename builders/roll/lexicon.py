"""The Roll-verb lexicon: its schema (pydantic; facts: LEXICON.md beside this file), then what a schema cannot
state (declared verbs, unique ids, the language's content and function words), read into verbs and scenes."""

from __future__ import annotations

import functools
from pathlib import Path
from collections.abc import Mapping
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import AfterValidator, Field, model_validator

from builders import morphology
from builders.errors import InputError
from builders.lexicon import Checker, LexiconError, check_schema, disjoint_roles, load_yaml
from builders.lexicon_schema import Preposition, Text, distinct, filled
from builders.morphology import en as forms
from builders.template import Strict

HERE = Path(__file__).parent
MIN_POOL = 5            # five agents, themes and locations per scene
MIN_SCENE_VERBS = 2     # type II pairs two verbs of one scene
MAX_CONTENT_WORDS = 2   # keeps the sentences of a paradigm lexically close
# a judgement of a sentence: natural (a candidate is SEQUENCE), anomalous (GRAMMAR), marginal (odd but
# not clearly wrong, or judged differently by speakers: no candidate makes a claim about it)
JUDGEMENTS = ("natural", "anomalous", "marginal")
VERB_FACTS = ("agents_move", "themes_move_agents")   # facts that list the scene verbs they hold for


class NP(NamedTuple):
    text: str
    plural: bool = False


class Location(NamedTuple):
    text: str
    at: str   # static: "The ball was in the gutter"
    to: str   # motion: "The ball rolled into the gutter"


class Scene(NamedTuple):
    """A setting whose words work with every verb of the scene, and the facts the rules read."""

    id: str
    verbs: tuple[str, ...]
    causative: tuple[str, ...]          # verbs whose transitive "AGENT <verb> THEME" is natural: the paradigms' verbs
    agents: tuple[NP, ...]
    themes: tuple[NP, ...]
    locations: tuple[Location, ...]
    agents_move: frozenset[str]         # verbs with which "AGENT <verb> into LOC" is natural (RR)
    agents_located: str                 # "AGENT was in LOC": natural, anomalous or marginal (SC-RR)
    themes_move_agents: frozenset[str]  # verbs with which "THEME <verb> AGENT" is natural (SC-RS)
    marginal: frozenset[tuple[str, str]] = frozenset()   # (verb fact, verb): marginal, no candidate

    def judgement(self, fact: str, verb: str) -> str:
        """``natural``, ``anomalous`` or ``marginal``: a verb fact (``agents_move``,
        ``themes_move_agents``) for one verb of the scene."""
        if (fact, verb) in self.marginal:
            return "marginal"
        return "natural" if verb in getattr(self, fact) else "anomalous"


class Lexicon(NamedTuple):
    verbs: dict[str, forms.Verb]
    scenes: tuple[Scene, ...]


def _noun_phrase(item: Any) -> Any:
    """A plain string (singular NP) or {pl: ...} (plural NP)."""
    plural = isinstance(item, Mapping) and set(item) == {"pl"}
    text = item["pl"] if plural else item
    if not isinstance(text, str):
        raise InputError(f"{item!r} must be a string (singular) or {{pl: ...}} (plural)")
    filled(text)
    return item


Lemmas = Annotated[tuple[Text, ...], AfterValidator(distinct)]
NounPhrases = Annotated[tuple[Annotated[Any, AfterValidator(_noun_phrase)], ...], Field(min_length=MIN_POOL)]


class VerbEntry(Strict):
    lemma: Text
    past: Text
    participle: Text

    @model_validator(mode="after")
    def _real_forms(self):
        error = forms.form_error(forms.Verb(self.lemma, self.past, self.participle))
        if error:
            raise InputError(error)
        return self


class LocationEntry(Strict):
    np: Text
    at: Preposition   # static: "The ball was in the gutter"
    to: Preposition   # motion: "The ball rolled into the gutter"


class Marginal(Strict):
    """Scene verbs for which a verb fact's sentence is marginal (*The raft floated the oarsman*)."""

    agents_move: Lemmas = ()
    themes_move_agents: Lemmas = ()


class SceneEntry(Strict):
    id: Text
    verbs: Annotated[Lemmas, Field(min_length=MIN_SCENE_VERBS)]
    causative: Lemmas
    agents_move: Lemmas
    agents_located: Literal[JUDGEMENTS]
    themes_move_agents: Lemmas
    marginal: Marginal = Field(default_factory=Marginal)
    agents: NounPhrases
    themes: NounPhrases
    locations: tuple[LocationEntry, ...] = Field(min_length=MIN_POOL)

    @model_validator(mode="after")
    def _facts_hold_for_scene_verbs(self):
        """The causative verbs and the verb facts name verbs of the scene; none is both natural and marginal."""
        lists = {key: getattr(self, key) for key in ("causative", *VERB_FACTS)}
        lists |= {f"marginal: {fact}": getattr(self.marginal, fact) for fact in VERB_FACTS}
        for key, lemmas in lists.items():
            for lemma in lemmas:
                if lemma not in self.verbs:
                    raise InputError(f"{key}: {lemma!r} is not a verb of this scene ({', '.join(self.verbs)})")
        for fact in VERB_FACTS:
            for lemma in getattr(self.marginal, fact):
                if lemma in getattr(self, fact):
                    raise InputError(f"marginal: {fact}: {lemma!r} is also listed as natural")
        return self


class RollLexicon(Strict):
    language: Text
    verbs: tuple[VerbEntry, ...] = Field(min_length=1)
    scenes: tuple[SceneEntry, ...] = Field(min_length=1)


@functools.cache
def load(language: str) -> Lexicon:
    path = HERE / "lexicons" / f"{language}.yaml"
    if not path.exists():
        raise LexiconError(path, None, "file", "no Roll lexicon for this language")
    return check(load_yaml(path), path)


def check(lex, path: Path) -> Lexicon:
    """The schema, then what it cannot state, as LexiconError (file, line, entry, reason): the file's language,
    unique lemmas and scene ids, scene verbs that are declared and used, the language's content and function
    words. Returns the verbs and scenes."""
    check_schema(lex, path, RollLexicon)
    c, language, line = Checker(path), lex["language"], lex.key_lines.get("language")
    if language != path.stem:
        raise LexiconError(path, line, "language", f"is {language!r} but the file is named {path.name}")
    try:
        function_words = morphology.function_words(language)
    except ValueError as err:  # no word lists for the file's language
        raise LexiconError(path, line, "language", str(err)) from None
    verbs = {}
    for entry in lex["verbs"]:
        lemma = entry["lemma"]
        if lemma in verbs:
            c.fail(entry, f"verb {lemma!r}", "listed twice")
        verbs[lemma] = forms.Verb(lemma, entry["past"], entry["participle"])
    scenes = []
    c.unique(lex["scenes"], "id", "scene")
    for entry in lex["scenes"]:
        name = f"scene {entry['id']!r}"
        for lemma in entry["verbs"]:
            if lemma not in verbs:
                c.fail(entry, name, f"verb {lemma!r} is not listed under 'verbs'")
        agents, themes = (tuple(_np(c, item, entry, f"{name}.{key}", language) for item in entry[key])
                          for key in ("agents", "themes"))
        locations = tuple(Location(item["np"], *(_prep(c, item, key, f"{name}.locations", function_words)
                                                 for key in ("at", "to"))) for item in entry["locations"])
        disjoint_roles(c, entry, name, {"agents": [a.text for a in agents], "themes": [t.text for t in themes],
                                         "locations": [loc.text for loc in locations]}, language)
        marginal = frozenset((fact, lemma) for fact, lemmas in entry.get("marginal", {}).items() for lemma in lemmas)
        scenes.append(Scene(entry["id"], tuple(entry["verbs"]), tuple(entry["causative"]), agents, themes, locations,
                            frozenset(entry["agents_move"]), entry["agents_located"],
                            frozenset(entry["themes_move_agents"]), marginal))
    unused = sorted(set(verbs) - {v for s in scenes for v in s.verbs})
    if unused:
        c.fail(lex["scenes"], "scenes", f"verbs in no scene: {', '.join(unused)}")
    return Lexicon(verbs, tuple(scenes))


def _np(c: Checker, item, parent, entry: str, language: str) -> NP:
    """A plain string (singular NP) or {pl: ...} (plural NP), of at most MAX_CONTENT_WORDS content words."""
    np = NP(item.strip()) if isinstance(item, str) else NP(item["pl"].strip(), True)
    if len(morphology.content_stems(np.text, language)) > MAX_CONTENT_WORDS:
        c.fail(parent, entry, f"{np.text!r} has more than {MAX_CONTENT_WORDS} content words")
    return np


def _prep(c: Checker, item, key: str, entry: str, function_words: frozenset[str]) -> str:
    prep = item[key]
    if any(word not in function_words for word in prep.split()):
        c.fail(item, entry, f"{key} {prep!r} is not a function word (builders/morphology/function_words/)")
    return prep
