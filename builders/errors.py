"""The toolkit's one user-error base: an expected failure whose message says what is wrong, where (file:line, flag,
path) and what to do. The CLI and train.py print it as one line with exit status 2; anything else is a bug and
keeps its traceback (``BLM_DEBUG=1`` shows tracebacks for both)."""

from __future__ import annotations


class UserError(Exception):
    """An expected failure the user can fix; reported in one line, without a traceback."""


class InputError(UserError, ValueError):
    """A bad value, name, size, file or folder given by the user (a ValueError, so callers may catch either)."""
