"""Generation with Python's cyclic garbage collector paused.

Generation allocates millions of small containers (plans, sentences, records) and keeps the records: each
full collection walks all of them again, and that was about a third of generating a config. Generation makes
no reference cycles (``tests/test_generate_gc.py``), so reference counting frees everything it drops and the
pause holds no garbage; the collector's previous state comes back on exit, so pauses nest. The entry points
(``builders.generate``'s public functions) pause it; the workers they fork inherit the pause.
"""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import Callable, Iterator
from typing import TypeVar

F = TypeVar("F", bound=Callable)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Run the block with the cyclic collector off; it is on again afterwards if it was on before.

    What the block allocated and kept (caches, returned records) would sit in the youngest generation, which the
    first allocation after ``gc.enable`` collects: 0.17 s a million containers, measured. They are moved to the
    oldest generation first (``freeze`` + ``unfreeze``), where any object has gone after two collections anyway
    and which the collector still scans; skipped where someone froze objects on purpose."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def without_gc(function: F) -> F:
    """``function`` run under ``paused_gc``."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with paused_gc():
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
