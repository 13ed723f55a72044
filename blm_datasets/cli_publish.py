"""``blm export`` and ``blm publish`` subcommands (registered into the main parser)."""

from __future__ import annotations


def register(sub) -> None:
    """Add the publishing subcommands to the ``blm`` parser."""
