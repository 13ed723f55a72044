"""The one place phenomena are registered; config names are derived from it, never typed."""

from __future__ import annotations

import difflib
import functools
import importlib
import importlib.util

from builders.base import ConfigSpec
from builders.errors import InputError
from builders.generator import Generator

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


def check_phenomenon(phenomenon: str, flag: str = "--phenomenon") -> str:
    """``phenomenon`` if registered, else a clear error with the closest names."""
    known = available()
    if phenomenon not in known:
        close = difflib.get_close_matches(phenomenon, known, n=3, cutoff=0.4)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise InputError(f"{flag} {phenomenon!r}: unknown phenomenon.{hint} Known: {', '.join(known)}")
    return phenomenon


@functools.cache
def generator_class(phenomenon: str) -> type[Generator]:
    check_phenomenon(phenomenon, "phenomenon")
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
    missing = _missing_lexicon(name)
    if missing:
        raise InputError(missing)
    close = difflib.get_close_matches(name, specs, n=5, cutoff=0.5)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    phenomenon = name.partition("_")[0]
    same = [n for n in specs if n.startswith(f"{phenomenon}_")]
    listed = (f"the {phenomenon} configs are: {', '.join(same)}" if same and len(same) <= 40
              else f"`blm list` prints all {len(specs)} configs")
    raise InputError(f"unknown BLM config {name!r}.{hint} {listed[0].upper()}{listed[1:]}")


def _missing_lexicon(name: str) -> str | None:
    """Why a well-formed name of a known phenomenon has no config: its language has no lexicon."""
    phenomenon, _, rest = name.partition("_")
    if phenomenon not in available() or not rest:
        return None
    cls = generator_class(phenomenon)
    language = rest.split("_")[0]
    known = {lang.replace("-", "") for lang in cls.languages()}
    if language in known or not language.isalpha():
        return None
    lexicons = getattr(cls, "lexicon_dir", lambda: cls.directory() / "lexicons")()
    return (f"unknown BLM config {name!r}: {phenomenon} has no lexicon for language {language!r} "
            f"(no {language}*.yaml in {lexicons}); its languages are {', '.join(sorted(known))}. "
            f"Adding a language is adding its lexicon file: see builders/README.md")


@functools.cache
def generator(phenomenon: str, language: str) -> Generator:
    return generator_class(phenomenon)(language)
