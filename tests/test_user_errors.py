"""One user-error base: every error the toolkit raises for the user is a builders.errors.UserError (one line, exit 2);
anything else is a bug and keeps its traceback."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from blm_cli.main import main
from builders.errors import InputError, UserError

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("blm_cli", "blm_datasets", "blm_models", "blm_eval", "builders", "hub_cards", "blm_augment")


def test_the_toolkit_makes_no_bare_value_error():
    """A bare ValueError would be shown as a bug: user errors are raised as InputError (UsageError in
    blm_models), internal ones as another class."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "ValueError":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"raise InputError (or UsageError in blm_models) instead of ValueError at {', '.join(found)}"


def test_every_error_class_of_the_toolkit_is_a_user_error():
    from blm_augment.errors import AugmentError
    from blm_datasets.export_folder import ExportFolderError
    from blm_datasets.importer.rows import ReleaseError
    from blm_datasets.sources import CacheCorrupt, SourceError
    from blm_eval.browse import BrowseError
    from blm_eval.latent import NoLatentError
    from blm_models.errors import BlmError, CheckpointError, DataError, UsageError, WorkerDiedError
    from builders.base import GeneratorBug, ImpossibleSize, SourceUnavailable
    from builders.generate import WorkerDied
    from builders.lexicon import LexiconError
    from builders.library_versions import UnsupportedLibraryError
    from builders.locks import LockedError
    from builders.spellcheck import SpellcheckUnavailable

    user = (AugmentError, ExportFolderError, ReleaseError, CacheCorrupt, SourceError, BrowseError, NoLatentError,
            BlmError, CheckpointError, DataError, UsageError, WorkerDiedError, ImpossibleSize, SourceUnavailable,
            WorkerDied, LexiconError, UnsupportedLibraryError, LockedError, SpellcheckUnavailable)
    assert [c.__name__ for c in user if not issubclass(c, UserError)] == []
    assert not issubclass(GeneratorBug, UserError)  # the generator's own fault keeps its traceback
    assert issubclass(InputError, ValueError) and issubclass(UsageError, ValueError)  # callers may catch ValueError


def _fail_with(monkeypatch, error: BaseException):
    def raising(*_args, **_kwargs):
        raise error
    monkeypatch.setattr("builders.registry.get_spec", raising)


def test_a_user_error_is_one_line_and_a_bare_value_error_is_a_bug(monkeypatch, capsys):
    _fail_with(monkeypatch, InputError("agr_xx_typeI: no such config; see `blm list`"))
    assert main(["validate", "agr_xx_typeI"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == ["blm validate: error: agr_xx_typeI: no such config; see `blm list`"]
    _fail_with(monkeypatch, ValueError("an internal slip"))
    with pytest.raises(ValueError, match="an internal slip"):  # a bug: re-raised, so the traceback shows
        main(["validate", "agr_xx_typeI"])
