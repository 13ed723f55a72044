"""The one place phenomena are registered; config names are derived from it, never typed."""

from __future__ import annotations

import difflib
import functools
import importlib
import importlib.util

from builders.base import ConfigSpec, Generator

# Adding a phenomenon = one generator package under builders/ plus its line here:
# phenomenon name -> "module:attribute" of its Generator subclass.
PHENOMENA = {
    "agr": "builders.agr:AgrGenerator",
    "cos": "builders.cos_od:CosGenerator",
    "od": "builders.cos_od:OdGenerator",
    "sprayload": "builders.sprayload:SprayLoadGenerator",
    "roll": "builders.roll:RollGenerator",
    "cosplus": "builders.cosplus:CosPlusGenerator",
    "caush": "builders.caush:CausHGenerator",
    "seqtense": "builders.seqtense:SeqTenseGenerator",
    "mixture": "builders.seqtense:MixtureGenerator",
}


def available() -> list[str]:
    """Registered phenomena whose package is present in this installation."""
    return [p for p, target in PHENOMENA.items() if importlib.util.find_spec(target.split(":")[0])]


@functools.cache
def generator_class(phenomenon: str) -> type[Generator]:
    if phenomenon not in available():
        raise ValueError(f"unknown phenomenon {phenomenon!r}; known: {', '.join(available())}")
    module, attribute = PHENOMENA[phenomenon].split(":")
    return getattr(importlib.import_module(module), attribute)


@functools.cache
def all_specs() -> tuple[ConfigSpec, ...]:
    return tuple(spec for p in available() for spec in generator_class(p).specs())


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
