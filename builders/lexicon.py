"""Loading and checking the YAML lexicons and templates shipped with each phenomenon.

Every mapping and list remembers the file and line it starts on, so a malformed file fails with
``file:line: entry: reason`` instead of a KeyError deep in the realiser. Duplicate keys, bytes that
are not UTF-8, empty or binary files and directories are errors too (YAML itself would take a
duplicate key silently, the later one winning).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from builders import morphology
from builders.errors import InputError


class LexiconError(InputError):
    """A lexicon or template file is malformed; the message names file, line and entry."""

    def __init__(self, path: Path | str, line: int | None, entry: str, reason: str):
        where = f"{path}:{line}" if line else f"{path}"
        super().__init__(f"{where}: {entry}: {reason}")
        self.path, self.line, self.entry, self.reason = str(path), line, entry, reason


class Entry(dict):
    """A YAML mapping that knows its file, its 1-based line and the line of each key."""

    line: int | None = None
    source: str | None = None
    key_lines: dict | None = None


class Items(list):
    """A YAML sequence that knows its file and 1-based line number."""

    line: int | None = None
    source: str | None = None


def line_loader(base: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)) -> type:
    """A safe YAML loader whose mappings and sequences remember file and line, and which rejects duplicate keys.
    The default base is libyaml's parser (C), which keeps the line marks and is several times faster than the
    pure-Python one (benchmarks/bench_lexicons.py)."""

    class LineLoader(base):
        source: str | None = None

        def construct_mapping(self, node, deep=False):  # noqa: D102 - yaml hook
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if isinstance(key, (str, int, float, bool)) and key in seen:
                    raise LexiconError(self.source, key_node.start_mark.line + 1, f"key {key!r}",
                                       f"duplicate key (first at line {seen[key]}); YAML would keep only the later one")
                if isinstance(key, (str, int, float, bool)):
                    seen[key] = key_node.start_mark.line + 1
            entry = Entry(super().construct_mapping(node, deep=deep))
            entry.line, entry.source, entry.key_lines = node.start_mark.line + 1, self.source, seen
            return entry

        def construct_sequence(self, node, deep=False):  # noqa: D102 - yaml hook
            items = Items(super().construct_sequence(node, deep=deep))
            items.line, items.source = node.start_mark.line + 1, self.source
            return items

    LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, LineLoader.construct_mapping)
    LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, LineLoader.construct_sequence)
    return LineLoader


_LineLoader = line_loader()


def read_text(path: Path | str, what: str = "file") -> str:
    """A user or package text file as UTF-8, with located errors for the usual ways it goes wrong."""
    path = Path(path)
    if path.is_dir():
        raise LexiconError(path, None, what, "is a directory; give a file")
    if not path.exists():
        raise LexiconError(path, None, what, "does not exist")
    data = path.read_bytes()
    if not data.strip():
        raise LexiconError(path, 1, what, "is empty")
    if b"\x00" in data:
        raise LexiconError(path, data[: data.index(b"\x00")].count(b"\n") + 1, what,
                           "holds NUL bytes: a binary file, not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise LexiconError(path, line, what, f"byte 0x{data[err.start]:02x} is not UTF-8; save the file as UTF-8") from None


@functools.cache
def load_yaml(path: Path) -> Entry:
    """Parse a YAML file into line-aware mappings (cached: files are read once per process)."""
    text = read_text(path)
    loader = _LineLoader(text)
    loader.source = str(path)
    try:
        data = loader.get_single_data()
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise LexiconError(path, mark.line + 1 if mark else None, "file", f"invalid YAML: {err}") from None
    finally:
        loader.dispose()
    if not isinstance(data, Mapping):
        raise LexiconError(path, 1, "file", "expected a mapping at the top level")
    return data


def load_checked(path: Path, check, what: str) -> Entry:
    """Parse a phenomenon's lexicon and run its schema check; a missing file names the language."""
    if not path.exists():
        raise LexiconError(path, None, "file", f"no {what} lexicon for this language")
    lex = load_yaml(path)
    check(lex, path)
    return lex


def check_schema(lex: Entry, path: Path, schema: type) -> None:
    """``lex`` against a pydantic schema (shapes, types, required and unknown keys, per-entry rules): the first
    problem as a LexiconError ``file:line: entry: reason``."""
    from builders.template import validated  # template.py imports this module

    validated(lex, schema, path)


class Checker:
    """Small declarative checks with located error messages."""

    def __init__(self, path: Path | str):
        self.path = path

    def fail(self, node: Any, entry: str, reason: str) -> None:
        raise LexiconError(self.path, getattr(node, "line", None), entry, reason)

    def field(self, node: Mapping, key: str, kind: type | tuple[type, ...], entry: str) -> Any:
        if not isinstance(node, Mapping):
            self.fail(node, entry, "expected a mapping")
        if key not in node:
            self.fail(node, entry, f"missing field {key!r}")
        value = node[key]
        if not isinstance(value, kind):
            names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            self.fail(node, entry, f"field {key!r} must be {names}, got {type(value).__name__}")
        if isinstance(value, str) and not value.strip():
            self.fail(node, entry, f"field {key!r} is empty")
        return value

    def unique(self, nodes: Iterable[Mapping], key: str, what: str) -> None:
        """Fail at the first entry whose ``key`` repeats an earlier entry's (``what 'value': duplicate key``)."""
        seen: set = set()
        for node in nodes:
            if node[key] in seen:
                self.fail(node, f"{what} {node[key]!r}", f"duplicate {key}")
            seen.add(node[key])

    def strings(self, node: Mapping, key: str, entry: str, minimum: int = 1) -> list[str]:
        values = self.field(node, key, list, entry)
        if len(values) < minimum:
            self.fail(node, entry, f"{key!r} needs at least {minimum} items, has {len(values)}")
        for value in values:
            if not isinstance(value, str) or not value.strip():
                self.fail(node, entry, f"{key!r} holds a non-string or empty item: {value!r}")
        duplicates = sorted({v for v in values if values.count(v) > 1})
        if duplicates:
            self.fail(node, entry, f"{key!r} repeats {', '.join(duplicates)}")
        return values

    def one_of(self, node: Mapping, key: str, allowed: Iterable[str], entry: str) -> str:
        value = self.field(node, key, str, entry)
        allowed = tuple(allowed)
        if value not in allowed:
            self.fail(node, entry, f"{key!r} is {value!r}; expected one of {', '.join(allowed)}")
        return value


def disjoint_roles(c: Checker, entry: Any, name: str, pools: Mapping[str, list[str]], language: str,
                   owner: Mapping[str, str] | None = None) -> None:
    """The noun phrases of different roles share no content word with each other or with ``owner``
    (stem -> what uses it, e.g. the verb): *the boatman* / *the boat* would leave roles untellable
    apart and type I sentences too few distinct words."""
    owner = dict(owner or {})
    for role, texts in pools.items():
        role_stems: dict[str, str] = {}
        for text in texts:
            for stem in morphology.content_stems(text, language):
                role_stems.setdefault(stem, text)
        for stem, text in role_stems.items():
            if stem in owner:
                c.fail(entry, name, f"{text!r} ({role}) shares the word stem {stem!r} with {owner[stem]}")
        owner.update({stem: f"{text!r} ({role})" for stem, text in role_stems.items()})
