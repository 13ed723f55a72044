"""Which errors are the user's (one line, exit 2) and which are bugs (a traceback).

Expected: a ``builders.errors.UserError`` (a bad name, size, lexicon, source, folder, a lock held, a dead worker
…: its message says what, where and what to do), OS errors on paths the user gave and undecodable input files.
Anything else, a plain ValueError included, is a bug and keeps its traceback.
"""

from __future__ import annotations

import errno
import os

from builders.base import ImpossibleSize
from builders.errors import UserError

_FULL_DISK = (errno.ENOSPC, errno.EDQUOT, errno.EROFS)


def _path_message(err: OSError, target: str | None = None) -> str:
    # a failed write() names no file: the command's output is where it was writing
    path = err.filename if err.filename is not None else f"writing {target}" if target else "an output file"
    if isinstance(err, FileNotFoundError):
        return f"no such file or folder: {path}; check the path"
    if isinstance(err, IsADirectoryError):
        return f"{path} is a folder, but a file is needed here; give a file path"
    if isinstance(err, NotADirectoryError):
        return f"{path}: part of this path is a file, not a folder; choose another path"
    if isinstance(err, PermissionError):
        return f"permission denied: {path}; choose a path you may read and write"
    if isinstance(err, FileExistsError):
        return f"{path} already exists; remove it or choose another path"
    return f"{err.strerror or err}: {path}; free some space or choose another --out / --cache-dir"


def expected_message(err: BaseException, target: str | None = None) -> str | None:
    """The one-line message for an expected error, or None for a bug (shown with its traceback). ``target``: the
    command's output (named when an OS error carries no file name)."""
    if isinstance(err, (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError, FileExistsError)):
        return _path_message(err, target)
    if isinstance(err, OSError) and err.errno in _FULL_DISK:
        return _path_message(err, target)
    if isinstance(err, UnicodeDecodeError):
        return (f"an input file is not UTF-8 text ({err.reason} at byte {err.start}); "
                "convert it to UTF-8 or check that the right file was given")
    if isinstance(err, ImpossibleSize) and "--size" not in str(err):
        return f"{err}; pass a smaller --size"
    if isinstance(err, UserError):
        return str(err)
    return None


def debug() -> bool:
    """BLM_DEBUG=1: show the traceback of expected errors too."""
    return os.environ.get("BLM_DEBUG", "").strip().lower() not in ("", "0", "false", "no", "off")
