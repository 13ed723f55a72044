"""Helpers for lexicon-error tests: a phenomenon's shipped English lexicon as data, and checking an edited copy."""

from __future__ import annotations

from types import ModuleType

import yaml

from builders.lexicon import load_yaml


def shipped_english(lexicon: ModuleType) -> dict:
    """The phenomenon's lexicons/en.yaml, parsed (a fresh copy to edit)."""
    return yaml.safe_load((lexicon.HERE / "lexicons" / "en.yaml").read_text())


def check_written(lexicon: ModuleType, tmp_path, data_or_text):
    """Write `data_or_text` as en.yaml under tmp_path and run the phenomenon's lexicon check on it."""
    path = tmp_path / "en.yaml"
    path.write_text(data_or_text if isinstance(data_or_text, str) else yaml.safe_dump(data_or_text))
    load_yaml.cache_clear()
    return lexicon.check(load_yaml(path), path)
