"""Checks every word form of every lexicon against the Hunspell dictionary of its language.

Uses the ``hunspell`` program with Debian's dictionaries (``scripts/setup.sh`` installs them); each
language's morphology module names its dictionary (``HUNSPELL``) and package. Words the
dictionary lacks but that are right (first names, brand-free loanwords) go in the reviewed
allow-list ``spellcheck_allowlist.txt`` beside this file.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

from builders import morphology
from builders.errors import UserError
from builders.lexicon import load_yaml

DICT_DIR = Path("/usr/share/hunspell")
ALLOWLIST = Path(__file__).with_name("spellcheck_allowlist.txt")
_SKIP_KEYS = {"id", "gender", "language", "elide", "rule", "class", "label", "agrees_with", "relations"}
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*", re.UNICODE)


class SpellcheckUnavailable(UserError, RuntimeError):
    """The hunspell program or a dictionary is missing."""


def word_forms(node, key: str | None = None) -> Iterator[str]:
    """Every word in the string values of a lexicon (ids, genders and slots excluded)."""
    if key in _SKIP_KEYS:
        return
    if isinstance(node, dict):
        for k, v in node.items():
            yield from word_forms(v, str(k))
    elif isinstance(node, list):
        for v in node:
            yield from word_forms(v, key)
    elif isinstance(node, str):
        text = node.replace("{name}", " ")
        for token in re.split(r"[\s']+", text):
            yield from _WORD.findall(token)


def allowlist() -> dict[str, set[str]]:
    allowed: dict[str, set[str]] = {}
    if ALLOWLIST.exists():
        for line in ALLOWLIST.read_text(encoding="utf-8").splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                lang, word = line.split(None, 1)
                allowed.setdefault(lang, set()).add(word.strip())
    return allowed


def rejected(words: Iterable[str], language: str) -> set[str]:
    """Words the language's Hunspell dictionary rejects."""
    if shutil.which("hunspell") is None:
        raise SpellcheckUnavailable("the hunspell program is not installed (apt-get install hunspell)")
    module = morphology.language(language)  # a language without a morphology module fails here, named
    dic = DICT_DIR / module.HUNSPELL
    if not dic.with_suffix(".dic").exists():
        raise SpellcheckUnavailable(f"no Hunspell dictionary {dic}.dic for language {language!r}: "
                                    f"apt-get install {module.HUNSPELL_PACKAGE} (scripts/setup.sh)")
    unique = sorted(set(words))
    out = subprocess.run(["hunspell", "-l", "-d", str(dic)], input="\n".join(unique), capture_output=True,
                         text=True, check=True, env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"})
    return set(out.stdout.split())


def lexicon_files() -> list[Path]:
    base = Path(__file__).parent
    return sorted(p for p in base.glob("*/lexicons/*.yaml"))


def check_all() -> dict[str, list[str]]:
    """{lexicon path: words rejected and not allow-listed}; empty when every form is a real word.

    Every lexicon is checked: a language without its morphology module or dictionary is an error."""
    allowed = allowlist()
    problems = {}
    for path in lexicon_files():
        language = path.stem.split("_")[0]
        bad = rejected(word_forms(load_yaml(path)), language) - allowed.get(language, set())
        if bad:
            problems[str(path)] = sorted(bad)
    return problems
