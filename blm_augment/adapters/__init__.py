"""Slot adapters: per phenomenon, what a slot holds, its sentences, and how a new word is checked.

An adapter realises sentences through the phenomenon's own generator (``builders.registry``), with
the lexicon given on the command line, so the contexts a model sees and the examples a reviewer
reads are the toolkit's sentences; a candidate is checked by realising records with it and running
the validator on them (``blm_datasets.validate.check_record``).
"""

from __future__ import annotations

import contextlib
import importlib
import re
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from blm_augment import yaml_edit
from blm_augment.errors import AugmentError
from builders import registry
from builders.lexicon import LexiconError

ADAPTERS = {"cosplus": "blm_augment.adapters.cosplus:CosPlusAdapter",
            "agr": "blm_augment.adapters.agr:AgrAdapter"}


@dataclass(frozen=True)
class Context:
    """A realised sentence of the slot with one current word, and that word as the sentence shows it."""

    text: str
    surface: str
    hint: dict = field(default_factory=dict)   # what the context fixes about the word (gender)

    def masked(self, mask: str) -> str | None:
        """The sentence with the slot word replaced by ``mask`` (its last whole-word occurrence)."""
        at = _last_word(self.text, self.surface)
        return None if at < 0 else self.text[:at] + mask + self.text[at + len(self.surface):]


def _last_word(text: str, word: str) -> int:
    matches = list(re.finditer(rf"(?<!\w){re.escape(word)}(?!\w)", text))
    return matches[-1].start() if matches else -1


@dataclass
class Candidate:
    """A proposed word on its way through the filters."""

    word: str
    score: float
    hint: dict = field(default_factory=dict)
    contexts: int = 0
    entry: Any = None
    notes: list[str] = field(default_factory=list)
    zipf: float | None = None
    examples: list[str] = field(default_factory=list)


class Adapter:
    """What ``blm augment`` needs from a phenomenon; subclasses fill it for their lexicon schema."""

    phenomenon: str = ""
    module: str = ""        # the phenomenon's lexicon module (its HERE and load are patched to read a copy)

    def __init__(self, path: Path, text: str, slot: str):
        self.path, self.text, self.slot = Path(path), text, slot
        self.root = yaml_edit.compose(text, str(path))
        self.node = yaml_edit.find(self.root, slot, str(path))
        self.raw = yaml.safe_load(text)
        self.language = self.raw.get("language") if isinstance(self.raw, dict) else None
        if not isinstance(self.language, str):
            raise AugmentError(f"{path}: no 'language:' at the top level")

    # --- to be filled per phenomenon -----------------------------------------------------------
    current: list[str]
    description: str        # what the slot holds, in words, for the LM prompt

    def contexts(self, n: int, seed: int) -> list[Context]:
        raise NotImplementedError

    def novelty(self, word: str) -> str | None:
        raise NotImplementedError

    def make_entry(self, cand: Candidate) -> tuple[Any, str]:
        raise NotImplementedError

    def stem_clash(self, cand: Candidate) -> str | None:
        raise NotImplementedError

    def edit(self, text: str, entries: Sequence[Any]) -> str:
        raise NotImplementedError

    def validate(self, cands: Sequence[Candidate]) -> dict[str, str]:
        """{word: why it failed} for candidates whose realised records fail; fills ``examples``."""
        raise NotImplementedError

    entry_shape: str = ""   # what an entry looks like, for the one-line error on a malformed one

    def entry_key(self, entry: Any) -> str | None:
        """The word an entry adds to the slot (its lexicon key); None when the entry has not the slot's shape."""
        raise NotImplementedError

    def languages(self) -> list[str]:
        """The generator languages whose checker must accept the lexicon (the variants of its language)."""
        return [self.language]

    def check(self, text: str) -> None:
        """Run the phenomenon's own lexicon checker (the one ``blm generate`` runs) on ``text``; AugmentError
        with its message when it refuses the file."""
        for language in self.languages():
            with self.generator(text, language):
                pass

    def forms(self, entry: Any) -> list[str]:
        """Every word form of an entry (spell-checked)."""
        if isinstance(entry, str):
            return [entry]
        return [v for k, v in entry.items() if isinstance(v, str) and k not in ("gender",)] + [
            v for k, v in entry.items() if isinstance(v, dict) and k != "article" for v in v.values()]

    def frequency_form(self, entry: Any) -> str:
        """The form whose Zipf frequency is compared with the band (the seed words' form)."""
        return self.forms(entry)[0]

    def seed_words(self) -> list[str]:
        """The words whose frequencies set the band (the slot's current entries)."""
        return list(self.current)

    # --- shared --------------------------------------------------------------------------------
    @contextlib.contextmanager
    def generator(self, text: str, language: str) -> Iterator[Any]:
        """The phenomenon's generator reading ``text`` as its lexicon of ``language``."""
        module = importlib.import_module(self.module)
        iso = language.split("-")[0]
        with contextlib.suppress(Exception):  # the shipped one, cached for the validator's patterns
            registry.generator(self.phenomenon, language)
        with tempfile.TemporaryDirectory(prefix="blm-augment-") as tmp:
            folder = Path(tmp) / "lexicons"
            folder.mkdir()
            (folder / f"{iso}.yaml").write_text(text, encoding="utf-8")
            saved = module.HERE
            module.HERE = Path(tmp)
            module.load.cache_clear()
            try:
                gen = registry.generator_class(self.phenomenon)(language)
                registry.generator(self.phenomenon, language)
            except LexiconError as err:
                raise AugmentError(str(err).replace(str(folder / f"{iso}.yaml"), f"{self.path} (with the additions)"))
            finally:
                module.HERE = saved
                module.load.cache_clear()
            yield gen


def phenomenon_of(path: Path) -> str | None:
    """The phenomenon whose package holds ``path`` (``builders/cosplus/lexicons/en.yaml``)."""
    path = Path(path).resolve()
    for name in ADAPTERS:
        if path.parent == (registry.generator_class(name).directory() / "lexicons").resolve():
            return name
    return None


def adapter_for(path: Path, slot: str, phenomenon: str | None = None, text: str | None = None) -> Adapter:
    """The adapter of the lexicon at ``path`` (phenomenon from its folder, or given)."""
    phenomenon = phenomenon or phenomenon_of(path)
    if phenomenon is None:
        raise AugmentError(f"{path}: not in a phenomenon's lexicons/ folder; pass --phenomenon "
                           f"({', '.join(ADAPTERS)})")
    if phenomenon not in ADAPTERS:
        raise AugmentError(f"--phenomenon {phenomenon!r}: blm augment has no slot adapter for it yet; "
                           f"it has: {', '.join(ADAPTERS)} (an adapter is a small class in blm_augment/adapters/)")
    module, name = ADAPTERS[phenomenon].split(":")
    cls = getattr(importlib.import_module(module), name)
    return cls(Path(path), yaml_edit.read(path) if text is None else text, slot)
