"""`blm-train` (installed with the package) and `train.py` (in a checkout): the training command line, with an
unsupported transformers/datasets reported in one line (exit 2) before the training code imports it."""

from __future__ import annotations

import sys

from builders.library_versions import UnsupportedLibraryError


def main(program: str = "blm-train") -> None:
    try:
        from blm_models.train_job import cli
    except UnsupportedLibraryError as error:
        print(f"{program}: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    cli()
