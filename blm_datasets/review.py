"""Review sheets for native speakers: N random instances per (label, error class), context and gold.

Every candidate is a claim (the gold is the only valid continuation, a SEQUENCE candidate is
well-formed, a GRAMMAR candidate is not). A sheet groups the candidates by claim so a linguist can
check each quickly, and gives each line a box to tick; ``blm review NAME… --out FILE.md|.html``.
"""

from __future__ import annotations

import html
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from builders.errors import InputError

CLAIMS = {
    "CORRECT": "grammatical, natural, and the only valid continuation of the context",
    "SEQUENCE": "grammatical and natural, but NOT a valid continuation",
    "GRAMMAR": "ungrammatical or semantically anomalous in this language",
}


@dataclass(frozen=True)
class Item:
    """One candidate to judge, with the instance it comes from."""

    config: str
    label: str
    error_class: str
    sentence: str
    row: Mapping[str, Any]


def pick(rows: Sequence[Mapping[str, Any]], config: str, per_label: int, seed: int = 0) -> dict[tuple[str, str], list[Item]]:
    """``per_label`` random candidates for every (label, class) of the rows (fewer where rarer)."""
    by_claim: dict[tuple[str, str], list[Item]] = defaultdict(list)
    for row in rows:
        for sentence, label, cls in zip(row["answers"], row["answer_labels"], row["answer_error_classes"]):
            by_claim[label, cls].append(Item(config, label, cls, sentence, row))
    rng = random.Random(f"{seed}:{config}")
    order = {"CORRECT": 0, "SEQUENCE": 1, "GRAMMAR": 2}
    return {key: rng.sample(items, min(per_label, len(items)))
            for key, items in sorted(by_claim.items(), key=lambda kv: (order.get(kv[0][1], 3), kv[0][0]))}


def _gold(row: Mapping[str, Any]) -> str:
    return row["answers"][row["label"]]


def markdown(sheets: Iterable[tuple[str, dict[tuple[str, str], list[Item]]]]) -> str:
    lines = ["# BLM review sheet", "",
             "For each line, tick the box if the claim holds for a native speaker; otherwise write what is wrong.",
             "Claims: " + "; ".join(f"**{c}** = {text}" for c, text in CLAIMS.items()), ""]
    for config, groups in sheets:
        lines += [f"## {config}", ""]
        for (label, cls), items in groups.items():
            lines += [f"### {label} ({cls}): {CLAIMS.get(cls, '')}", ""]
            for n, item in enumerate(items, 1):
                row = item.row
                lines.append(f"{n}. [ ] **{item.sentence}**  ")
                lines.append(f"   <sub>{row['id']} · lemma {row['lemma']} · template {row['template']}</sub>")
                if cls != "CORRECT":
                    lines.append(f"   - gold: {_gold(row)}")
                lines.append("   - context: " + " / ".join(row["context"]))
            lines.append("")
    return "\n".join(lines) + "\n"


def to_html(sheets: Iterable[tuple[str, dict[tuple[str, str], list[Item]]]]) -> str:
    esc = html.escape
    parts = ["<!doctype html><meta charset='utf-8'><title>BLM review sheet</title>",
             "<style>body{font-family:sans-serif;max-width:60em;margin:auto}li{margin:.6em 0}"
             ".ctx{color:#555;font-size:90%}.GRAMMAR{color:#a00}.SEQUENCE{color:#06c}.CORRECT{color:#080}</style>",
             "<h1>BLM review sheet</h1><p>Tick a box when the claim holds for a native speaker.</p><ul>"]
    parts += [f"<li><b class='{c}'>{c}</b>: {esc(t)}</li>" for c, t in CLAIMS.items()]
    parts.append("</ul>")
    for config, groups in sheets:
        parts.append(f"<h2>{esc(config)}</h2>")
        for (label, cls), items in groups.items():
            parts.append(f"<h3 class='{cls}'>{esc(label)} ({cls})</h3><ol>")
            for item in items:
                row = item.row
                gold = "" if cls == "CORRECT" else f"<div class='ctx'>gold: {esc(_gold(row))}</div>"
                parts.append(f"<li><label><input type='checkbox'> <b>{esc(item.sentence)}</b></label>{gold}"
                             f"<div class='ctx'>{esc(' / '.join(row['context']))}</div>"
                             f"<div class='ctx'>{esc(row['id'])} · lemma {esc(row['lemma'])}</div></li>")
            parts.append("</ol>")
    return "\n".join(parts) + "\n"


def render(sheets: list[tuple[str, dict[tuple[str, str], list[Item]]]], fmt: str) -> str:
    if fmt not in ("md", "html"):
        raise InputError(f"review sheets are .md or .html, not .{fmt}")
    return markdown(sheets) if fmt == "md" else to_html(sheets)
