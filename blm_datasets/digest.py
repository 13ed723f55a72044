"""A digest of everything that determines generated data: code, templates and lexicons.

Used as the ``hash`` of the datasets cache, so editing a lexicon or a rule regenerates the data
instead of serving stale rows.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from builders.digest import BASE, source_digest  # noqa: F401 (re-exported)


def files_digest(paths) -> str:
    """Digest of the contents of user-given input files (CoNLL-U sources …)."""
    sha = hashlib.sha256()
    for path in sorted(str(p) for p in paths):
        sha.update(path.encode())
        if Path(path).is_file():
            sha.update(Path(path).read_bytes())
    return sha.hexdigest()[:16]
