"""The one place phenomena are registered; config names are derived from it, never typed."""

from __future__ import annotations

import difflib
import functools
import importlib

from builders.base import ConfigSpec, Generator

# Adding a phenomenon = one generator package under builders/ plus its line here.
PHENOMENA = ("agr",)


@functools.cache
def generator_class(phenomenon: str) -> type[Generator]:
    if phenomenon not in PHENOMENA:
        raise ValueError(f"unknown phenomenon {phenomenon!r}; known: {', '.join(PHENOMENA)}")
    return importlib.import_module(f"builders.{phenomenon}").GENERATOR


@functools.cache
def all_specs() -> tuple[ConfigSpec, ...]:
    return tuple(spec for p in PHENOMENA for spec in generator_class(p).specs())


def config_names() -> list[str]:
    return [spec.name for spec in all_specs()]


def get_spec(name: str) -> ConfigSpec:
    """The spec of a config name; an unknown name lists the valid ones (closest first)."""
    specs = {spec.name: spec for spec in all_specs()}
    if name in specs:
        return specs[name]
    close = difflib.get_close_matches(name, specs, n=5, cutoff=0.5)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    raise ValueError(f"unknown BLM config {name!r}.{hint} Valid configs: {', '.join(specs)}")


@functools.cache
def generator(phenomenon: str, language: str) -> Generator:
    return generator_class(phenomenon)(language)
