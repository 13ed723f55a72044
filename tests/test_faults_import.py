"""blm import under faults: cell text kept as written (quotes in TSV cells), lone quotes and oversized cells as
one line with file:line, --encoding honoured, CR-only line ends, rows repeated across files, --label targets
checked, and JSON nested too deep."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blm_cli.main import main
from blm_datasets.importer import ImportOptions, ReleaseError, build
from blm_datasets.importer.cells import MAX_CELL

AGR = Path(__file__).parent / "fixtures" / "release" / "agr" / "BLMagr4dev_type_I.csv"
NAME = "BLMagr4dev_type_I.tsv"


def _table() -> list[list[str]]:
    return [line.split("\t") for line in AGR.read_text(encoding="utf-8").split("\n") if line]


def _write(path: Path, table: list[list[str]], newline: str = "\n", encoding: str = "utf-8") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((newline.join("\t".join(row) for row in table) + newline).encode(encoding))
    return path


def _records(result) -> list[dict]:
    return [r for splits in result.configs.values() for rows in splits.values() for r in rows]


def _one_line(capsys, *argv) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("blm import: error: ") and err.count("\n") == 1 and "Traceback" not in err
    return err


def test_a_tsv_cell_keeps_its_quotes_and_a_csv_quoted_cell_is_unquoted_with_a_note(tmp_path):
    table = _table()
    sent = table[0].index("Sent_1")
    table[1][sent] = '"Hélas" ' + table[1][sent]           # a quote at the start of a cell, as written
    table[2][sent] = '"Il dit ""oui"" ."'                  # what a CSV writer makes of: Il dit "oui" .
    table[3][sent] = '"Le chat dort'                       # a lone quote
    result = build([str(_write(tmp_path / NAME, table))])
    contexts = [r["context"][0] for r in _records(result)]
    assert len(contexts) == 12
    assert any(c.startswith('"Hélas" ') for c in contexts) and '"Le chat dort' in contexts
    assert 'Il dit "oui" .' in contexts
    assert any("1 cell written CSV-quoted" in note for f in result.files for note in f.notes)


def test_a_lone_quote_in_a_csv_is_one_line_naming_the_line(tmp_path, capsys):
    table = _table()
    table[3][1] = '"Le chat dort'
    path = tmp_path / "BLMagr4dev_type_I.csv"
    path.write_text("\n".join(",".join(row) for row in table) + "\n", encoding="utf-8")
    err = _one_line(capsys, "import", str(path), "--dry-run")
    assert f"{path}:4: the cells' quotes do not close" in err


def test_a_cell_over_the_limit_is_one_line_naming_the_line(tmp_path, capsys):
    table = _table()
    table[4][1] = "mot " * (MAX_CELL // 4 + 1)
    path = _write(tmp_path / NAME, table)
    err = _one_line(capsys, "import", str(path), "--dry-run")
    assert f"{path}:5: a cell is longer than 128 KiB" in err


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "cp1252"])
def test_the_encoding_flag_is_honoured_once_the_format_is_detected(tmp_path, encoding):
    table = _table()
    table[1][1] = table[1][1].replace("e", "é", 1)
    path = _write(tmp_path / NAME, table, encoding=encoding)
    plain = build([str(_write(tmp_path / "utf8" / NAME, table))])
    assert _records(build([str(path)], ImportOptions(encoding=encoding))) == _records(plain)


def test_a_utf16_file_without_the_flag_says_which_encoding(tmp_path, capsys):
    path = _write(tmp_path / NAME, _table(), encoding="utf-16")
    err = _one_line(capsys, "import", str(path), "--dry-run")
    assert "UTF-16 byte-order mark; pass --encoding utf-16" in err


@pytest.mark.parametrize("newline", ["\r", "\r\n"])
def test_any_line_end_reads_the_same_rows(tmp_path, newline):
    plain = _records(build([str(_write(tmp_path / "lf" / NAME, _table()))]))
    other = build([str(_write(tmp_path / NAME, _table(), newline=newline))])
    assert _records(other) == plain


def test_rows_repeated_across_files_are_a_defect_and_repair_removes_them(tmp_path):
    table = _table()
    _write(tmp_path / "rel" / "BLMagr4dev_type_I_part1.tsv", [table[0]] + table[1:8])
    _write(tmp_path / "rel" / "BLMagr4dev_type_I_part2.tsv", [table[0]] + table[5:13])   # rows 5-7 in both
    found = build([str(tmp_path / "rel")])
    second = next(f for f in found.files if f.path.endswith("part2.tsv"))
    assert second.defects["duplicate_instances"]["count"] == 3
    assert "part1.tsv" in second.defects["duplicate_instances"]["examples"][0]
    repaired = build([str(tmp_path / "rel")], ImportOptions(repair=True))
    keys = [(tuple(r["context"]), tuple(sorted(r["answers"]))) for r in _records(repaired)]
    assert len(keys) == len(set(keys)) == 12
    assert next(f for f in repaired.files if f.path.endswith("part2.tsv")).repairs["instances_removed"] == 3


@pytest.mark.parametrize("label, message", [
    ("mis_num=NOPE:SEQUENCE", "'NOPE' is no label the toolkit knows"),
    ("mis_num=Correct:GRAMMAR", "the gold answer is Correct:CORRECT and only it"),
    ("mis_num=WNA:CORRECT", "the gold answer is Correct:CORRECT and only it"),
    ("mis_num=SSM-1:SEQUENCE", "'SSM-1' is not a agr label"),
])
def test_a_label_target_the_toolkit_does_not_have_is_refused(capsys, label, message):
    err = _one_line(capsys, "import", str(AGR), "--dry-run", "--label", label)
    assert message in err


def test_one_name_mapped_twice_differently_is_refused(capsys):
    err = _one_line(capsys, "import", str(AGR), "--dry-run", "--label", "x=WNA:SEQUENCE", "--label", "x=WN1:SEQUENCE")
    assert "'X' is already mapped" in err or "is already mapped" in err


def test_unknown_labels_say_to_use_label_and_the_label_fix_works(tmp_path, capsys):
    table = _table()
    columns = [i for i, name in enumerate(table[0]) if name.startswith("Answer_label")]
    for row in table[1:]:
        for i in columns:
            if row[i] not in ("True", "Correct"):
                row[i] = "zz_" + row[i]
    path = _write(tmp_path / "release_typeI.tsv", table)       # no phenomenon in the path
    err = _one_line(capsys, "import", str(path), "--dry-run")
    assert "are in no phenomenon's table" in err and "--label 'zz_" in err
    names = {"zz_agreement_error_V": "AEV:GRAMMAR", "zz_agreement_error_N1": "AEN1:GRAMMAR",
             "zz_agreement_error_N2": "AEN2:GRAMMAR", "zz_N1_alter": "WN1:SEQUENCE", "zz_N2_alter": "WN2:SEQUENCE",
             "zz_coordination": "Coord:SEQUENCE", "zz_mis_num": "WNA:SEQUENCE"}
    labels = tuple(f"{k}={v}" for k, v in names.items())
    result = build([str(path)], ImportOptions(labels=labels))   # the documented fix, without --phenomenon
    assert list(result.configs) == ["agr_fr_typeI"] and len(_records(result)) == 12


def test_json_nested_too_deep_is_one_line(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100000 + "]" * 100000, encoding="utf-8")
    err = _one_line(capsys, "import", str(path), "--dry-run")
    assert "nested deeper than a reader can follow" in err
    lines = tmp_path / "deep_lines.json"
    lines.write_text(json.dumps({"Context": []}) + "\n" + "[" * 100000 + "]" * 100000 + "\n", encoding="utf-8")
    assert main(["import", str(lines), "--dry-run"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_cells_a_csv_writer_quoted_round_trip_exactly_tabs_quotes_and_line_ends_included(tmp_path):
    import csv

    table = _table()
    sent = [table[0].index(f"Sent_{i}") for i in (1, 2, 3, 4)]
    texts = ['Le chat\tdort .', 'Il dit "oui"\tet "non" .', "Une ligne\net une autre .", 'Fin\r\n"citée" .']
    for row, (column, text) in zip(table[1:], zip(sent, texts)):
        row[column] = text
    table[5][sent[0]] = '"Hélas" ' + table[5][sent[0]]      # the release's own unquoted quotes, as written
    table[6][sent[0]] = '"Le chat dort'                        # and a lone quote
    path = tmp_path / NAME
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, delimiter="\t").writerows(table)
    raw = path.read_text(encoding="utf-8")
    assert '"Le chat\tdort ."' in raw and '"""Hélas"" ' in raw     # the writer did quote them
    result = build([str(path)])
    records = _records(result)
    assert len(records) == 12
    contexts = {sentence for r in records for sentence in r["context"]}
    assert set(texts) <= contexts
    assert any(c.startswith('"Hélas" ') for c in contexts) and '"Le chat dort' in contexts
    # read with the release's own layout (no writer quoting) the same rows keep their quotes as written
    plain = _table()
    plain[5][sent[0]] = '"Hélas" ' + plain[5][sent[0]]
    plain[6][sent[0]] = '"Le chat dort'
    contexts = {s for r in _records(build([str(_write(tmp_path / "plain" / NAME, plain))])) for s in r["context"]}
    assert any(c.startswith('"Hélas" ') for c in contexts) and '"Le chat dort' in contexts


