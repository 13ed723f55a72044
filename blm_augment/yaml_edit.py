"""Slot paths over a lexicon's YAML, and edits that add items without touching anything else.

A slot path is dot-separated keys: ``agents``, ``verbs.melt.patients``,
``seeds.letter.alternatives.subject``. In a list of mappings a part selects the item whose
``lemma``, ``id`` or ``name`` equals it (or a 0-based index). Edits splice text at the node's
position (comments, order and layout of the rest of the file are kept), so a merged lexicon
diffs as the added words only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import yaml

from blm_augment.errors import AugmentError

ITEM_KEYS = ("lemma", "id", "name")
WIDTH = 100


def compose(text: str, where: str) -> yaml.Node:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise AugmentError(f"{where}{line}: invalid YAML ({str(err).splitlines()[0]}); fix the file") from None
    if not isinstance(node, yaml.MappingNode):
        raise AugmentError(f"{where}: expected a mapping at the top level")
    return node


def _children(node: yaml.Node) -> list[str]:
    """What a path may name below ``node`` (for error messages)."""
    if isinstance(node, yaml.MappingNode):
        return [k.value for k, _ in node.value]
    if isinstance(node, yaml.SequenceNode):
        out = []
        for item in node.value:
            if isinstance(item, yaml.MappingNode):
                out += [v.value for k, v in item.value if k.value in ITEM_KEYS and isinstance(v, yaml.ScalarNode)][:1]
        return out
    return []


def find(root: yaml.Node, path: str, where: str) -> yaml.Node:
    """The node a slot path names; an unknown part lists what exists at that level."""
    if not path or any(not part for part in path.split(".")):
        raise AugmentError(f"--slot {path!r}: empty part; write keys separated by dots, e.g. verbs.melt.patients")
    node, done = root, []
    for part in path.split("."):
        nxt = None
        if isinstance(node, yaml.MappingNode):
            nxt = next((v for k, v in node.value if k.value == part), None)
        elif isinstance(node, yaml.SequenceNode):
            if part.isdigit() and int(part) < len(node.value):
                nxt = node.value[int(part)]
            for item in node.value:
                if nxt is None and isinstance(item, yaml.MappingNode) and any(
                        k.value in ITEM_KEYS and getattr(v, "value", None) == part for k, v in item.value):
                    nxt = item
        if nxt is None:
            options = _children(node)
            shown = ", ".join(options[:12]) + (" …" if len(options) > 12 else "")
            at = ".".join(done) or "the top level"
            raise AugmentError(f"--slot {path!r}: no {part!r} under {at} in {where}"
                               + (f"; there: {shown}" if shown else ""))
        node, done = nxt, done + [part]
    return node


def render(value) -> str:
    """One YAML flow item: ``butter``, ``{sg: burro, gender: m}``, ``"l'olio"``."""
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, sort_keys=False, width=math.inf)
    return text.removesuffix("\n").removesuffix("\n...").strip()


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def append(text: str, node: yaml.Node, items: Sequence[str], where: str) -> str:
    """``text`` with rendered ``items`` appended to the sequence (or block mapping) ``node``."""
    if not items:
        return text
    if isinstance(node, yaml.SequenceNode) and node.flow_style:
        return _append_flow(text, node, items)
    if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)) and node.value:
        last = node.value[-1]
        last = last[1] if isinstance(last, tuple) else last
        first = node.value[0][0] if isinstance(node, yaml.MappingNode) else node.value[0]
        column = first.start_mark.column
        if isinstance(node, yaml.SequenceNode):  # "- item": the dash is two columns left of the item
            prefix = text[_line_start(text, first.start_mark.index):first.start_mark.index]
            column, dash = len(prefix.rstrip()) - 1, "- "
        else:
            dash = ""
        end = last.end_mark.index
        stop = text.find("\n", end)
        stop = len(text) if stop < 0 else stop
        if text[end:stop].strip() and not text[end:stop].strip().startswith("#"):
            raise AugmentError(f"{where}:{last.end_mark.line + 1}: cannot append after this item; "
                               "put the list in block or flow style")
        added = "".join(f"\n{' ' * column}{dash}{item}" for item in items)
        return text[:stop] + added + text[stop:]
    raise AugmentError(f"{where}:{node.start_mark.line + 1}: the slot is not a list; name a list of words")


def _append_flow(text: str, node: yaml.SequenceNode, items: Sequence[str]) -> str:
    close = node.end_mark.index - 1
    if text[close] != "]":
        raise AugmentError(f"flow list at line {node.start_mark.line + 1} does not end in ']'")
    line_start = _line_start(text, close)
    # continuation lines keep the indentation of the list's own continuation lines, if any
    if node.value and node.value[-1].start_mark.line != node.start_mark.line:
        indent = node.value[-1].start_mark.column
        first_line = text[_line_start(text, node.value[-1].start_mark.index):]
        indent = len(first_line) - len(first_line.lstrip())
    else:
        indent = node.start_mark.column + 1
    column = close - line_start
    pieces, sep = [], ", " if node.value else ""
    for item in items:
        if column + len(sep) + len(item) + 1 > WIDTH:
            pieces.append(",\n" + " " * indent + item)
            column = indent + len(item)
        else:
            pieces.append(sep + item)
            column += len(sep) + len(item)
        sep = ", "
    return text[:close] + "".join(pieces) + text[close:]


def read(path: Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise AugmentError(f"{path}: not UTF-8 text (byte {err.start}); save it as UTF-8") from None


def line_end(path: Path) -> str:
    """The file's line end (``\\r\\n``, ``\\r`` or ``\\n``), so an edit writes the file back as it was; ``read``
    gives the text with ``\\n`` only."""
    raw = Path(path).read_bytes()
    return "\r\n" if b"\r\n" in raw else "\r" if b"\r" in raw else "\n"


def safe_load(text: str):
    """The plain data of a YAML text (the edits read what is already there)."""
    return yaml.safe_load(text)
