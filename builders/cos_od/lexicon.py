"""Loading and checking a COS/OD lexicon (schema and facts: LEXICON.md beside this file).

One file per language and verb class: ``lexicons/<lang>_<cos|od>.yaml``. Besides the words, a verb
entry states the facts the rule judges read (builders/README.md, class policy): what its
intransitive is with the other argument as subject, whether Italian ``si`` is obligatory, whether
the roles can be swapped; ``by_place`` lists the nouns whose by/da-phrase reads as a place.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, NamedTuple

from builders.cos_od import verbs
from builders.lexicon import Checker, Entry, LexiconError, load_yaml

HERE = Path(__file__).parent
MIN_VERBS = 10
MIN_POOL = {"agents": 3, "themes": 3, "p_nps": 3, "by_nps": 2}
SLOT_POOLS = {"agent": "agents", "theme": "themes", "pnp": "p_nps", "bynp": "by_nps"}

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


def path_for(language: str, phenomenon: str) -> Path:
    return HERE / "lexicons" / f"{language}_{phenomenon}.yaml"


@functools.cache
def load(language: str, phenomenon: str) -> dict:
    path = path_for(language, phenomenon)
    if not path.exists():
        raise LexiconError(path, None, "file", f"no {phenomenon} lexicon for language {language!r}")
    return check(load_yaml(path), path)


def check(lex: Entry, path: Path) -> dict:
    """Raise LexiconError (file, line, entry, reason) on the first schema violation; return the
    realiser's view of the lexicon (``noun_info``, ``verbs``, ``verbs_by_lemma`` with phrases as
    ``Phrase``, ``not_with`` as a frozenset and the facts as ``VerbFacts``, ``by_place``)."""
    c = Checker(path)
    language = c.field(lex, "language", str, "language")
    stem_language, _, phenomenon = path.stem.partition("_")
    if language != stem_language:
        c.fail(lex, "language", f"is {language!r} but the file is named {path.name}")
    if phenomenon not in ("cos", "od"):
        c.fail(lex, "file", f"the file name must be <language>_cos.yaml or <language>_od.yaml, not {path.name}")
    morph = verbs.module(language)
    nouns = _nouns(c, lex, morph)
    si_marginal = frozenset(_si_passive_frames(c, lex, phenomenon, language, morph.FRAMES))
    verbs_ = c.field(lex, "verbs", list, "verbs")
    if len(verbs_) < MIN_VERBS:
        c.fail(lex, "verbs", f"needs at least {MIN_VERBS} verbs, has {len(verbs_)}")
    by_lemma, out_verbs = {}, []
    for i, verb in enumerate(verbs_):
        lemma = c.field(verb, "lemma", str, f"verbs[{i}]")
        entry = f"verb {lemma!r}"
        if lemma in by_lemma:
            c.fail(verb, entry, "duplicate lemma")
        forms = _forms(c, verb, entry, morph, language)
        for pool in ("agents", "themes"):
            for noun in c.strings(verb, pool, entry, MIN_POOL[pool]):
                if noun not in nouns:
                    c.fail(verb, entry, f"{pool[:-1]} {noun!r} has no entry under 'nouns'")
        overlap = set(verb["agents"]) & set(verb["themes"])
        if overlap:
            c.fail(verb, entry, f"{', '.join(sorted(overlap))} is both agent and theme")
        view = {"lemma": lemma, "forms": forms, "agents": list(verb["agents"]), "themes": list(verb["themes"]),
                "not_with": frozenset(_frames(c, verb, entry, morph.FRAMES)), "line": verb.line,
                "facts": _facts(c, verb, entry, phenomenon, language)._replace(patient_si_marginal_in=si_marginal)}
        for pool in ("p_nps", "by_nps"):
            view[pool] = _phrases(c, verb, pool, entry, morph.FRAMES)
        by_lemma[lemma] = view
        out_verbs.append(view)
    used = {n for v in out_verbs for n in (*v["agents"], *v["themes"])}
    unused = sorted(set(nouns) - used)
    if unused:
        c.fail(lex["nouns"], "nouns", f"{', '.join(unused)} not used by any verb (a typo?)")
    by_place = c.strings(lex, "by_place", "by_place", 0) if "by_place" in lex else []
    for noun in by_place:
        if noun not in nouns:
            c.fail(lex["by_place"], "by_place", f"{noun!r} is not a noun of 'nouns'")
    oriented = c.strings(lex, "agent_oriented", "agent_oriented", 0) if "agent_oriented" in lex else []
    phrases = {p.text for v in out_verbs for p in v["by_nps"]}
    for phrase in oriented:
        if phrase not in phrases:
            c.fail(lex["agent_oriented"], "agent_oriented", f"{phrase!r} is not a by-NP of any verb")
    return {"language": language, "phenomenon": phenomenon, "path": str(path), "noun_info": nouns,
            "verbs": out_verbs, "verbs_by_lemma": by_lemma, "by_place": frozenset(by_place),
            "agent_oriented": frozenset(oriented)}


def _at(node: Entry, key: str) -> Any:
    """A stand-in node whose line is that of ``key`` in ``node`` (errors point at the fact)."""
    line = (getattr(node, "key_lines", None) or {}).get(key, getattr(node, "line", None))
    return type("At", (), {"line": line})()


def _si_passive_frames(c: Checker, lex: Entry, phenomenon: str, language: str, frames) -> list[str]:
    """``patient_si_marginal_in``: the frames in which a *si passivante* with a preverbal definite subject
    is marginal (perfective pasts: *La statua si è scolpita*), where ``patient_si`` applies (it OD)."""
    key = "patient_si_marginal_in"
    if key not in lex:
        return []
    classes, languages, _, _ = FACTS["patient_si"]
    if phenomenon not in classes or language not in languages:
        c.fail(_at(lex, key), key, f"applies only where the fact 'patient_si' does, not to {language} {phenomenon}")
    listed = c.strings(lex, key, key)
    for frame in listed:
        if frame not in frames:
            c.fail(_at(lex, key), key, f"unknown frame {frame!r}; known: {', '.join(frames)}")
    return listed


def _facts(c: Checker, verb: Entry, entry: str, phenomenon: str, language: str) -> VerbFacts:
    """The facts of a verb entry, each written ``fact: {value: example sentence}`` (the example shows
    the fact in the language, and is spell-checked with the rest of the lexicon)."""
    values = {}
    for key, (classes, languages, allowed, default) in FACTS.items():
        applies = phenomenon in classes and language in languages
        if key not in verb:
            if applies and default is None:
                c.fail(verb, entry, f"missing fact {key!r}: write {key}: {{{' or '.join(allowed)}: an example sentence}}"
                       " (see LEXICON.md)")
            continue
        if not applies:
            c.fail(_at(verb, key), entry, f"fact {key!r} does not apply to {language} {phenomenon} verbs")
        allowed = AGENT_SI[phenomenon] if key == "agent_si" else allowed
        node = verb[key]
        if not (isinstance(node, dict) and len(node) == 1):
            c.fail(_at(verb, key), entry, f"fact {key!r} must be {{value: example sentence}}, e.g. "
                   f"{{{allowed[0]}: ...}}")
        (value, example), = node.items()
        if not isinstance(value, str) or value not in allowed:
            c.fail(_at(verb, key), entry, f"fact {key!r} is {value!r}; expected one of {', '.join(allowed)}"
                   + (" (YAML reads a bare no/yes as false/true: write none)" if isinstance(value, bool) else ""))
        if not isinstance(example, str) or not example.strip():
            c.fail(_at(verb, key), entry, f"fact {key!r}: give an example sentence that shows it")
        values[key] = value
    facts = VerbFacts(**values)
    if language == "it" and phenomenon == "cos" and facts.agent_intransitive == "undergoer" and facts.si != "optional":
        c.fail(_at(verb, "agent_intransitive"), entry, "agent_intransitive: undergoer needs si: optional "
               "(a bare intransitive exists only where si is optional)")
    return facts


def _forms(c: Checker, verb: Entry, entry: str, morph, language: str) -> dict:
    forms = c.field(verb, "forms", dict, entry)
    for name in morph.FORM_FIELDS:
        if name in morph.PERSON_FORMS:
            value = c.field(forms, name, list, f"{entry}.forms")
            if len(value) != 2 or not all(isinstance(v, str) and v.strip() for v in value):
                c.fail(forms, f"{entry}.forms", f"{name!r} must list the 3rd person singular and plural")
        else:
            c.field(forms, name, str, f"{entry}.forms")
    if language == "it" and not forms["participio"].endswith("o"):
        c.fail(forms, f"{entry}.forms", f"participio {forms['participio']!r} must be the masculine singular (-o)")
    return forms


def _nouns(c: Checker, lex: Entry, morph) -> dict[str, Noun]:
    """``nouns: {sg: [...], pl: [...]}`` (en) or ``{m: {sg, pl}, f: {sg, pl}}`` (it)."""
    table = c.field(lex, "nouns", dict, "nouns")
    articles = lex.get("articles") or {}
    out: dict[str, Noun] = {}
    groups = [(g, table.get(g)) for g in morph.GENDERS] if morph.GENDERS else [("", table)]
    for gender, node in groups:
        if gender and node is None:
            c.fail(table, "nouns", f"missing gender {gender!r}")
        for number in ("sg", "pl"):
            where = f"nouns.{gender + '.' if gender else ''}{number}"
            forms = c.strings(node, number, where, 0) if number in node else []
            for form in forms:
                if form in out:
                    c.fail(node, where, f"{form!r} is listed twice")
                out[form] = Noun(form, number, gender, articles.get(form))
    for form in articles:
        if form not in out:
            c.fail(lex, "articles", f"{form!r} is not a noun of 'nouns'")
    return out


def _frames(c: Checker, node: Entry, entry: str, frames, required: bool = False) -> list[str]:
    """A ``not_with`` list: frames the verb or phrase does not go with (must leave enough to use)."""
    if "not_with" not in node and not required:
        return []
    not_with = c.strings(node, "not_with", entry)
    for frame in not_with:
        if frame not in frames:
            c.fail(node, entry, f"unknown frame {frame!r} in not_with; known: {', '.join(frames)}")
    if len(frames) - len(not_with) < 5:
        c.fail(node, entry, "not_with leaves fewer than 5 frames (4 pairs + the balanced set's other frame)")
    return not_with


def _phrases(c: Checker, verb: Entry, pool: str, entry: str, frames) -> list[Phrase]:
    items = c.field(verb, pool, list, entry)
    if len(items) < MIN_POOL[pool]:
        c.fail(verb, entry, f"{pool!r} needs at least {MIN_POOL[pool]} items, has {len(items)}")
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(Phrase(item, frozenset()))
            continue
        text = c.field(item, "text", str, f"{entry}.{pool}")
        out.append(Phrase(text, frozenset(_frames(c, item, f"{entry}.{pool} {text!r}", frames, required=True))))
    texts = [p.text for p in out]
    duplicates = sorted({t for t in texts if texts.count(t) > 1})
    if duplicates:
        c.fail(verb, entry, f"{pool!r} repeats {', '.join(duplicates)}")
    return out
