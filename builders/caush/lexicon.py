"""The CausH synthetic lexicon: its schema (pydantic, LEXICON.md beside this file), built for the template's
binyanim and cells: every root in every binyan, one Hebrew form per cell, each spelt as its binyan is."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, Field, create_model, model_validator

from builders.errors import InputError
from builders.lexicon import Checker, Entry, check_schema, load_checked
from builders.template import Strict

HERE = Path(__file__).parent
MIN_ROOTS = 40
_HEBREW = re.compile(r"^[\u05d0-\u05ea]+$")
# What the spelling of each binyan must look like, cell by cell (past 3sg/3pl, present):
# a cheap guard against a form filed under the wrong binyan.
PREFIX = {"NIFAL": ("נ", "נ"), "HIFIL": ("ה", "מ"), "HUFAL": ("הו", "מו"), "PAAL": ("", "")}


def _hebrew(word: str) -> str:
    if not _HEBREW.match(word):
        raise InputError(f"{word!r} is not a Hebrew word (Hebrew letters only)")
    return word


HebrewWord = Annotated[str, AfterValidator(_hebrew)]


@functools.cache
def schema(binyanim: tuple[str, ...], cells: tuple[str, ...]) -> type[Strict]:
    """The lexicon's model for these binyanim and cells (the template's)."""
    forms = Annotated[tuple[HebrewWord, ...], Field(min_length=len(cells), max_length=len(cells))]

    def spelt_as_binyan(root):
        """Each cell's form starts as its binyan's do, and no two binyanim share a cell's form."""
        for binyan in binyanim:
            for cell, form in zip(cells, getattr(root, binyan)):
                start = PREFIX.get(binyan, ("", ""))[0 if cell.startswith("past") else 1]
                if not form.startswith(start):
                    raise InputError(f"{binyan}: {cell} form {form!r} should start with {start!r}")
        for i, cell in enumerate(cells):
            column = [getattr(root, b)[i] for b in binyanim]
            if len(set(column)) < len(column):
                raise InputError(f"two binyanim share the {cell} form: {', '.join(column)}")
        return root

    root = create_model("CausHRoot", __base__=Strict, __validators__={
        "_spelling": model_validator(mode="after")(spelt_as_binyan)}, **{b: (forms, ...) for b in binyanim})
    return create_model("CausHLexicon", __base__=Strict, language=(str, ...),
                        roots=(dict[HebrewWord, root], ...))


@functools.cache
def load(language: str, binyanim: tuple[str, ...], cells: tuple[str, ...]) -> Entry:
    path = HERE / "lexicons" / f"{language}.yaml"
    return load_checked(path, lambda lex, p: check(lex, p, binyanim, cells), "CausH")


def check(lex: Entry, path: Path, binyanim: Sequence[str], cells: Sequence[str]) -> None:
    """The schema, then the file's language and the number of roots, as LexiconError (file, line, entry,
    reason)."""
    check_schema(lex, path, schema(tuple(binyanim), tuple(cells)))
    c = Checker(path)
    if lex["language"] != path.stem:
        c.fail(lex, "language", f"is {lex['language']!r} but the file is named {path.name}")
    if len(lex["roots"]) < MIN_ROOTS:
        c.fail(lex, "roots", f"needs at least {MIN_ROOTS} roots that exist in all four binyanim, has "
                             f"{len(lex['roots'])}")
