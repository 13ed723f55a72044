"""Reading released text files and their cells: encodings, booleans, chunk lists.

The releases were written by pandas and by hand over several years, so the same thing is spelt
several ways: ``True``/``False``/``1``/``0``/``1.0``, chunk lists as Python or JSON lists, files with
or without a BOM and with LF or CRLF line ends.
"""

from __future__ import annotations

import ast
import codecs
import contextlib
import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path

from blm_datasets.importer.rows import ReleaseError

MAX_CELL = 128 * 1024   # characters in one table cell: a BLM cell is a sentence or a chunk list, a few KiB at most
_LINE_END = re.compile(r"\r\n|\r|\n")
_BOMS = {codecs.BOM_UTF32_LE: "utf-32", codecs.BOM_UTF32_BE: "utf-32",   # UTF-32 first: its LE mark starts
         codecs.BOM_UTF16_LE: "utf-16", codecs.BOM_UTF16_BE: "utf-16"}    # with the UTF-16 LE one
_TRUE = {"true", "1", "1.0", "yes", "t"}
_FALSE = {"false", "0", "0.0", "no", "f"}


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """The file's text (a UTF-8 BOM dropped, CRLF kept for the csv module); undecodable bytes name their line."""
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise ReleaseError(f"--encoding {encoding!r}: not a text encoding Python knows (e.g. utf-8, latin-1, "
                           "cp1252)") from None
    data = path.read_bytes()
    if name == "utf-8":
        encoding = "utf-8-sig"
    try:
        text = data.decode(encoding).removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        bom = next((enc for mark, enc in _BOMS.items() if data.startswith(mark)), None)
        if bom and not name.startswith(bom):
            raise ReleaseError(f"{path}:1: the file starts with a {bom.upper()} byte-order mark, so it is not {name} "
                               f"text; pass --encoding {bom}") from None
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise ReleaseError(
            f"{path}:{line}: not {name} text (byte 0x{data[err.start]:02x} at column {column}: {err.reason}); "
            f"convert the file to UTF-8, or pass --encoding (e.g. --encoding latin-1) if it is in another "
            f"encoding") from None
    nul = text.find("\x00")
    if nul >= 0:  # no release cell holds one: a corrupted or binary file, or UTF-16 read as another encoding
        line = text.count("\n", 0, nul) + 1
        raise ReleaseError(f"{path}:{line}: a NUL character at column {nul - text.rfind(chr(10), 0, nul)}; the file is "
                           "corrupted or not text (UTF-16 without a byte-order mark? pass --encoding utf-16); fix or "
                           "re-export it")
    return text


