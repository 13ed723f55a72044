"""Loading and checking the SeqTense/Mixture lexicon (schema: LEXICON.md beside this file)."""

from __future__ import annotations

import functools
from pathlib import Path

from builders.lexicon import Checker, Entry, load_checked

HERE = Path(__file__).parent
NUMBERS = ("sg", "pl")
FORMS = ("ms", "fs", "mp", "fp")
COPULA_TENSES = ("CPas", "CnPr", "IFut", "IPr")
MIN_SUBJECTS, MIN_FRAMES, MIN_ATTRACTORS = 10, 8, 4


@functools.cache
def load(language: str) -> Entry:
    lex = load_checked(HERE / "lexicons" / f"{language}.yaml", check, "sequence-of-tense")
    return lex


def check(lex: Entry, path: Path) -> None:
    """Raise LexiconError (file, line, entry, reason) on the first schema violation."""
    c = Checker(path)
    language = c.field(lex, "language", str, "language")
    if language != path.stem:
        c.fail(lex, "language", f"is {language!r} but the file is named {path.name}")
    c.field(lex, "premise_marker", str, "premise_marker")
    c.field(lex, "consequent_marker", str, "consequent_marker")
    copula = c.field(lex, "copula", dict, "copula")
    for tense in COPULA_TENSES:
        forms = c.field(copula, tense, dict, "copula")
        sg, pl = (c.field(forms, n, str, f"copula.{tense}") for n in NUMBERS)
        c.field(forms, "first_singular", str, f"copula.{tense}")
        if sg == pl:
            c.fail(forms, f"copula.{tense}", f"singular and plural are both {sg!r}: agreement would be invisible")
    _four_forms(c, c.field(lex, "participle", dict, "participle"), "participle")
    subjects = c.field(lex, "subjects", list, "subjects")
    if len(subjects) < MIN_SUBJECTS:
        c.fail(lex, "subjects", f"needs at least {MIN_SUBJECTS} subjects, has {len(subjects)}")
    seen = set()
    for i, subject in enumerate(subjects):
        sid = c.field(subject, "id", str, f"subjects[{i}]")
        if sid in seen:
            c.fail(subject, f"subject {sid!r}", "duplicate id")
        seen.add(sid)
        for gender in ("m", "f"):
            forms = c.field(subject, gender, dict, f"subject {sid!r}")
            for number in NUMBERS:
                c.field(forms, number, str, f"subject {sid!r}.{gender}")
    adjectives = c.field(lex, "adjectives", dict, "adjectives")
    for key, forms in adjectives.items():
        _four_forms(c, forms, f"adjectives.{key}")
    frames = c.field(lex, "frames", list, "frames")
    if len(frames) < MIN_FRAMES:
        c.fail(lex, "frames", f"needs at least {MIN_FRAMES} adjective pairs, has {len(frames)}")
    for i, frame in enumerate(frames):
        for role in ("premise", "consequent"):
            adj = c.field(frame, role, str, f"frames[{i}]")
            if adj not in adjectives:
                c.fail(frame, f"frames[{i}]", f"{role} adjective {adj!r} has no entry under 'adjectives'")
        if "subjects" in frame:
            fitting = c.strings(frame, "subjects", f"frames[{i}]", 1)
            unknown = sorted(set(fitting) - seen)
            if unknown:
                c.fail(frame, f"frames[{i}]", f"subjects {unknown} are not subject ids")
    attractors = c.field(lex, "attractors", dict, "attractors")
    c.strings(attractors, "intros", "attractors", 1)
    nouns = c.field(attractors, "nouns", list, "attractors")
    genders = {n.get("sg"): n.get("gender") for n in nouns if isinstance(n, dict)}
    for i, frame in enumerate(frames):
        if "attractors" in frame:
            conceded = c.strings(frame, "attractors", f"frames[{i}]", 2)
            unknown = sorted(set(conceded) - set(genders))
            if unknown:
                c.fail(frame, f"frames[{i}]", f"attractors {unknown} are not attractor nouns (singular forms)")
            for gender in ("m", "f"):
                if not any(genders[a] == gender for a in conceded):
                    c.fail(frame, f"frames[{i}]", f"attractors: needs at least one noun of gender {gender!r}")
    for gender in ("m", "f"):
        count = sum(isinstance(n, dict) and n.get("gender") == gender for n in nouns)
        if count < MIN_ATTRACTORS:
            c.fail(attractors, "attractors.nouns", f"needs at least {MIN_ATTRACTORS} nouns of gender {gender!r}")
    for i, noun in enumerate(nouns):
        entry = f"attractors.nouns[{i}]"
        c.one_of(noun, "gender", ("m", "f"), entry)
        sg, pl = (c.field(noun, n, str, entry) for n in NUMBERS)
        if sg == pl:
            c.fail(noun, entry, f"singular and plural are both {sg!r}: the attractor's number would be invisible")


def _four_forms(c: Checker, node: dict, entry: str) -> None:
    forms = [c.field(node, f, str, entry) for f in FORMS]
    if len(set(forms)) < 2:
        c.fail(node, entry, "all four forms are identical: agreement would be invisible")
