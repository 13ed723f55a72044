"""Reading released text files and their cells: encodings, booleans, chunk lists.

The releases were written by pandas and by hand over several years, so the same thing is spelt
several ways: ``True``/``False``/``1``/``0``/``1.0``, chunk lists as Python or JSON lists, files with
or without a BOM and with LF or CRLF line ends.
"""

from __future__ import annotations

import ast
import codecs
import json
from pathlib import Path

from blm_datasets.importer.rows import ReleaseError

_TRUE = {"true", "1", "1.0", "yes", "t"}
_FALSE = {"false", "0", "0.0", "no", "f"}


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """The file's text (a UTF-8 BOM dropped, CRLF kept for the csv module); undecodable bytes name their line."""
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise ReleaseError(f"--encoding {encoding!r}: not a text encoding Python knows (e.g. utf-8, latin-1, "
                           "cp1252)") from None
    data = path.read_bytes()
    if name == "utf-8":
        encoding = "utf-8-sig"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise ReleaseError(
            f"{path}:{line}: not {name} text (byte 0x{data[err.start]:02x} at column {column}: {err.reason}); "
            f"convert the file to UTF-8, or pass --encoding (e.g. --encoding latin-1) if it is in another "
            f"encoding") from None


def parse_bool(text: str) -> bool | None:
    """True/False for the spellings the releases use, None for anything else."""
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    return None


def parse_list(text: str) -> list[str] | None:
    """A chunk list cell (``['L’ ordinateur', 'avec le programme', '', …]`` or JSON); None if it is not one."""
    text = text.strip()
    if not text.startswith("["):
        return None
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return [v.strip() for v in value]
    return None


def joined_chunks(chunks: list[str]) -> str:
    """The sentence a chunk list spells: its non-empty chunks joined by single spaces."""
    return " ".join(c for c in chunks if c)


def squash_spaces(text: str) -> str:
    """``text`` with every run of white space made one space, stripped."""
    return " ".join(text.split())
