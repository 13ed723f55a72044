"""A digest of everything that determines generated data: code, templates and lexicons.

Used as the ``hash`` of the datasets cache, so editing a lexicon or a rule regenerates the data
instead of serving stale rows.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

_ROOTS = ("builders", "blm_datasets")
_SUFFIXES = {".py", ".yaml", ".tsv", ".txt", ".conllu"}


BASE = Path(__file__).resolve().parent.parent


@functools.cache
def source_digest(base: Path = BASE) -> str:
    """Digest of the generator code, templates and lexicons under ``base`` (the installed tree)."""
    sha = hashlib.sha256()
    for root in _ROOTS:
        for path in sorted((base / root).rglob("*")):
            if path.suffix in _SUFFIXES and "__pycache__" not in path.parts:
                sha.update(str(path.relative_to(base)).encode())
                sha.update(path.read_bytes())
    return sha.hexdigest()[:16]


def files_digest(paths) -> str:
    """Digest of the contents of user-given input files (CoNLL-U sources …)."""
    sha = hashlib.sha256()
    for path in sorted(str(p) for p in paths):
        sha.update(path.encode())
        if Path(path).is_file():
            sha.update(Path(path).read_bytes())
    return sha.hexdigest()[:16]
