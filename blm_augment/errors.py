"""The one error type of the package: what went wrong, where, and what to do (the CLI prints it)."""

from __future__ import annotations

from builders.errors import InputError


class AugmentError(InputError):
    """Bad input to ``blm augment`` (slot, model, patch, lexicon); the message is one line."""
