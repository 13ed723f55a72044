"""Advisory locks on what a command writes (an output folder, a lexicon written in place), so that a second
writer fails at once in one line instead of destroying the first one's result.

The lock is ``flock`` on a small file beside the target (``.NAME.blm-lock`` in the same folder, so the target's own
contents are untouched), holding the owner's PID and command for the message. The kernel drops the lock when its
process dies, however it dies: a lock left by a dead process is simply taken by the next writer. On systems
without ``fcntl`` (Windows) nothing is locked.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from builders.errors import UserError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None


class LockedError(UserError, RuntimeError):
    """Another live process is writing the same target."""


def lock_path(target: str | os.PathLike) -> Path:
    """The lock file of ``target`` (a folder or a file): beside it, hidden."""
    target = Path(target).absolute()
    return target.parent / f".{target.name}.blm-lock"


@contextlib.contextmanager
def locked(target: str | os.PathLike, flag: str) -> Iterator[None]:
    """Hold the write lock of ``target`` for the block; LockedError naming ``flag`` and the owner if another live
    process holds it."""
    if fcntl is None:
        yield
        return
    path = lock_path(target)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the block
    except OSError:  # no folder can be made there (a file in the way, no permission): the command's own check
        yield        # of its target says what is wrong, in its words
        return
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            owner = handle.read().strip() or "another process"
            raise LockedError(f"{flag} {target}: {owner} is writing there now; wait for it to finish (or stop it), "
                              "or choose another target") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} ({Path(sys.argv[0]).name or 'python'}, since "
                     f"{time.strftime('%Y-%m-%d %H:%M:%S')})\n")
        handle.flush()
        yield
    finally:
        handle.close()  # releases the lock; the file stays (removing it would race with a waiting writer)
