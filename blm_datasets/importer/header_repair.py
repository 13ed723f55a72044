"""A 4dev header that does not describe its rows, repaired from what the rows hold.

Some released files have a corrupt header (BLMsl4dev types II/III: ``Answer_1..10`` for 9 labels,
``Sent_template_1..4`` for 7 context sentences). Each column is then classed by its cells in every
row: booleans, released label names, chunk lists, patterns (``NP-Agent Verb PP-Loc``) or
sentences. The labels give the number of answers k; the sentence columns are the context
sentences then the k answers, in column order, and the pattern and chunk columns the same. The
layout is used only when this is unambiguous (every row as wide, k labels and k or no booleans,
at least two context sentences, pattern and chunk counts that fit); otherwise the reason is
returned for the report.
"""

from __future__ import annotations

import re

from blm_datasets.importer import labels as label_table
from blm_datasets.importer.cells import parse_bool, parse_list

_PATTERN_WORD = re.compile(r"^\[?[A-Z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*\]?$")


def _known_label(cell: str) -> bool:
    key = label_table.canonical(cell)
    return bool(key) and (label_table.is_gold_name(cell) or any(key in t for t in label_table.TABLE.values())
                          or any(key in t for t in label_table.BY_FORMAT.values()))


def column_kind(cells: list[str]) -> str:
    """bool | label | chunks | pattern | sentence | word | empty | other, from every row's cell of one column."""
    values = [c.strip() for c in cells]
    if all(not v for v in values):
        return "empty"
    if all(parse_bool(v) is not None for v in values):
        return "bool"
    if all(_known_label(v) or label_table.is_empty_name(v) for v in values):
        return "label"
    if all(parse_list(v) is not None for v in values):
        return "chunks"
    if all(v and all(_PATTERN_WORD.match(w) for w in v.split()) for v in values):
        return "pattern"
    if all(len(v.split()) > 1 and any(w.islower() for w in v.split()) for v in values):
        return "sentence"
    if all(len(v.split()) == 1 for v in values):
        return "word"           # an ID or a lemma column
    return "other"


def _split(columns: list[int], n: int, k: int, what: str) -> tuple[dict[str, list[int]], str]:
    """Context and answer columns of one series (n context, k answers), or why its count does not fit."""
    series = {"patterns": ("context_patterns", "answer_patterns"), "chunks": ("context_chunks", "answer_chunks")}[what]
    if not columns:
        return {}, ""
    if len(columns) == n + k:
        return {series[0]: columns[:n], series[1]: columns[n:]}, ""
    if len(columns) == k and k != n:
        return {series[1]: columns}, ""
    if len(columns) == n and k != n:
        return {series[0]: columns}, ""
    return {}, f"{len(columns)} {what} columns fit neither {n} context sentences nor {k} answers"


def layout_from_rows(header: list[str], rows: list[list[str]]) -> tuple[dict[str, list[int]], int | None, str]:
    """({series: columns}, index column, a note) read from the rows, or ({}, None, why not) when ambiguous."""
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        return {}, None, f"the rows have {'/'.join(map(str, sorted(widths)))} cells"
    width = widths.pop()
    kinds = [column_kind([r[c] for r in rows]) for c in range(width)]
    by_kind: dict[str, list[int]] = {}
    for col, kind in enumerate(kinds):
        by_kind.setdefault(kind, []).append(col)
    index = 0 if kinds[0] in ("word", "other") and len({r[0] for r in rows}) == len(rows) else None
    labels, booleans, sentences = by_kind.get("label", []), by_kind.get("bool", []), by_kind.get("sentence", [])
    k = len(labels)
    if k < 2:
        return {}, None, f"the rows hold {k} label columns"
    if booleans and len(booleans) != k:
        return {}, None, f"the rows hold {k} label columns but {len(booleans)} True/False columns"
    n = len(sentences) - k
    if n < 2:
        return {}, None, f"the rows hold {len(sentences)} sentence columns for {k} labels"
    stated = sum(1 for name in header if re.fullmatch(r"(?i)\s*sent_?\d+\s*", name))
    if stated and stated != n:
        return {}, None, (f"the rows hold {len(sentences)} sentence columns: {stated} context sentences (as the "
                          f"header says) would leave {len(sentences) - stated} answers for {k} labels")
    others = [c for c in by_kind.get("other", []) if c != index]
    if others:
        return {}, None, f"columns {', '.join(str(c + 1) for c in others[:4])} hold none of the 4dev contents"
    layout = {"context": sentences[:n], "answers": sentences[n:], "labels": labels}
    if booleans:
        layout["gold"] = booleans
    for what, kind in (("patterns", "pattern"), ("chunks", "chunks")):
        part, why = _split(by_kind.get(kind, []), n, k, what)
        if why:
            return {}, None, why
        layout.update(part)
    note = (f"header repaired from the rows: {n} context sentences, {k} answers, labels and "
            f"{'values' if booleans else 'no values'}" + "".join(
                f", {len(by_kind[kind])} {what} columns" for what, kind in (("pattern", "pattern"), ("chunk", "chunks"))
                if by_kind.get(kind)) + f" (the header names {len(header)} columns, the rows hold {width})")
    return layout, index, note


def header_names(layout: dict[str, list[int]], width: int, index: int | None) -> list[str]:
    """The 4dev names the repaired layout gives each column (for messages)."""
    names = [f"(column {c + 1})" for c in range(width)]
    prefix = {"context": "Sent_", "context_patterns": "Sent_template_", "context_chunks": "Sent_chunks_",
              "answers": "Answer_", "labels": "Answer_label_", "gold": "Answer_value_",
              "answer_patterns": "Answer_template_", "answer_chunks": "Answer_chunks_"}
    for series, cols in layout.items():
        for i, col in enumerate(cols, 1):
            names[col] = f"{prefix[series]}{i}"
    if index is not None:
        names[index] = "ID"
    return names
