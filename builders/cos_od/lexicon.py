"""Loading and checking a COS/OD lexicon (schema: LEXICON.md beside this file).

One file per language and verb class: ``lexicons/<lang>_<cos|od>.yaml``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

from builders.cos_od import verbs
from builders.lexicon import Checker, Entry, LexiconError, load_yaml

HERE = Path(__file__).parent
MIN_VERBS = 10
MIN_POOL = {"agents": 3, "themes": 3, "p_nps": 3, "by_nps": 2}
SLOT_POOLS = {"agent": "agents", "theme": "themes", "pnp": "p_nps", "bynp": "by_nps"}


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


def path_for(language: str, phenomenon: str) -> Path:
    return HERE / "lexicons" / f"{language}_{phenomenon}.yaml"


@functools.cache
def load(language: str, phenomenon: str) -> dict:
    path = path_for(language, phenomenon)
    if not path.exists():
        raise LexiconError(path, None, "file", f"no {phenomenon} lexicon for language {language!r}")
    lex = load_yaml(path)
    return check(lex, path)


def check(lex: Entry, path: Path) -> dict:
    """Raise LexiconError (file, line, entry, reason) on the first schema violation; return the
    realiser's view of the lexicon (``noun_info``, ``verbs``, ``verbs_by_lemma`` with phrases as
    ``Phrase`` and ``not_with`` as a frozenset). The parsed YAML itself is left untouched."""
    c = Checker(path)
    language = c.field(lex, "language", str, "language")
    if language != path.stem.split("_")[0]:
        c.fail(lex, "language", f"is {language!r} but the file is named {path.name}")
    morph = verbs.module(language)
    nouns = _nouns(c, lex, morph)
    verbs_ = c.field(lex, "verbs", list, "verbs")
    if len(verbs_) < MIN_VERBS:
        c.fail(lex, "verbs", f"needs at least {MIN_VERBS} verbs, has {len(verbs_)}")
    by_lemma, out_verbs = {}, []
    for i, verb in enumerate(verbs_):
        lemma = c.field(verb, "lemma", str, f"verbs[{i}]")
        entry = f"verb {lemma!r}"
        if lemma in by_lemma:
            c.fail(verb, entry, "duplicate lemma")
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
        for pool in ("agents", "themes"):
            for noun in c.strings(verb, pool, entry, MIN_POOL[pool]):
                if noun not in nouns:
                    c.fail(verb, entry, f"{pool[:-1]} {noun!r} has no entry under 'nouns'")
        overlap = set(verb["agents"]) & set(verb["themes"])
        if overlap:
            c.fail(verb, entry, f"{', '.join(sorted(overlap))} is both agent and theme")
        view = {"lemma": lemma, "forms": forms, "agents": list(verb["agents"]), "themes": list(verb["themes"]),
                "not_with": frozenset(_frames(c, verb, entry, morph.FRAMES)), "line": verb.line}
        for pool in ("p_nps", "by_nps"):
            view[pool] = _phrases(c, verb, pool, entry, morph.FRAMES)
        by_lemma[lemma] = view
        out_verbs.append(view)
    used = {n for v in out_verbs for n in (*v["agents"], *v["themes"])}
    unused = sorted(set(nouns) - used)
    if unused:
        c.fail(lex["nouns"], "nouns", f"{', '.join(unused)} not used by any verb (a typo?)")
    return {"language": language, "path": str(path), "noun_info": nouns, "verbs": out_verbs,
            "verbs_by_lemma": by_lemma}


def _nouns(c: Checker, lex: Entry, morph) -> dict[str, Noun]:
    """``nouns: {sg: [...], pl: [...]}`` (en) or ``{m: {sg, pl}, f: {sg, pl}}`` (it)."""
    table = c.field(lex, "nouns", dict, "nouns")
    articles = lex.get("articles") or {}
    out: dict[str, Noun] = {}
    groups = [(g, table[g]) for g in morph.GENDERS] if morph.GENDERS else [("", table)]
    for gender, node in groups:
        if gender and gender not in table:
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
