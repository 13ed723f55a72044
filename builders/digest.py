"""Digests of the code that computes something, so that what is cached or resumed is keyed on it.

`tree_digest` covers whole packages (the datasets cache: generator code, templates and lexicons);
`code_digest` covers named functions and classes (the embedding cache: tokenising, the layer, pooling), so an
edit elsewhere does not throw away a costly cache but an edit to the code that made it does.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
from collections.abc import Iterable
from pathlib import Path

DIGEST_CHARS = 16
BASE = Path(__file__).resolve().parent.parent  # the installed tree
GENERATOR_ROOTS = ("builders", "blm_datasets")
GENERATOR_SUFFIXES = (".py", ".yaml", ".tsv", ".txt", ".conllu")


def tree_digest(base: Path, roots: Iterable[str], suffixes: Iterable[str]) -> str:
    """Digest of the names and contents of the files under `base/root` with one of `suffixes`."""
    wanted = set(suffixes)
    sha = hashlib.sha256()
    for root in roots:
        for path in sorted((base / root).rglob("*")):
            if path.suffix in wanted and "__pycache__" not in path.parts and path.is_file():
                sha.update(str(path.relative_to(base)).encode())
                sha.update(path.read_bytes())
    return sha.hexdigest()[:DIGEST_CHARS]


def code_digest(*objects) -> str:
    """Digest of the source of functions, classes or modules (their qualified names and text)."""
    sha = hashlib.sha256()
    for obj in objects:
        sha.update(f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', obj.__name__)}".encode())
        try:
            sha.update(inspect.getsource(obj).encode())
        except (OSError, TypeError):  # no source (a zip import, a C function): its name and version must do
            sha.update(repr(getattr(obj, "__code__", obj)).encode())
    return sha.hexdigest()[:DIGEST_CHARS]


@functools.cache
def source_digest(base: Path = BASE) -> str:
    """Digest of the generator code, templates and lexicons under ``base``: the ``hash`` of the datasets cache, so
    editing a lexicon or a rule regenerates the data instead of serving stale rows."""
    return tree_digest(base, GENERATOR_ROOTS, GENERATOR_SUFFIXES)
