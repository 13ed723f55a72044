"""The tab-separated "4dev" files: an index column, then ``Sent_1..7``, ``Sent_template_i``,
``Sent_chunks_i``, ``Answer_1..N``, ``Answer_label_i``, ``Answer_value_i`` (gold = True),
``Answer_template_i`` and ``Answer_chunks_i``.

Columns are found by name, so their order does not matter (spray/load files start with ``ID``).
A series whose header repeats one name and lacks another (``Answer_label_8`` twice, no
``Answer_label_9``) is numbered by header order; a repeated column whose copies hold the same
values is read once. Either is noted in the report. A header that does not describe the rows otherwise is repaired
from the rows' content when that is unambiguous (``header_repair``); else it is an error naming
the column and why the rows do not settle it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from blm_datasets.importer import header_repair
from blm_datasets.importer.cells import first_line, parse_bool, parse_list, read_text, table
from blm_datasets.importer.rows import Problem, ReleasedRow, ReleaseError, SourceFile

# normalised header name -> series kind
_SERIES = {
    "sent": "context", "sent_template": "context_patterns", "sent_chunks": "context_chunks",
    "answer": "answers", "answer_label": "labels", "answer_value": "gold", "answer_template": "answer_patterns",
    "answer_chunks": "answer_chunks",
}
_PRIMARY = {"context": "context", "context_patterns": "context", "context_chunks": "context",
            "answers": "answers", "labels": "answers", "gold": "answers", "answer_patterns": "answers",
            "answer_chunks": "answers"}
_INDEX_NAMES = {"", "id", "index", "unnamed:_0", "unnamed_0"}
_LEMMA_NAMES = {"verb", "lemma", "seed"}
_NUMBERED = re.compile(r"^(?P<series>[a-z_]+?)_?(?P<n>\d+)$")


def looks_like(first_line: str) -> bool:
    """A 4dev header names Sent_1 and Answer_1 columns."""
    names = {_normalise(c) for c in re.split(r"[\t,;]", first_line)}
    return "sent_1" in names and "answer_1" in names


def _normalise(name: str) -> str:
    return re.sub(r"_+", "_", re.sub(r"[\s\-]+", "_", name.strip().strip('"').lower()))


def _delimiter(header_line: str) -> str:
    counts = {d: header_line.count(d) for d in ("\t", ",", ";")}
    return max(counts, key=counts.get)


def _layout(path: Path, header: list[str], notes: list[str]
            ) -> tuple[dict[str, list[int]], dict[str, list[int]], int | None, int | None]:
    """{series: [column per position]}, {series: [repeated columns]}, the index and the lemma column."""
    found: dict[str, list[tuple[int, int]]] = defaultdict(list)   # series -> [(number, column)]
    index_col = lemma_col = None
    ignored = []
    for col, raw in enumerate(header):
        name = _normalise(raw)
        match = _NUMBERED.match(name)
        if match and match.group("series") in _SERIES:
            found[_SERIES[match.group("series")]].append((int(match.group("n")), col))
        elif name in _INDEX_NAMES and index_col is None and (col == 0 or name == "id"):
            index_col = col
        elif name in _LEMMA_NAMES and lemma_col is None:
            lemma_col = col
        else:
            ignored.append(raw or f"(column {col + 1})")
    if ignored:
        notes.append(f"columns not read: {', '.join(ignored)}")
    for need, example in (("context", "Sent_1"), ("answers", "Answer_1")):
        if need not in found:
            raise ReleaseError(f"{path}:1: no {example}… columns in the header; this is not a 4dev file")
    # a group's size is the highest number any of its series uses (a repeated name is no extra position)
    sizes = {p: max(n for s, entries in found.items() if _PRIMARY[s] == p for n, _ in entries)
             for p in ("context", "answers")}
    layout, copies = {}, {}
    for series, entries in found.items():
        layout[series], copies[series] = _number(path, series, entries, sizes[_PRIMARY[series]], header, notes)
    if "labels" not in layout:
        raise ReleaseError(f"{path}:1: no Answer_label_1…{sizes['answers']} columns; the importer needs the label "
                           "of every candidate (add them, or convert the file to the CALAMITA JSON layout)")
    return layout, {s: c for s, c in copies.items() if c}, index_col, lemma_col


def _number(path: Path, series: str, entries: list[tuple[int, int]], size: int, header: list[str],
            notes: list[str]) -> tuple[list[int], list[int]]:
    """Columns of one series in position order 1..size (repairing a repeated-and-missing name by header
    order), and the columns that repeat a name with nothing missing (checked to hold the same values)."""
    numbers = [n for n, _ in entries]
    name = header[entries[0][1]].rstrip("0123456789")
    if sorted(numbers) == list(range(1, size + 1)):
        return [col for _, col in sorted(entries)], []
    repeated = sorted({n for n in numbers if numbers.count(n) > 1})
    missing = sorted(set(range(1, size + 1)) - set(numbers))
    if len(entries) == size and repeated and missing:
        notes.append(f"header repeats {', '.join(f'{name}{n}' for n in repeated)} and lacks "
                     f"{', '.join(f'{name}{n}' for n in missing)}: the {name}* columns are numbered by header order")
        return [col for _, col in sorted(entries, key=lambda e: e[1])], []
    if repeated and not missing and len(set(numbers)) == size:
        notes.append(f"header repeats {', '.join(f'{name}{n}' for n in repeated)}: copies must hold the same values")
        first = {}
        for n, col in entries:
            first.setdefault(n, col)
        return [first[n] for n in range(1, size + 1)], [col for n, col in entries if first[n] != col]
    what = f"lacks {', '.join(f'{name}{n}' for n in missing)}" if missing else f"has {name}{max(numbers)}"
    raise ReleaseError(f"{path}:1: the header {what} but there are {size} "
                       f"{'context sentences' if _PRIMARY[series] == 'context' else 'answers'}; "
                       f"fix the header so {name}1…{name}{size} each appear once")


def read(path: Path, encoding: str = "utf-8") -> SourceFile:
    """Read a 4dev file; structural problems raise, row problems are attached to their rows."""
    text = read_text(path, encoding)
    notes: list[str] = []
    records = table(path, text, _delimiter(first_line(text)), notes)
    header = next(records, (1, None))[1]
    if header is None:
        raise ReleaseError(f"{path}: the file is empty; give a 4dev file with a header and rows")
    rows, blank = [], 0
    for start, cells in records:
        if not any(c.strip() for c in cells):
            blank += 1
            continue
        rows.append((start, cells))
    try:
        layout, copies, index_col, lemma_col = _layout(path, header, notes)
        broken = None if not rows or any(len(cells) == len(header) for _, cells in rows) else ReleaseError(
            f"{path}:1: the header names {len(header)} columns but no row has {len(header)} cells")
    except ReleaseError as err:
        broken = err
    if broken is not None and not rows:
        raise broken
    if broken is not None:   # a corrupt header: the rows' content may still settle the layout
        layout, index_col, why = header_repair.layout_from_rows(header, [cells for _, cells in rows])
        if not layout:
            raise ReleaseError(f"{broken}; the rows do not settle it either ({why})") from None
        notes[:] = [f"{why}; the header itself: {str(broken).split(':1: ', 1)[-1].split('; fix')[0]}"]
        header = header_repair.header_names(layout, len(rows[0][1]), index_col)
        copies, lemma_col = {}, None
    source = SourceFile(path, "4dev", [], notes=notes, has_patterns="context_patterns" in layout,
                        has_chunks="context_chunks" in layout, answer_columns=len(layout["answers"]),
                        label_columns=[header[c] for c in layout["labels"]])
    for start, cells in rows:
        source.rows.append(_row(path, start, cells, header, layout, copies, index_col, lemma_col))
    if blank:
        notes.append(f"{blank} blank line{'s' if blank > 1 else ''} skipped")
    return source


def _row(path: Path, line: int, cells: list[str], header: list[str], layout: dict[str, list[int]],
         copies: dict[str, list[int]], index_col: int | None, lemma_col: int | None) -> ReleasedRow:
    row = ReleasedRow(path, line, cells[index_col].strip() if index_col is not None and index_col < len(cells) else "")
    if len(cells) != len(header):
        missing = [header[c] or f"column {c + 1}" for c in range(len(cells), len(header))]
        detail = f"missing {', '.join(missing[:3])}{'…' if len(missing) > 3 else ''}" if missing else "extra cells"
        row.problem = Problem("missing_cells", f"{row.where}: the row has {len(cells)} cells, the header "
                                               f"{len(header)} ({detail}); fix the row or pass --repair to drop it")
        return row
    for series, cols in copies.items():
        for col in cols:
            name = _normalise(header[col])
            twin = next(c for c in layout[series] if _normalise(header[c]) == name)
            if cells[col] != cells[twin]:
                raise ReleaseError(f"{row.where}: column {header[col]} appears twice in the header with different "
                                   f"values ({cells[twin]!r:.40} / {cells[col]!r:.40}); rename the wrong one")
    row.context = [cells[c].strip() for c in layout["context"]]
    row.answers = [cells[c].strip() for c in layout["answers"]]
    row.labels = [cells[c].strip() for c in layout["labels"]]
    if lemma_col is not None:
        row.lemma = cells[lemma_col].strip()
    if "gold" in layout:
        values = []
        for c in layout["gold"]:
            value = parse_bool(cells[c])
            if value is None:
                row.problem = Problem("bad_value", f"{row.where}: column {header[c]}: {cells[c]!r:.40} is not "
                                                   "True/False/1/0; fix the cell or pass --repair to drop the row")
                return row
            values.append(value)
        row.gold = values
    for series in ("context_patterns", "answer_patterns"):
        if series in layout:
            setattr(row, series, [cells[c].strip() for c in layout[series]])
    for series in ("context_chunks", "answer_chunks"):
        if series in layout:
            lists = []
            for c in layout[series]:
                chunks = parse_list(cells[c])
                if chunks is None:
                    row.problem = Problem("bad_value", f"{row.where}: column {header[c]}: {cells[c]!r:.40} is not a "
                                                       "list of chunks; fix the cell or pass --repair to drop the row")
                    return row
                lists.append(chunks)
            setattr(row, series, lists)
    return row
