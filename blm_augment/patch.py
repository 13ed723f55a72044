"""The reviewable patch: proposals with model, score, frequency and example sentences.

A reviewer sets ``accept: true`` or ``accept: false`` on every proposal (and may correct its
``entry``, e.g. a gender); ``blm augment --apply PATCH LEXICON`` then adds the accepted entries to
the slot, keeps the rest of the file as it was, and checks the merged lexicon with the
phenomenon's own checker and the validator before writing it (atomically).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import yaml

from blm_augment import yaml_edit
from blm_augment.adapters import Candidate, adapter_for
from blm_augment.errors import AugmentError
from builders.lexicon import LexiconError, load_yaml

HEADER = """\
# blm augment patch. Review every proposal: read its examples as a native speaker would, set
# accept: true (the word really fits the slot) or accept: false, correct `entry` where needed,
# then merge with:  blm augment --apply {patch} {lexicon}
"""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def build(meta: dict[str, Any], kept: list[Candidate], rejected: list[dict]) -> dict[str, Any]:
    proposals = [{"word": c.word, "accept": None, "entry": c.entry, "score": c.score, "contexts": c.contexts,
                  "zipf": c.zipf, "notes": c.notes, "examples": c.examples} for c in kept]
    return {**meta, "proposals": proposals, "rejected": rejected}


def dump(patch: dict[str, Any], path: Path, lexicon: Path) -> str:
    body = yaml.safe_dump(patch, allow_unicode=True, sort_keys=False, width=110)
    return HEADER.format(patch=path, lexicon=lexicon) + body


def read(path: Path) -> dict[str, Any]:
    """A patch file, checked: every proposal reviewed (``accept`` true or false)."""
    try:
        data = load_yaml.__wrapped__(Path(path))  # uncached: the reviewer edits the file
    except LexiconError as err:
        raise AugmentError(str(err)) from None
    for key in ("phenomenon", "slot", "lexicon_sha256", "proposals"):
        if key not in data:
            raise AugmentError(f"{path}: not a blm augment patch (no {key!r}); make one with blm augment … --out")
    if not isinstance(data["proposals"], list):
        raise AugmentError(f"{path}:{getattr(data, 'key_lines', {}).get('proposals', '?')}: proposals must be a list")
    for item in data["proposals"]:
        if not isinstance(item, dict) or "word" not in item or "entry" not in item:
            raise AugmentError(f"{path}:{getattr(item, 'line', '?')}: a proposal needs 'word' and 'entry'")
        if item.get("accept") not in (True, False):
            raise AugmentError(f"{path}:{getattr(item, 'line', '?')}: proposal {item['word']!r} is not reviewed "
                               f"(accept: {item.get('accept')}); set accept: true or false")
    return data


def apply(patch_path: Path, lexicon: Path, force: bool = False) -> dict[str, Any]:
    """Merge the accepted proposals into ``lexicon``; returns counts. The lexicon must be the one the
    patch was made from (its hash), unless ``force`` (e.g. after another patch to the same file). A symlinked
    lexicon is written through (the real file changes, the link stays)."""
    from builders.locks import locked

    real = Path(os.path.realpath(lexicon))
    with locked(real, "blm augment --apply"):
        return _apply_locked(Path(patch_path), Path(lexicon), real, force)


def _apply_locked(patch_path: Path, lexicon: Path, real: Path, force: bool) -> dict[str, Any]:
    from builders.atomic import atomic_write_text

    patch = read(patch_path)
    text = yaml_edit.read(lexicon)
    if digest(text) != patch["lexicon_sha256"] and not force:
        raise AugmentError(f"{lexicon} changed since {patch_path} was made (hash {patch['lexicon_sha256']}); "
                           "re-run blm augment on it, or pass --force to merge into the current file")
    adapter = adapter_for(lexicon, patch["slot"], patch["phenomenon"], text)
    accepted = [p for p in patch["proposals"] if p["accept"]]
    cands, seen = [], {}
    for p in accepted:
        entry, where = _plain(p["entry"]), f"{patch_path}:{getattr(p, 'line', '?')}"
        key = adapter.entry_key(entry)
        if key is None:
            raise AugmentError(f"{where}: proposal {p['word']!r} has entry {entry!r}; an entry is "
                               f"{adapter.entry_shape}; correct it or set accept: false")
        if adapter.novelty(key) == "already in the slot":
            continue
        first = seen.get(key.casefold())
        if first is not None:  # accepted twice (or corrected into another proposal's word)
            if first[1] != entry:
                raise AugmentError(f"{where}: proposal {p['word']!r} adds {key!r} again with another entry than "
                                   f"{first[0]} ({entry!r} vs {first[1]!r}); accept only one of them")
            continue
        seen[key.casefold()] = (where, entry)
        cands.append(Candidate(key, 0.0, entry=entry))
    merged = adapter.edit(text, [c.entry for c in cands])
    failed = adapter.validate(cands)
    if failed:
        word, why = next(iter(failed.items()))
        raise AugmentError(f"{patch_path}: accepted {word!r} fails once merged: {why}; set accept: false or "
                           "correct its entry")
    try:  # the whole merged file, through the checker blm generate runs
        adapter.check(merged)
    except AugmentError as err:
        raise AugmentError(f"{patch_path}: the merged lexicon would be refused ({err}); {lexicon} is unchanged; "
                           "set accept: false on the proposal it names or correct its entry") from None
    atomic_write_text(real, merged.replace("\n", yaml_edit.line_end(lexicon)))
    return {"accepted": len(accepted), "added": len(cands), "already_present": len(accepted) - len(cands),
            "declined": len(patch["proposals"]) - len(accepted)}


def _plain(node: Any) -> Any:
    """Line-aware YAML nodes back to plain dicts, lists and strings."""
    if isinstance(node, dict):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node
