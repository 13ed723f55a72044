"""Atomic writes, the one way every package writes a file a reader may see: a temporary file in the same folder,
then a rename, so a reader never sees half a file and a killed writer leaves the old file in place. The result
has the mode a plain ``open(path, "w")`` would give under the process's umask (0644 under 022), not the 0600 of
a temporary file."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path


def umask_mode(mode: int = 0o666) -> int:
    """``mode`` less the process's umask: what ``open()`` gives a new file (0o777 for a new folder)."""
    current = os.umask(0)
    os.umask(current)
    return mode & ~current


def share(path: str | os.PathLike) -> None:
    """Give a file, or every file under a folder, the mode the umask says (for files a library wrote 0600, as
    safetensors writes weights)."""
    path = Path(path)
    mode = umask_mode()
    for file in [path] if path.is_file() else (p for p in path.rglob("*") if p.is_file()):
        if stat.S_IMODE(file.stat().st_mode) != mode:
            os.chmod(file, mode)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, fsync: bool = False) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed onto ``path`` (with umask permissions) when the block
    ends, removed if it raises."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, umask_mode())
        if fsync:
            with open(tmp, "rb") as written:
                os.fsync(written.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: str | os.PathLike, data: bytes, fsync: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically (flushed to disk before the rename unless ``fsync`` is False); returns
    the path."""
    with atomic_path(path, fsync) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def atomic_write_text(path: str | os.PathLike, text: str, fsync: bool = True) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path."""
    return atomic_write_bytes(path, text.encode("utf-8"), fsync)
