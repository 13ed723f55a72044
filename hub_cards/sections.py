"""Card text handling: YAML header split/dump and merging generated sections into an existing card.

Generated text sits between ``<!-- blm:begin NAME -->`` and ``<!-- blm:end NAME -->``. Merging a
freshly generated card into one already on the Hub replaces those sections and the YAML keys the
toolkit writes, and keeps everything else (hand-written prose, extra YAML keys, foreign configs).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from builders.errors import InputError

BEGIN = "<!-- blm:begin {} -->"
END = "<!-- blm:end {} -->"
_SECTION = re.compile(r"<!-- blm:begin (?P<name>[\w.-]+) -->.*?<!-- blm:end (?P=name) -->\n?", re.S)
_HEADER = re.compile(r"\A\s*---[ \t]*\n(?P<yaml>.*?)\n?---[ \t]*(?:\n|\Z)", re.S)
# YAML lists whose entries are keyed by config name: merged entry by entry.
KEYED_LISTS = ("configs", "dataset_info")
# YAML lists merged as ordered sets, so tags or languages added by hand survive.
UNION_LISTS = ("tags", "language", "task_categories", "datasets", "metrics")
# Stands for the repo id in generated usage examples until publishing fills it in.
PLACEHOLDER_REPO = "ORG/NAME"
# libyaml where PyYAML was built with it: an export rewrites the whole card after each config, and the pure-Python
# loader made that a quarter of `blm export --all` (same text either way: tests/test_publish.py)
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def split_card(text: str) -> tuple[dict[str, Any], str]:
    """(YAML header as a dict, markdown body) of a card; a card without header gives ({}, text)."""
    match = _HEADER.match(text)
    if not match:
        return {}, text
    data = yaml.load(match.group("yaml"), Loader=LOADER) or {}
    if not isinstance(data, dict):
        raise InputError("the card's YAML header is not a mapping")
    return data, text[match.end():]


def dump_yaml(data: dict[str, Any]) -> str:
    """Deterministic YAML for a card header (keys in insertion order, unicode kept)."""
    return yaml.dump(data, Dumper=DUMPER, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)


def join_card(data: dict[str, Any], body: str) -> str:
    """A card from its header dict and body."""
    return f"---\n{dump_yaml(data)}---\n{body}" if data else body


def sections(body: str) -> dict[str, str]:
    """Generated sections of a body by name, each including its markers."""
    return {m.group("name"): m.group(0) for m in _SECTION.finditer(body)}


def merge_body(old: str, new: str) -> str:
    """``old`` with its generated sections replaced by those of ``new``; text outside them is kept.

    Sections ``new`` no longer has are dropped (they were generated); new sections go after the
    previous section they follow in ``new``, or at the end of a card that had none.
    """
    fresh = sections(new)
    kept = set(sections(old))
    merged = _SECTION.sub(lambda m: fresh.get(m.group("name"), ""), old)
    anchor = None
    for name, text in fresh.items():
        if name in kept:
            anchor = text
            continue
        if anchor is not None and anchor in merged:
            cut = merged.index(anchor) + len(anchor)
            merged = merged[:cut] + text + merged[cut:]
        else:
            merged = merged.rstrip("\n") + ("\n\n" if merged.strip() else "") + text
        anchor = text
    return merged


def _keyed(entries: Any) -> dict[str, Any]:
    entries = [entries] if isinstance(entries, dict) else entries or []
    return {e.get("config_name", "default"): e for e in entries if isinstance(e, dict)}


def merge_metadata(old: dict[str, Any], new: dict[str, Any], keep_foreign_configs: bool) -> dict[str, Any]:
    """``new`` over ``old``: generated keys win, other keys stay, tags are united, configs merged by name."""
    merged = dict(old)
    for key, value in new.items():
        if key in KEYED_LISTS:
            mine = _keyed(value)
            theirs = {k: v for k, v in _keyed(old.get(key)).items() if k not in mine} if keep_foreign_configs else {}
            if key == "configs" and any(c.get("default") for c in mine.values()):
                theirs = {k: {kk: vv for kk, vv in v.items() if kk != "default"} for k, v in theirs.items()}
            merged[key] = list(mine.values()) + list(theirs.values())
        elif key in UNION_LISTS and isinstance(old.get(key), (list, str)):
            before = [old[key]] if isinstance(old[key], str) else old[key]
            after = [value] if isinstance(value, str) else value
            merged[key] = list(dict.fromkeys([*after, *before]))
        else:
            merged[key] = value
    return merged


def merge_card(old: str | None, new: str, keep_foreign_configs: bool = True) -> str:
    """Merge a generated card into an existing one (``old`` None or blank: the new card as is)."""
    if not old or not old.strip():
        return new
    old_data, old_body = split_card(old)
    new_data, new_body = split_card(new)
    return join_card(merge_metadata(old_data, new_data, keep_foreign_configs), merge_body(old_body, new_body))


def fill_repo_id(card: str, repo_id: str) -> str:
    """Put the real repo id into the generated usage examples."""
    return card.replace(f'"{PLACEHOLDER_REPO}"', f'"{repo_id}"')
