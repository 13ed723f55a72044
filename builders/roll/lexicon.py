"""Loading and checking the Roll-verb lexicon (schema and facts: LEXICON.md beside this file)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

from builders import morphology
from builders.lexicon import Checker, LexiconError, disjoint_roles, load_yaml
from builders.morphology import en as forms

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


@functools.cache
def load(language: str) -> Lexicon:
    path = HERE / "lexicons" / f"{language}.yaml"
    if not path.exists():
        raise LexiconError(path, None, "file", "no Roll lexicon for this language")
    return check(load_yaml(path), path)


def check(lex, path: Path) -> Lexicon:
    """The verbs and scenes of a lexicon; raises LexiconError (file, line, entry, reason)."""
    c = Checker(path)
    language = c.field(lex, "language", str, "language")
    if language != path.stem:
        c.fail(lex, "language", f"is {language!r} but the file is named {path.name}")
    function_words = morphology.function_words(language)
    verbs = {}
    for i, entry in enumerate(c.field(lex, "verbs", list, "verbs")):
        lemma = c.field(entry, "lemma", str, f"verbs[{i}]")
        if lemma in verbs:
            c.fail(entry, f"verb {lemma!r}", "listed twice")
        verb = forms.Verb(lemma, c.field(entry, "past", str, f"verb {lemma!r}"),
                          c.field(entry, "participle", str, f"verb {lemma!r}"))
        if forms.form_error(verb):
            c.fail(entry, f"verb {lemma!r}", forms.form_error(verb))
        verbs[lemma] = verb
    scenes, seen = [], set()
    for i, entry in enumerate(c.field(lex, "scenes", list, "scenes")):
        sid = c.field(entry, "id", str, f"scenes[{i}]")
        name = f"scene {sid!r}"
        if sid in seen:
            c.fail(entry, name, "duplicate id")
        seen.add(sid)
        scene_verbs = c.strings(entry, "verbs", name, MIN_SCENE_VERBS)
        for lemma in scene_verbs:
            if lemma not in verbs:
                c.fail(entry, name, f"verb {lemma!r} is not listed under 'verbs'")
        causative = c.strings(entry, "causative", name, 0)
        for lemma in causative:
            if lemma not in scene_verbs:
                c.fail(entry, name, f"causative: {lemma!r} is not a verb of this scene ({', '.join(scene_verbs)})")
        agents = _pool(c, entry, "agents", name, language)
        themes = _pool(c, entry, "themes", name, language)
        locations = tuple(Location(c.field(item, "np", str, f"{name}.locations"),
                                   *(_prep(c, item, key, f"{name}.locations", function_words) for key in ("at", "to")))
                          for item in c.field(entry, "locations", list, name))
        for role, pool in (("agents", agents), ("themes", themes), ("locations", locations)):
            if len(pool) < MIN_POOL:
                c.fail(entry, name, f"{role!r} needs at least {MIN_POOL} noun phrases, has {len(pool)}")
        disjoint_roles(c, entry, name, {"agents": [a.text for a in agents], "themes": [t.text for t in themes],
                                         "locations": [loc.text for loc in locations]}, language)
        located = c.one_of(entry, "agents_located", JUDGEMENTS, name)
        facts = {key: _verb_fact(c, entry, key, name, scene_verbs) for key in VERB_FACTS}
        scenes.append(Scene(sid, tuple(scene_verbs), tuple(causative), agents, themes, locations,
                            facts["agents_move"], located, facts["themes_move_agents"],
                            _marginal(c, entry, name, scene_verbs, facts)))
    unused = sorted(set(verbs) - {v for s in scenes for v in s.verbs})
    if unused:
        c.fail(lex, "scenes", f"verbs in no scene: {', '.join(unused)}")
    return Lexicon(verbs, tuple(scenes))


def _marginal(c: Checker, entry, name: str, scene_verbs: list[str], facts: dict[str, frozenset[str]]
              ) -> frozenset[tuple[str, str]]:
    """Optional ``marginal: {themes_move_agents: [float]}``: scene verbs for which a verb fact's
    sentence is marginal (*The raft floated the oarsman*), so no candidate claims a class for it."""
    node = entry.get("marginal", {})
    if not isinstance(node, dict):
        c.fail(entry, name, f"marginal must map a fact ({', '.join(VERB_FACTS)}) to scene verbs")
    out = set()
    for fact in node:
        if fact not in VERB_FACTS:
            c.fail(node, f"{name}.marginal", f"{fact!r} is not a verb fact; expected one of {', '.join(VERB_FACTS)}")
        for lemma in _verb_fact(c, node, fact, f"{name}.marginal", scene_verbs):
            if lemma in facts[fact]:
                c.fail(node, f"{name}.marginal", f"{fact}: {lemma!r} is also listed as natural")
            out.add((fact, lemma))
    return frozenset(out)


def _verb_fact(c: Checker, entry, key: str, name: str, scene_verbs: list[str]) -> frozenset[str]:
    """A fact that lists the scene verbs it holds for (``[]``: none)."""
    values = c.field(entry, key, list, name)
    for value in values:
        if value not in scene_verbs:
            c.fail(entry, name, f"{key}: {value!r} is not a verb of this scene ({', '.join(scene_verbs)})")
    return frozenset(values)


def _pool(c: Checker, entry, key: str, name: str, language: str) -> tuple[NP, ...]:
    return tuple(_np(c, item, entry, f"{name}.{key}", language) for item in c.field(entry, key, list, name))


def _np(c: Checker, item, parent, entry: str, language: str) -> NP:
    """A plain string (singular NP) or {pl: ...} (plural NP)."""
    if isinstance(item, str):
        np = NP(item.strip())
    elif isinstance(item, dict) and set(item) == {"pl"}:
        np = NP(c.field(item, "pl", str, entry).strip(), True)
    else:
        c.fail(parent, entry, f"{item!r} must be a string (singular) or {{pl: ...}} (plural)")
    if len(morphology.content_stems(np.text, language)) > MAX_CONTENT_WORDS:
        c.fail(parent, entry, f"{np.text!r} has more than {MAX_CONTENT_WORDS} content words")
    return np


def _prep(c: Checker, item, key: str, entry: str, function_words: frozenset[str]) -> str:
    if isinstance(item.get(key), bool):
        c.fail(item, entry, f"{key} reads as a boolean: quote it (YAML takes on/off/yes/no for true/false)")
    prep = c.field(item, key, str, entry)
    if any(word not in function_words for word in prep.split()):
        c.fail(item, entry, f"{key} {prep!r} is not a function word (builders/morphology/function_words/)")
    return prep