def _permuted(header: list[str], row: list[str], order: list[int], series=("Answer", "Answer_label", "Answer_value",
                                                                          "Answer_template", "Answer_chunks")):
    """The row with its candidates in ``order`` (candidate k of the new row is candidate order[k] of the old)."""
    row = list(row)
    for name in series:
        columns = [header.index(f"{name}_{i}") for i in range(1, len(order) + 1)]
        values = [row[c] for c in columns]
        for column, k in zip(columns, order):
            row[column] = values[k]
    return row


def _gold_of(header: list[str], row: list[str]) -> str:
    return next(row[header.index(f"Answer_{i}")] for i in range(1, 9)
                if row[header.index(f"Answer_value_{i}")] in ("True", "1"))


def test_repair_across_files_keeps_every_gold_on_its_correct_candidate_and_recounts_positions(tmp_path):
    table = _table()
    header = table[0]
    reversed_ = [7, 6, 5, 4, 3, 2, 1, 0]
    _write(tmp_path / "rel" / "BLMagr4dev_type_I_part1.tsv", [header] + table[1:8])
    _write(tmp_path / "rel" / "BLMagr4dev_type_I_part2.tsv",       # rows 5-7 again, candidates in another order
           [header] + [_permuted(header, row, reversed_) for row in table[5:13]])
    golds = {tuple(row[header.index(f"Sent_{i}")] for i in range(1, 8)): _gold_of(header, row) for row in table[1:13]}
    result = build([str(tmp_path / "rel")], ImportOptions(repair=True))
    records = _records(result)
    assert len(records) == 12 and len({tuple(r["context"]) for r in records}) == 12
    for record in records:
        assert record["answer_labels"][record["label"]] == "Correct"
        assert record["answer_error_classes"][record["label"]] == "CORRECT"
        assert record["answers"][record["label"]] == golds[tuple(record["context"])]
    for report in result.files:
        positions = report.repairs["gold_positions_after"]
        assert sum(positions.values()) == report.repairs["rows_shuffled"] == report.kept
    second = next(f for f in result.files if f.path.endswith("part2.tsv"))
    assert second.kept == 5 and second.repairs["instances_removed"] == 3