def head_line(path: Path, encoding: str = "utf-8") -> str:
    """The first line of the file in ``encoding`` (read from its first 64 KiB; undecodable bytes replaced), for
    telling formats apart."""
    try:
        decoder = codecs.getincrementaldecoder("utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding)
    except LookupError:
        decoder = codecs.getincrementaldecoder("utf-8-sig")   # read_text names the bad --encoding
    with open(path, "rb") as handle:
        data = handle.read(1 << 16)
    bom = next((enc for mark, enc in _BOMS.items() if data.startswith(mark)), None)
    if bom and not codecs.lookup(encoding if encoding else "utf-8").name.startswith(bom):
        raise ReleaseError(f"{path}:1: the file starts with a {bom.upper()} byte-order mark; pass --encoding {bom}")
    text = decoder(errors="replace").decode(data)
    return first_line(text.removeprefix("\ufeff"))


def first_line(text: str) -> str:
    """The first line of ``text`` whatever its line ends (LF, CRLF or CR only)."""
    return _LINE_END.split(text, 1)[0]


def table(path: Path, text: str, delimiter: str, notes: list[str] | None = None
          ) -> Iterator[tuple[int, list[str]]]:
    """(line where the record starts, cells) for every record of a delimited text, the header first, blank lines as
    ``[]``; any line end. Cell text is kept as written: a tab-separated file is read by ``_tsv_records`` (a cell
    ``"so"`` keeps its quotes; a cell a CSV writer quoted is unquoted, tabs and line ends inside it kept); a
    comma-separated one with the CSV quoting rules, strictly. A lone quote (CSV) or a cell over MAX_CELL characters
    is a ReleaseError naming the line. ``notes`` gets how many cells were unquoted."""
    if delimiter == "\t":
        yield from _tsv_records(path, text, notes)
        return
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    start = 1
    with _field_limit(MAX_CELL):
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                break
            except csv.Error as err:
                if "field limit" in str(err):
                    raise _too_long(path, start) from None
                raise ReleaseError(f"{path}:{start}: the cells' quotes do not close ({err}); a cell holding a "
                                   'quote must be wholly quoted with the quote doubled ("say ""so""") - fix the '
                                   "row") from None
            yield start, cells
            start = reader.line_num + 1


# a field a CSV writer quoted: quotes doubled inside, the closing quote followed by a tab, a line end or the end
_QUOTED_FIELD = re.compile(r'"((?:[^"]++|"")*+)"(?=\t|\r|\n|\Z)')
_PLAIN_FIELD = re.compile(r"[^\t\r\n]*")
_NEEDS_QUOTES = re.compile(r'["\t\r\n]')


def _tsv_records(path: Path, text: str, notes: list[str] | None) -> Iterator[tuple[int, list[str]]]:
    """A tab-separated text's records. A line whose tabs give the header's number of cells is one record, each cell
    as written (a wholly quoted cell with its inner quotes doubled, as a CSV writer writes a quote, unquoted): so a
    release's unquoted ``"Hélas" …`` or lone ``"`` keeps its quotes and never swallows the cells after it. A line
    with another number of cells is read as a CSV writer (csv.writer, pandas) writes a cell holding a tab or a line
    end (wholly quoted, inner quotes doubled), when that gives the header's number; else as written, for the row
    checks to name."""
    pos, line, width, unquoted, end = 0, 1, None, 0, len(text)
    while pos < end:
        stop = _LINE_END.search(text, pos)
        cells = text[pos:stop.start() if stop else end].split("\t")
        quoted = None
        if width is not None and len(cells) != width and '"' in text[pos:stop.start() if stop else end]:
            quoted = _writer_quoted(text, pos)
        if quoted is not None and len(quoted[0]) == width:
            cells, pos, lines, n = quoted
            line_start, line, unquoted = line, line + lines, unquoted + n
        else:
            plain = [_unquoted(c) for c in cells]
            unquoted += sum(a != b for a, b in zip(plain, cells))
            cells, pos, line_start = plain, stop.end() if stop else end, line
            line += 1
        if any(len(cell) > MAX_CELL for cell in cells):
            raise _too_long(path, line_start)
        width = width or (len(cells) if cells != [""] else None)
        yield line_start, cells if cells != [""] else []
    if unquoted and notes is not None:
        notes.append(f"{unquoted} cell{'s' if unquoted > 1 else ''} written CSV-quoted (\"…\") read unquoted; "
                     "every other cell as written")


def _writer_quoted(text: str, pos: int) -> tuple[list[str], int, int, int]:
    """The record at ``pos`` read as a CSV writer quotes (a cell wholly quoted, inner quotes doubled, whose text
    needs quoting: a quote, tab or line end): (cells, position after its line end, lines it spans, cells
    unquoted)."""
    cells, lines, unquoted = [], 1, 0
    while True:
        quoted = _QUOTED_FIELD.match(text, pos) if text.startswith('"', pos) else None
        cell = quoted and quoted.group(1).replace('""', '"')
        if cell is not None and _NEEDS_QUOTES.search(cell):
            lines += len(_LINE_END.findall(quoted.group(1)))
            pos, unquoted = quoted.end(), unquoted + 1
        else:
            plain = _PLAIN_FIELD.match(text, pos)
            cell, pos = plain.group(), plain.end()
        cells.append(cell)
        if not text.startswith("\t", pos):
            break
        pos += 1
    ending = _LINE_END.match(text, pos)
    return cells, ending.end() if ending else pos, lines, unquoted


def _unquoted(cell: str) -> str:
    """A cell a CSV writer quoted because it holds a quote (say ""so"" in quotes) unquoted; any other as it is."""
    match = _QUOTED_FIELD.fullmatch(cell)
    if match and '""' in match.group(1):
        return match.group(1).replace('""', '"')
    return cell


def _too_long(path: Path, line: int) -> ReleaseError:
    return ReleaseError(f"{path}:{line}: a cell is longer than {MAX_CELL // 1024} KiB, the most a release cell may "
                        "hold (a sentence or a chunk list); is a quote left open? fix the cell")


@contextlib.contextmanager
def _field_limit(limit: int) -> Iterator[None]:
    saved = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(saved)


def parse_bool(text: str) -> bool | None:
    """True/False for the spellings the releases use, None for anything else."""
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    return None


def parse_list(text: str) -> list[str] | None:
    """A chunk list cell (``['L’ ordinateur', 'avec le programme', '', …]`` or JSON); None if it is not one."""
    text = text.strip()
    if not text.startswith("["):
        return None
    for parse in (json.loads, ast.literal_eval):
        try:
            value = parse(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return [v.strip() for v in value]
    return None


def joined_chunks(chunks: list[str]) -> str:
    """The sentence a chunk list spells: its non-empty chunks joined by single spaces."""
    return " ".join(c for c in chunks if c)


def squash_spaces(text: str) -> str:
    """``text`` with every run of white space made one space, stripped."""
    return " ".join(text.split())
