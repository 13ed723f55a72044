"""The early BLM-AgrF files: comma-separated, a numeric header ``,0,1,…``, and per row an index,
7 context sentences, k answers, k booleans (gold = True) and k answer labels (k = 6: ``True``,
``coordination``, ``mis_num``, ``N1_alter``, ``N2_alter``, ``agreement_error``).

They carry no patterns and no chunks. The block of booleans is told from the block of labels by
its content, so a file that writes labels before booleans reads the same (noted in the report).
"""

from __future__ import annotations

import re
from pathlib import Path

from blm_datasets.importer.cells import parse_bool, read_text, table
from blm_datasets.importer.rows import Problem, ReleasedRow, ReleaseError, SourceFile

CONTEXT_SIZE = 7
_NUMERIC_HEADER = re.compile(r"^\ufeff?\s*(?:\"?\"?|Unnamed: 0)?\s*,\s*\"?0\"?\s*,\s*\"?1\"?\s*(,|$)")


def looks_like(first_line: str) -> bool:
    """A header that is an empty cell followed by 0, 1, 2 …"""
    return bool(_NUMERIC_HEADER.match(first_line.strip()))


def read(path: Path, encoding: str = "utf-8") -> SourceFile:
    """Read an early BLM-AgrF CSV; a header that does not fit 7 + 3k columns is an error."""
    text = read_text(path, encoding)
    records = table(path, text, ",")
    header = next(records, (1, None))[1]
    if header is None:
        raise ReleaseError(f"{path}: the file is empty; give a BLM-AgrF CSV with its header and rows") from None
    numbers = [c.strip() for c in header[1:]]
    if numbers != [str(i) for i in range(len(numbers))]:
        raise ReleaseError(f"{path}:1: the header is not ',0,1,2,…' (found {','.join(header[:6])}…); "
                           "this is not an early BLM-AgrF file")
    k, rest = divmod(len(numbers) - CONTEXT_SIZE, 3)
    if rest or k < 2:
        raise ReleaseError(f"{path}:1: {len(numbers)} data columns do not split into {CONTEXT_SIZE} context "
                           "sentences plus k answers, k booleans and k labels; check that this is a BLM-AgrF file")
    source = SourceFile(path, "agrf-csv", [], answer_columns=k)
    rows = [(start, cells) for start, cells in records if any(c.strip() for c in cells)]
    order = _block_order(rows, k)
    if order == "labels-first":
        source.notes.append("labels come before the booleans in this file")
    first_answer, blocks = 1 + CONTEXT_SIZE, {"gold": 1 + CONTEXT_SIZE + k, "labels": 1 + CONTEXT_SIZE + 2 * k}
    if order == "labels-first":
        blocks = {"gold": blocks["labels"], "labels": blocks["gold"]}
    source.label_columns = [f"{header[blocks['labels'] + i]} (label {i + 1})" for i in range(k)]
    for start, cells in rows:
        row = ReleasedRow(path, start, cells[0].strip() if cells else "")
        source.rows.append(row)
        if len(cells) != len(header):
            row.problem = Problem("missing_cells", f"{row.where}: the row has {len(cells)} cells, the header "
                                                   f"{len(header)}; fix the row or pass --repair to drop it")
            continue
        row.context = [c.strip() for c in cells[1:first_answer]]
        row.answers = [c.strip() for c in cells[first_answer:first_answer + k]]
        row.labels = [c.strip() for c in cells[blocks["labels"]:blocks["labels"] + k]]
        values = [parse_bool(c) for c in cells[blocks["gold"]:blocks["gold"] + k]]
        bad = next((i for i, v in enumerate(values) if v is None), None)
        if bad is not None:
            row.problem = Problem("bad_value", f"{row.where}: column {header[blocks['gold'] + bad]}: "
                                               f"{cells[blocks['gold'] + bad]!r:.40} is not True/False/1/0; fix the "
                                               "cell or pass --repair to drop the row")
            continue
        row.gold = values
    return source


def _block_order(rows: list[tuple[int, list[str]]], k: int) -> str:
    """booleans-first (the release's order) unless the rows say the labels come first."""
    first, second = 1 + CONTEXT_SIZE + k, 1 + CONTEXT_SIZE + 2 * k

    def all_bool(cells: list[str], at: int) -> bool:
        return all(parse_bool(c) is not None for c in cells[at:at + k])

    complete = [cells for _, cells in rows if len(cells) == 1 + CONTEXT_SIZE + 3 * k]
    if complete and not any(all_bool(c, first) for c in complete) and all(all_bool(c, second) for c in complete):
        return "labels-first"
    return "booleans-first"
