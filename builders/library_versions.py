"""The Hugging Face library versions the toolkit supports, checked before the toolkit imports them.

An older transformers fails deep inside an import (``ImportError: cannot import name 'SubConfigSpec'``); the check
turns that into one line naming the package, the installed version and the supported range. The ranges are the
ones setup.cfg declares (a test keeps the two equal); the lower bounds are the oldest versions CI tests
(.ci/lowest-constraints.txt).
"""

from __future__ import annotations

from importlib import metadata

from packaging.version import InvalidVersion, Version

from builders.errors import UserError

# package -> (oldest supported, first unsupported major)
SUPPORTED = {
    "transformers": ("5.20", "6"),
    "datasets": ("4.0", "6"),
    "accelerate": ("1.3", "2"),
    "huggingface_hub": ("1.31", "3"),
}


class UnsupportedLibraryError(UserError, ImportError):
    """An installed library older than the toolkit supports (a user's environment, not a bug)."""


def supported_range(package: str) -> str:
    """The specifier setup.cfg uses, e.g. ``>=5.20,<6``."""
    low, high = SUPPORTED[package]
    return f">={low},<{high}"


def check_supported(packages=tuple(SUPPORTED)) -> None:
    """Raise UnsupportedLibraryError, naming the first of `packages` that is installed but too old."""
    for package in packages:
        try:
            installed = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue  # the import that needs it says so
        try:
            too_old = Version(installed) < Version(SUPPORTED[package][0])
        except InvalidVersion:
            continue
        if too_old:
            wanted = f"{package}{supported_range(package)}"
            raise UnsupportedLibraryError(
                f"blm-toolkit needs {wanted}, but {package} {installed} is installed; "
                f"upgrade it with: pip install '{wanted}'")
