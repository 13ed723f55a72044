"""Expected failures of a training run and how `train.py` reports them: one line, exit status 2.

Every error a user can cause or meet (a wrong flag, missing data, a corrupt checkpoint, a diverging run) is a
`BlmError`; its message says what is wrong, where (flag, path, file) and what to do. `report_errors` turns one
into `train.py: error: ...` on stderr and exit status 2; `BLM_DEBUG=1` shows the traceback instead.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

try:  # the toolkit's user-error base; absent where this file is bundled with a checkpoint (trust_remote_code)
    from builders.errors import UserError
except ImportError:  # pragma: no cover - exercised by the remote-code load test
    class UserError(Exception):  # type: ignore[no-redef]
        """Stands in for builders.errors.UserError in a checkpoint's bundled code."""

EXIT_USAGE = 2
T = TypeVar("T")


class BlmError(UserError):
    """An expected failure whose message tells the user what to do; reported without a traceback."""


class UsageError(BlmError, ValueError):
    """A flag value, path or combination of flags that cannot work."""


class DataError(BlmError, ValueError):
    """The data asked for cannot be loaded or cannot be trained on (missing or empty splits)."""


class CheckpointError(BlmError):
    """A checkpoint that cannot be resumed from exactly: incomplete, corrupt, or without optimizer state."""


class CorruptInputError(BlmError, FloatingPointError):
    """Non-finite numbers where training needs finite ones: embeddings, or the loss."""


class WorkerDiedError(BlmError, RuntimeError):
    """A worker process (data loading) died; the parent stopped instead of waiting for it."""


def debugging() -> bool:
    """True when BLM_DEBUG asks for tracebacks."""
    return os.environ.get("BLM_DEBUG", "").strip().lower() not in ("", "0", "false", "no")


def one_line(error: BaseException) -> str:
    """The error's message on a single line."""
    return " ".join(str(error).split()) or type(error).__name__


def _raised_in_data_loader(error: BaseException) -> bool:
    """True when the traceback passes through torch's DataLoader (the parent side of its worker processes)."""
    frame = error.__traceback__
    while frame is not None:
        if frame.tb_frame.f_code.co_filename.replace("\\", "/").endswith("torch/utils/data/dataloader.py"):
            return True
        frame = frame.tb_next
    return False


_WRITE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM)
# what safetensors (Rust) writes for the same OS errors: "I/O error: No space left on device (os error 28)"
_RUST_OS_ERROR = ("os error 28", "os error 122", "os error 30", "os error 13", "no space left", "read-only file system",
                  "permission denied")


def _write_failure(error: BaseException) -> BlmError | None:
    """A full disk, a quota, a read-only or forbidden folder while writing (an OSError, or safetensors' own
    SafetensorError saying the same), as one line naming the file."""
    if isinstance(error, OSError) and error.errno in _WRITE_ERRNOS:
        what, path = error.strerror or str(error), error.filename
    elif type(error).__name__ == "SafetensorError" and any(m in str(error).lower() for m in _RUST_OS_ERROR):
        what, path = str(error).split(": ", 1)[-1], None
    else:
        return None
    return UsageError(f"cannot write {path or 'the checkpoint or output files'}: {what}; free some space or give a "
                      "writable --output_dir (finished checkpoints are complete; --resume_from_checkpoint continues "
                      "from the last one)")


def translate_known_errors(error: BaseException) -> BlmError | None:
    """The BlmError a library exception stands for, when it is one a user meets rather than a bug: a data-loading
    worker that died (torch says so, or the pipe to it broke while a batch was in transit), a write that failed
    (a full disk, a read-only folder)."""
    cause, seen = error, set()
    while cause is not None and id(cause) not in seen:  # a library may wrap the OS error in its own
        seen.add(id(cause))
        written = _write_failure(cause)
        if written is not None:
            return written
        cause = cause.__cause__ or cause.__context__
    text = str(error)
    died = isinstance(error, RuntimeError) and text.startswith("DataLoader worker")
    broken_pipe = isinstance(error, (ConnectionError, EOFError)) and _raised_in_data_loader(error)
    if died or broken_pipe:
        what = text.splitlines()[0].rstrip(". ") if died else f"{type(error).__name__}: {text}"
        return WorkerDiedError(
            f"a data-loading worker process died ({what}); the run stopped before writing metrics. Check memory (a "
            "killed worker is often out of memory) and rerun (--resume_from_checkpoint continues from the last "
            "checkpoint), or pass --dataloader_num_workers 0 to load batches in the main process"
        )
    return None


def report_errors(function: Callable[..., T], *args, program: str = "train.py", **kwargs) -> T:
    """Call `function`; a user error (BlmError, a lexicon or size error of the generator …) or a known library
    failure becomes one line on stderr and SystemExit(2)."""
    try:
        try:
            return function(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - only the known ones become a line; the rest keep tracebacks
            _report(error, program)
    except Exception as late:  # noqa: BLE001 - torch's SIGCHLD handler fired as the first error was being caught
        _report(late, program)
    raise SystemExit(EXIT_USAGE)


def _report(error: Exception, program: str) -> None:
    """Print the one line of a user error or a known failure; re-raise anything else (everything with BLM_DEBUG)."""
    with _child_signals_held():
        translated = error if isinstance(error, UserError) else translate_known_errors(error)
        if translated is None or debugging():
            raise error
        print(f"{program}: error: {one_line(translated)}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _child_signals_held() -> Iterator[None]:
    """SIGCHLD ignored while an error is reported. torch's DataLoader handler raises "DataLoader worker … is killed"
    wherever the main thread is when a killed worker's signal arrives, which can be while the error that the same
    death caused (a reset connection) is being reported: that second error would escape as a traceback."""
    if not hasattr(signal, "SIGCHLD") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGCHLD, previous if previous is not None else signal.SIG_DFL)
