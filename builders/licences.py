"""Which licence a config's data carries: the toolkit's for data generated from its own templates and
lexicons; the corpus's for data derived from a corpus (builders/licences.yaml), which its licence follows."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from builders.errors import InputError
from builders.lexicon import load_yaml

CORPORA_FILE = Path(__file__).with_name("licences.yaml")


@dataclass(frozen=True)
class Corpus:
    name: str
    license: str
    url: str
    prefix: str | None = None
    file: str | None = None

    def holds(self, source: str) -> bool:
        if self.file is not None:
            return Path(source).resolve() == (CORPORA_FILE.parent / self.file).resolve()
        return Path(str(source).rstrip("/")).name.startswith(self.prefix or "\0")


@dataclass(frozen=True)
class ConfigLicence:
    """The Hub licence ids of one config's data and why."""

    ids: tuple[str, ...]
    reason: str


@functools.cache
def corpora() -> tuple[Corpus, ...]:
    return tuple(Corpus(**entry) for entry in load_yaml(CORPORA_FILE)["corpora"])


def corpus_of(source: str) -> Corpus | None:
    """The corpus a source file (path or URL) belongs to; None when it is none of them."""
    return next((c for c in corpora() if c.holds(str(source))), None)


def config_sources(spec, sources: Sequence[str] | None) -> list[str] | None:
    """The corpus files a config reads (the given ones, else its template's defaults); None for configs that
    read no corpus."""
    from builders import registry

    section = getattr(registry.generator(spec.phenomenon, spec.language).template, spec.variant or "", None)
    defaults = getattr(section, "sources", None)
    if defaults is None:
        return None
    return [str(s) for s in sources] if sources else [str(s) for s in defaults]


def config_licence(spec, sources: Sequence[str] | None, generated: str, explicit: str | None) -> ConfigLicence:
    """The licence of config `spec`'s data: `explicit` (--license) or `generated` for generated data; the corpus's
    for corpus-derived data; `explicit` for sources of no known corpus, and a ValueError without it."""
    files = config_sources(spec, sources)
    if files is None:
        return ConfigLicence((explicit or generated,), "generated from the toolkit's templates and lexicons")
    found = [corpus_of(f) for f in files]
    unknown = [Path(f).name for f, c in zip(files, found) if c is None]
    if unknown and not explicit:
        raise InputError(f"{spec.name}: cannot tell the licence of its source files ({', '.join(unknown)}): they "
                         f"belong to none of the corpora in {CORPORA_FILE.name}; pass --license with their licence "
                         "(a Hub licence id such as cc-by-sa-4.0)")
    known = list(dict.fromkeys(c for c in found if c is not None))
    ids = tuple(dict.fromkeys([c.license for c in known] + ([explicit] if unknown else [])))
    parts = [f"{c.name} ({c.license}, {c.url})" for c in known]
    parts += [f"{', '.join(unknown)} ({explicit}, as --license says)"] if unknown else []
    reason = "derived from " + " and ".join(parts) + "; derived data keeps its source's licence"
    if len(ids) > 1:
        reason += ": each part keeps its own (export from one corpus's files with --sources for a single licence)"
    return ConfigLicence(ids, reason)
