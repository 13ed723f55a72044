"""Loading and checking the CausH synthetic lexicon (schema: LEXICON.md beside this file)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import Path

from builders.lexicon import Checker, Entry, LexiconError, load_yaml

HERE = Path(__file__).parent
MIN_ROOTS = 40
_HEBREW = re.compile(r"^[\u05d0-\u05ea]+$")
# What the spelling of each binyan must look like, cell by cell (past 3sg/3pl, present):
# a cheap guard against a form filed under the wrong binyan.
PREFIX = {"NIFAL": ("נ", "נ"), "HIFIL": ("ה", "מ"), "HUFAL": ("הו", "מו"), "PAAL": ("", "")}


@functools.cache
def load(language: str, binyanim: tuple[str, ...], cells: tuple[str, ...]) -> Entry:
    path = HERE / "lexicons" / f"{language}.yaml"
    if not path.exists():
        raise LexiconError(path, None, "file", "no CausH lexicon for this language")
    lex = load_yaml(path)
    check(lex, path, binyanim, cells)
    return lex


def check(lex: Entry, path: Path, binyanim: Sequence[str], cells: Sequence[str]) -> None:
    """Raise LexiconError (file, line, entry, reason) on the first schema violation."""
    c = Checker(path)
    language = c.field(lex, "language", str, "language")
    if language != path.stem:
        c.fail(lex, "language", f"is {language!r} but the file is named {path.name}")
    roots = c.field(lex, "roots", dict, "roots")
    if len(roots) < MIN_ROOTS:
        c.fail(lex, "roots", f"needs at least {MIN_ROOTS} roots that exist in all four binyanim, has {len(roots)}")
    for root, entry in roots.items():
        name = f"root {root!r}"
        if not isinstance(root, str) or not _HEBREW.match(root):
            c.fail(lex, name, "a root is written in Hebrew letters")
        if not isinstance(entry, dict):
            c.fail(lex, name, "expected a mapping binyan -> forms")
        missing = [b for b in binyanim if b not in entry]
        if missing:
            c.fail(entry, name, f"no forms for {', '.join(missing)} (every root must exist in all four binyanim)")
        unknown = sorted(set(entry) - set(binyanim))
        if unknown:
            c.fail(entry, name, f"unknown binyan {', '.join(unknown)}; expected {', '.join(binyanim)}")
        for binyan in binyanim:
            forms = entry[binyan]
            if not isinstance(forms, list) or len(forms) != len(cells):
                c.fail(entry, f"{name}.{binyan}", f"needs {len(cells)} forms ({', '.join(cells)}), got {forms!r}")
            for cell, form in zip(cells, forms):
                if not isinstance(form, str) or not _HEBREW.match(form):
                    c.fail(entry, f"{name}.{binyan}", f"{cell} form {form!r} is not a Hebrew word")
                start = PREFIX[binyan][0 if cell.startswith("past") else 1] if binyan in PREFIX else ""
                if not form.startswith(start):
                    c.fail(entry, f"{name}.{binyan}", f"{cell} form {form!r} should start with {start!r}")
        for i, cell in enumerate(cells):
            column = [entry[b][i] for b in binyanim]
            if len(set(column)) < len(column):
                c.fail(entry, name, f"two binyanim share the {cell} form: {', '.join(column)}")
