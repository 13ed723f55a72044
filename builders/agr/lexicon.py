"""Loading and checking an agreement lexicon (schema: LEXICON.md beside this file)."""

from __future__ import annotations

import functools
from pathlib import Path

from builders import morphology
from builders.lexicon import Checker, Entry, load_checked

HERE = Path(__file__).parent
MIN_SEEDS, MIN_ALTERNATIVES, MIN_POOL = 32, 5, 10
SLOTS = ("subject", "attractor1", "attractor2")


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
    repeats = c.field(lex, "coordination_repeats", list, "coordination_repeats")
    if any(not isinstance(p, str) or not p.strip() for p in repeats):
        c.fail(lex, "coordination_repeats", "must be a list of prepositions")
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
    seeds = c.field(lex, "seeds", list, "seeds")
    if len(seeds) < MIN_SEEDS:
        c.fail(lex, "seeds", f"needs at least {MIN_SEEDS} seeds, has {len(seeds)}")
    seen = set()
    for i, seed in enumerate(seeds):
        sid = c.field(seed, "id", str, f"seeds[{i}]")
        entry = f"seed {sid!r}"
        if sid in seen:
            c.fail(seed, entry, "duplicate id")
        seen.add(sid)
        c.field(seed, "subject", str, entry)
        a1 = c.field(seed, "attractor1", dict, entry)
        c.field(a1, "prep", str, entry + ".attractor1")
        c.field(a1, "noun", str, entry + ".attractor1")
        c.field(seed, "attractor2", str, entry)
        alternatives = c.field(seed, "alternatives", dict, entry)
        for slot, noun in seed_nouns(seed).items():
            alts = c.strings(alternatives, slot, f"{entry}.alternatives", MIN_ALTERNATIVES)
            for key in [noun, *alts]:
                if key not in nouns:
                    c.fail(seed, entry, f"noun {key!r} ({slot}) has no entry under 'nouns'")
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


def _check_numbers(c: Checker, node: dict, entry: str) -> None:
    sg, pl = c.field(node, "sg", str, entry), c.field(node, "pl", str, entry)
    if sg == pl:
        c.fail(node, entry, f"singular and plural are both {sg!r}: agreement would be invisible")