def test_an_instance_two_files_give_different_golds_is_a_defect_and_repair_drops_every_copy(tmp_path):
    table = _table()
    header = table[0]
    gold = next(i for i in range(8) if table[6][header.index(f"Answer_value_{i + 1}")] in ("True", "1"))
    other = (gold + 1) % 8
    swapped = list(range(8))
    swapped[gold], swapped[other] = other, gold            # the gold flag and label on another candidate's text
    conflicting = _permuted(header, table[6], swapped, series=("Answer_label", "Answer_value"))
    _write(tmp_path / "rel" / "BLMagr4dev_type_I_part1.tsv", [header] + table[1:8])
    _write(tmp_path / "rel" / "BLMagr4dev_type_I_part2.tsv", [header, conflicting] + table[8:13])
    found = build([str(tmp_path / "rel")])
    second = next(f for f in found.files if f.path.endswith("part2.tsv"))
    assert second.defects["conflicting_gold"]["count"] == 1 and "duplicate_instances" not in second.defects
    repaired = build([str(tmp_path / "rel")], ImportOptions(repair=True))
    contexts = [tuple(r["context"]) for r in _records(repaired)]
    shared = tuple(table[6][header.index(f"Sent_{i}")] for i in range(1, 8))
    assert shared not in contexts and len(contexts) == 11     # 7 + 6 rows, both copies of the conflict gone


def test_an_instance_one_file_gives_two_golds_is_a_defect_and_repair_drops_both(tmp_path):
    table = _table()
    header = table[0]
    gold = next(i for i in range(8) if table[4][header.index(f"Answer_value_{i + 1}")] in ("True", "1"))
    swapped = list(range(8))
    swapped[gold], swapped[(gold + 1) % 8] = (gold + 1) % 8, gold
    path = _write(tmp_path / NAME, table + [_permuted(header, table[4], swapped, series=("Answer_label", "Answer_value"))])
    found = build([str(path)])
    assert found.files[0].defects["conflicting_gold"]["count"] == 1
    contexts = [tuple(r["context"]) for r in _records(build([str(path)], ImportOptions(repair=True)))]
    assert tuple(table[4][header.index(f"Sent_{i}")] for i in range(1, 8)) not in contexts and len(contexts) == 11


def test_a_lone_quote_and_a_later_closing_quote_never_merge_rows(tmp_path):
    """Written unquoted, '"Le chat dort' and a later 'fin ."' would read as one writer-quoted cell spanning lines;
    every line that has the header's number of cells stays its own row, as written."""
    table = _table()
    sent = table[0].index("Sent_1")
    table[2][sent] = '"Le chat dort'
    table[5][sent] = 'fin ."'
    contexts = [r["context"][0] for r in _records(build([str(_write(tmp_path / NAME, table))]))]
    assert len(contexts) == 12 and '"Le chat dort' in contexts and 'fin ."' in contexts


def test_an_out_folder_that_cannot_be_written_is_refused_before_any_file_is_read(tmp_path, monkeypatch, capsys):
    import os

    from blm_cli import args as cli_args
    from blm_cli import import_cmds

    locked_away = tmp_path / "ro"
    locked_away.mkdir()
    real = os.access
    monkeypatch.setattr(cli_args.os, "access",                # a read-only mount: what access(2) says there
                        lambda path, mode: False if Path(path) == locked_away else real(path, mode))
    monkeypatch.setattr(import_cmds, "import_release", lambda *a, **k: pytest.fail("read the files first"))
    err = _one_line(capsys, "import", str(AGR), "--out", str(locked_away / "x"))
    assert f"{locked_away} is not writable" in err
