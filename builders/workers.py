"""Worker processes that die with their parent.

A forked pool worker whose parent is killed (SIGKILL, or SIGTERM before the pool is shut down) is re-parented to
PID 1 and blocks forever on its task queue, holding its memory. Every pool of the toolkit starts its workers with
``die_with_parent`` as initializer: on Linux the kernel sends the worker SIGKILL when the parent dies
(``PR_SET_PDEATHSIG``); elsewhere a watchdog thread ends the worker once its parent is gone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
WATCH_INTERVAL = 1.0  # seconds between parent checks where the kernel cannot be asked


def die_with_parent(parent_pid: int) -> None:
    """Pool initializer: end this process when ``parent_pid`` (the process that started the pool) dies."""
    if sys.platform.startswith("linux") and _set_parent_death_signal():
        if os.getppid() != parent_pid:  # the parent died before the signal was armed
            os._exit(1)
        return
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True, name="blm-parent-watch").start()


def _set_parent_death_signal() -> bool:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(WATCH_INTERVAL)
    os._exit(1)


def pool_initializer() -> tuple:
    """``(initializer, initargs)`` for a pool started by this process."""
    return die_with_parent, (os.getpid(),)
