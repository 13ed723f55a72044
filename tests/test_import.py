"""`blm import`: the released BLM formats read into the export layout, labels mapped, defects counted.

Every test reads the fixtures of tests/fixtures/release (invented sentences in the release's
layouts; see their README) or variants of them written into tmp_path.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections import Counter
from pathlib import Path

import datasets
import pytest
from conftest_models import single_torch_thread, tiny_encoder_dir  # noqa: F401 (fixtures)

from blm_cli.main import main
from blm_datasets.calamita import to_calamita
from blm_datasets.features import FEATURES
from blm_datasets.importer import ImportOptions, ReleaseError, build, import_release
from blm_datasets.importer import labels as label_table
from blm_datasets.sources import load_source
from builders import registry
from builders.generate import Options, generate
from hub_cards.schema import check_dataset_card_data
from hub_cards.sections import split_card

RELEASE = Path(__file__).parent / "fixtures" / "release"
AGR = RELEASE / "agr" / "BLMagr4dev_type_I.csv"
AGRF = RELEASE / "agrf" / "BLM-AgrF_typeI.csv"
SPRAY = RELEASE / "sprayload" / "ALT-ATL" / "type_II"
SPRAY_TSV = SPRAY / "BLM_sprayload_ALT-ATL_typeII.tsv"
CALAMITA = RELEASE / "calamita"
# labels by content: the agreement_error_N1 candidate has the AEN2 sentence (and pattern), as in the release
AGR_LABELS = ["Correct", "AEV", "AEN2", "AEN2", "WN1", "WN2", "Coord", "WNA"]


def read_table(path: Path, delimiter: str = "\t") -> tuple[list[str], list[list[str]]]:
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline=""), delimiter=delimiter))
    return rows[0], rows[1:]


def write_table(path: Path, header: list[str], rows: list[list[str]], delimiter: str = "\t",
                newline: str = "\n", encoding: str = "utf-8") -> Path:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, lineterminator=newline).writerows([header, *rows])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue().encode(encoding))
    return path


def records(result) -> list[dict]:
    return [r for splits in result.configs.values() for rows in splits.values() for r in rows]


def file_report(result, name: str):
    return next(f for f in result.files if Path(f.path).name == name)


def content(result) -> list[tuple]:
    """The imported instances, independent of ids and of the order of the files' rows."""
    return sorted((tuple(r["context"]), tuple(r["answers"]), tuple(r["answer_labels"]), r["label"],
                   tuple(r["answer_patterns"]), tuple(map(tuple, r["context_chunks"]))) for r in records(result))


def agr_variant(tmp_path: Path, edit, name: str = "BLMagr4dev_type_I.csv") -> Path:
    """The agreement fixture with ``edit(header, rows)`` applied, written to tmp_path/agr/name."""
    header, rows = read_table(AGR)
    edit(header, rows)
    return write_table(tmp_path / "agr" / name, header, rows)


# ------------------------------------------------------------------------------------------ the 4dev format
def test_4dev_rows_keep_the_release_text_and_map_labels_to_spec_labels_and_classes():
    result = build([str(AGR)])
    assert list(result.configs) == ["agr_fr_typeI"]
    rows = records(result)
    header, raw = read_table(AGR)
    assert len(rows) == len(raw) == 12
    released = {tuple(r[header.index(f"Sent_{i}")] for i in range(1, 8)) for r in raw}
    assert {tuple(r["context"]) for r in rows} == released  # text exactly as released (tokenised, ’)
    for row in rows:
        assert row["answer_labels"] == AGR_LABELS and row["label"] == 0
        assert row["answer_error_classes"] == ["CORRECT", "GRAMMAR", "GRAMMAR", "GRAMMAR", "SEQUENCE", "SEQUENCE",
                                               "SEQUENCE", "SEQUENCE"]
        assert all(" ".join(c for c in chunks if c) == text for chunks, text in zip(row["context_chunks"],
                                                                                   row["context"]))
        assert row["phenomenon"] == "agr" and row["language"] == "fr" and row["lexical_type"] == "I"
    assert Counter(r["template"] for r in rows) == {"main": 6, "completive": 6}  # from Prefix in the patterns
    assert any("l’ élève" in s for r in rows for s in r["context"])


def test_4dev_defects_are_counted_per_file():
    header, raw = read_table(AGR)
    col = {name: i for i, name in enumerate(header)}
    same_ae = sum(r[col["Answer_3"]] == r[col["Answer_4"]] for r in raw)
    in_context = sum(r[col["Answer_5"]] in {r[col[f"Sent_{i}"]] for i in range(1, 8)} for r in raw)
    report = file_report(build([str(AGR)]), AGR.name)
    found = report.defects
    assert found["duplicate_candidates"]["count"] == same_ae == 12
    assert found["duplicate_candidates"]["detail"] == {"AEN2 = AEN2": 12}
    assert found["gold_same_position"]["count"] == 12 and found["gold_same_position"]["detail"] == {"answer 1": 12}
    assert found["answer_in_context"]["detail"] == {"WN1": in_context}
    assert "label_pattern_mismatch" not in found  # the content's label replaced the name that contradicted it
    assert report.content_labels["relabelled"]["detail"] == {
        "agreement_error_N1: AEN1 -> AEN2 (verb number changed; the verb agrees with attractor 2)": 12}
    assert "chunks_mismatch" not in found and "gold_equals_distractor" not in found
    assert found["duplicate_candidates"]["examples"][0].endswith("BLMagr4dev_type_I.csv:2 (row 0)")


def test_text_that_does_not_match_its_chunks_and_a_distractor_equal_to_the_gold_are_found(tmp_path):
    def edit(header, rows):
        rows[1][header.index("Sent_3")] += " encore"
        for column in ("Answer_{}", "Answer_chunks_{}"):
            rows[2][header.index(column.format(6))] = rows[2][header.index(column.format(1))]

    found = file_report(build([str(agr_variant(tmp_path, edit))]), AGR.name).defects
    assert found["chunks_mismatch"]["count"] == 1 and found["chunks_mismatch"]["detail"] == {"Sent_3": 1}
    assert found["gold_equals_distractor"]["detail"] == {"WN2": 1}


def _bom(header, rows):
    header[0] = "\ufeff" + header[0]


def _reordered(header, rows):
    order = list(reversed(range(len(header))))
    header[0] = "ID"
    header[:] = [header[i] for i in order]
    for row in rows:
        row[:] = [row[i] for i in order]


def _one_zero(header, rows):
    for row in rows:
        for i, name in enumerate(header):
            if name.startswith("Answer_value_"):
                row[i] = "1" if row[i] == "True" else "0"


def _identical_copy(header, rows):
    header.append("Sent_2")
    for row in rows:
        row.append(row[header.index("Sent_2")])


def _repeated_and_missing(header, rows):
    header[header.index("Answer_label_8")] = "Answer_label_7"


@pytest.mark.parametrize("edit, note", [
    (_bom, None), (_reordered, None), (_one_zero, None),
    (_identical_copy, "header repeats Sent_2: copies must hold the same values"),
    (_repeated_and_missing, "numbered by header order"),
], ids=["bom", "column-order", "1-0-values", "identical-repeated-column", "repeated-and-missing-name"])
def test_layout_variations_of_the_4dev_files_read_the_same(tmp_path, edit, note):
    result = build([str(agr_variant(tmp_path, edit))])
    assert content(result) == content(build([str(AGR)]))
    notes = result.files[0].notes
    assert any(note in n for n in notes) if note else not [n for n in notes if "repeats" in n]


def test_crlf_line_ends_read_the_same(tmp_path):
    header, rows = read_table(AGR)
    path = write_table(tmp_path / "agr" / AGR.name, header, rows, newline="\r\n")
    assert content(build([str(path)])) == content(build([str(AGR)]))


def test_a_repeated_column_with_different_values_is_an_error_naming_it(tmp_path):
    def edit(header, rows):
        header.append("Sent_2")
        for row in rows:
            row.append("autre chose .")

    with pytest.raises(ReleaseError, match=r"BLMagr4dev_type_I.csv:2 \(row 0\): column Sent_2 appears twice"):
        build([str(agr_variant(tmp_path, edit))])


# ------------------------------------------------------------------------------------------ malformed input
def _drop_cells(header, rows):
    del rows[3][-3:]


def _no_gold(header, rows):
    rows[3][header.index("Answer_value_1")] = "False"


def _two_golds(header, rows):
    rows[3][header.index("Answer_value_2")] = "True"


def _bad_value(header, rows):
    rows[3][header.index("Answer_value_4")] = "Maybe"


@pytest.mark.parametrize("edit, kind, message", [
    (_drop_cells, "missing_cells", r":5 \(row 21\): the row has 59 cells, the header 62 \(missing Answer_chunks_6"),
    (_no_gold, "no_gold", r":5 \(row 21\): no gold answer \(no candidate flagged True\)"),
    (_two_golds, "two_golds", r":5 \(row 21\): 2 gold answers \(candidates 1, 2 flagged True\)"),
    (_bad_value, "bad_value", r":5 \(row 21\): column Answer_value_4: 'Maybe' is not True/False/1/0"),
], ids=["missing-cells", "no-gold", "two-golds", "bad-boolean"])
def test_an_unusable_row_stops_the_import_unless_repair_drops_and_counts_it(tmp_path, edit, kind, message):
    path = agr_variant(tmp_path, edit)
    with pytest.raises(ReleaseError, match=message + r".*pass --repair"):
        build([str(path)])
    report = build([str(path)], ImportOptions(repair=True)).files[0]
    assert report.dropped == {kind: 1} and report.kept == 11 and report.rows == 12


def test_a_missing_column_in_the_header_is_an_error_naming_it(tmp_path):
    def edit(header, rows):
        at = header.index("Answer_value_5")
        del header[at]
        for row in rows:
            del row[at]

    with pytest.raises(ReleaseError, match=r"BLMagr4dev_type_I.csv:1: the header lacks Answer_value_5 but there are 8 "
                                           r"answers"):
        build([str(agr_variant(tmp_path, edit))])


def test_a_file_that_is_not_utf8_names_its_line_and_reads_with_encoding(tmp_path):
    header, rows = read_table(AGR)
    path = write_table(tmp_path / "agr" / AGR.name, header, rows, encoding="cp1252")
    first = next(n for n, line in enumerate(AGR.read_text(encoding="utf-8").splitlines(), 1) if not line.isascii())
    with pytest.raises(ReleaseError, match=rf"BLMagr4dev_type_I.csv:{first}: not utf-8 text \(byte 0x.. at column "
                                           r"\d+: invalid .*--encoding"):
        build([str(path)])
    assert content(build([str(path)], ImportOptions(encoding="cp1252"))) == content(build([str(AGR)]))


def test_a_nul_character_in_a_cell_names_its_line(tmp_path):
    header, rows = read_table(AGR)
    rows[4][header.index("Sent_3")] += "\x00"
    path = write_table(tmp_path / "agr" / AGR.name, header, rows)
    with pytest.raises(ReleaseError, match=r"BLMagr4dev_type_I.csv:6: a NUL character at column \d+; the file is "
                                           r"corrupted or not text"):
        build([str(path)])


def test_an_unknown_label_names_file_row_column_and_the_fix(tmp_path):
    path = agr_variant(tmp_path, lambda header, rows: rows.__getitem__(2).__setitem__(
        header.index("Answer_label_8"), "mis_numb"))
    with pytest.raises(ReleaseError) as err:
        build([str(path)])
    assert str(err.value).startswith(f"{path}:4 (row 14): column Answer_label_8: unknown label 'mis_numb' for agr")
    assert "--label 'mis_numb=LABEL:CLASS'" in str(err.value)
    fixed = build([str(path)], ImportOptions(labels=("mis_numb=WNA:SEQUENCE",)))
    assert all(r["answer_labels"][7] == "WNA" for r in records(fixed))


def test_the_cli_prints_one_line_and_exits_2_on_bad_input(tmp_path, capsys):
    path = agr_variant(tmp_path, _two_golds)
    assert main(["import", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("blm import: error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()
    assert main(["import", str(tmp_path / "missing.tsv"), "--dry-run"]) == 2
    assert "SRC " in capsys.readouterr().err
    assert main(["import", str(AGR)]) == 2
    assert "--dry-run" in capsys.readouterr().err
    assert main(["import", str(AGR), "--dry-run", "--encoding", "no-such-codec"]) == 2
    assert "--encoding 'no-such-codec': not a text encoding" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ labels
def test_released_label_spellings_meet_the_spec_labels():
    spec = {"agr": {"Coord", "WNA", "WN1", "WN2", "AEV", "AEN1", "AEN2"},
            "cos": {"I-INT", "ER-PASS", "IER-PASS", "R-TRANS", "IR-TRANS", "E-WRBY", "IE-WRBY"},
            "sprayload": {"AGENTACT", "ALT-NP", "ALT-PP", "NOEMB", "LEXPREP", "SSM-1", "SSM-2", "AASSM"},
            "roll": {"SC-RS", "SC-RR", "RR", "PSC-RS", "PSC-RR", "PC-RR"}}
    for phenomenon, labels in spec.items():
        targets = {label for entry in label_table.TABLE[phenomenon].values() for label in entry.labels}
        assert labels <= targets, phenomenon
    cases = [("agr", ["True", "mis_num", "coordination", "N1_alter", "N2_alter", "agreement_error"], "main",
              ["Correct", "WNA", "Coord", "WN1", "WN2", "AE"]),
             ("od", ["Correct", "I-Int", "ER-pass", "IE-WrBy"], "od", ["Correct", "I-INT", "ER-PASS", "IE-WRBY"]),
             ("sprayload", ["Correct", "Alt", "Alt", "SSM", "SSM", "NoEmb"], "ALT-ATL",
              ["Correct", "ALT-NP", "ALT-PP", "SSM-1", "SSM-2", "NOEMB"]),
             ("cosplus", ["Correct", "GRAMMAR", "SEQUENCE"], "I2T", ["Correct", "R-TRANS", "I-INT"])]
    for phenomenon, names, template, expected in cases:
        labels, _ = label_table.map_labels(names, 0, phenomenon, template, {}, "f:1", [""] * len(names))
        assert labels == expected
    _, t2i = label_table.map_labels(["Correct", "I-INT"], 0, "cosplus", "T2I", {}, "f:1", ["", ""])
    _, i2t = label_table.map_labels(["Correct", "I-INT"], 0, "cosplus", "I2T", {}, "f:1", ["", ""])
    assert (t2i[1], i2t[1]) == ("GRAMMAR", "SEQUENCE")  # Samo & Merlo 2025 Fig. 9
    with pytest.raises(ReleaseError, match="expected RELEASED=LABEL:CLASS"):
        label_table.parse_override("mis_num=WNA:WRONG")


# ------------------------------------------------------------------------------------------ repairs
def test_repair_removes_the_mislabelled_twin_shuffles_and_counts_every_change():
    plain, repaired = build([str(AGR)]), build([str(AGR)], ImportOptions(repair=True))
    report = repaired.files[0]
    assert report.repairs["candidates_removed"] == {"AEN2": 12}  # the second of the two AEN2 sentences
    assert report.repairs["rows_shuffled"] == 12 and report.kept == 12
    assert len(report.repairs["gold_positions_after"]) > 1
    golds = {tuple(r["context"]): r["answers"][r["label"]] for r in records(plain)}
    for row in records(repaired):
        assert row["answers"][row["label"]] == golds[tuple(row["context"])]
        assert len(set(row["answers"])) == len(row["answers"]) == 7
        assert row["answer_labels"][row["label"]] == "Correct" and "AEN1" not in row["answer_labels"]
    again = build([str(AGR)], ImportOptions(repair=True))
    assert content(again) == content(repaired)


def test_repair_drops_repeated_instances_and_counts_them(tmp_path):
    path = agr_variant(tmp_path, lambda header, rows: rows.append(list(rows[0])))
    plain = file_report(build([str(path)]), AGR.name)
    assert plain.defects["duplicate_instances"]["count"] == 1
    repaired = file_report(build([str(path)], ImportOptions(repair=True)), AGR.name)
    assert repaired.repairs["instances_removed"] == 1 and repaired.kept == 12 and repaired.rows == 13


# ------------------------------------------------------------------------------------------ other formats
def test_early_blm_agrf_csv_reads_six_answers_and_quoted_commas():
    result = build([str(AGRF)])
    rows = records(result)
    assert list(result.configs) == ["agr_fr_typeI"] and len(rows) == 6
    for row in rows:
        # N1_alter: subject number changed, verb kept (an agreement error); N2_alter: attractor 1 (WN1)
        assert row["answer_labels"][:5] == ["WNA", "Coord", row["answer_labels"][2], "Correct", "WN1"]
        assert row["answer_labels"][2] in ("AEN1", "AEN2", "AEV") and row["answer_labels"][5] in ("AEN1", "AEN2", "AEV")
        assert row["answer_error_classes"] == ["SEQUENCE", "SEQUENCE", "GRAMMAR", "CORRECT", "SEQUENCE", "GRAMMAR"]
        assert row["label"] == 3 and row["answer_patterns"] == [""] * 6 and row["template"] == "main"
        assert row["context_chunks"] == [[s] for s in row["context"]]
    assert any(s.endswith("dort , paraît-il .") for r in rows for s in r["context"])
    checks = result.config_reports["agr_fr_typeI"].checks
    assert set(checks["not_applicable"]) == {"chunks_match", "gold_is_next_step"}


def test_early_agrf_with_labels_before_booleans_reads_the_same(tmp_path):
    header, rows = read_table(AGRF, ",")
    for row in rows:
        row[14:] = row[20:] + row[14:20]
    path = write_table(tmp_path / "agrf" / AGRF.name, header, rows, delimiter=",")
    result = build([str(path)])
    assert content(result) == content(build([str(AGRF)]))
    assert "labels come before the booleans in this file" in result.files[0].notes


def test_calamita_files_keep_their_split_and_verb_and_check_the_gold():
    result = build([str(CALAMITA)])
    assert list(result.configs) == ["od_it_typeII"]
    splits = result.configs["od_it_typeII"]
    assert {s: len(r) for s, r in splits.items()} == {"train": 2, "test": 3}  # fewshot / test file names
    items = json.loads((CALAMITA / "BLM-OdI_typeII_test.json").read_text(encoding="utf-8"))
    for item, row in zip(items, splits["test"]):
        assert row["lemma"] == item["Verb"] and row["answers"][row["label"]] == item["Correct_answer"]
        assert row["label"] == ord(item["Correct_option"]) - ord("A")
        note = {n["label"]: n for n in item["Answer_set_annotation"]}
        assert row["answer_labels"][ord(note["I-Int"]["option"]) - 65] == "I-INT"
        assert row["answer_error_classes"][ord(note["ER-pass"]["option"]) - 65] == "SEQUENCE"


def test_a_calamita_item_whose_correct_option_disagrees_is_unusable(tmp_path):
    items = json.loads((CALAMITA / "BLM-OdI_typeII_test.json").read_text(encoding="utf-8"))
    gold = items[1]["Correct_option"]
    items[1]["Correct_option"] = "A" if gold != "A" else "B"
    path = tmp_path / "calamita" / "BLM-OdI_typeII_test.json"
    path.parent.mkdir()
    path.write_text(json.dumps(items), encoding="utf-8")
    with pytest.raises(ReleaseError, match=rf"item 2 \(ID 103\): Correct_option is '.' but the annotation marks "
                                           rf"{gold}"):
        build([str(path)])


def test_the_toolkits_own_calamita_export_imports_back_to_its_rows(tmp_path):
    original = generate(registry.get_spec("agr_en_typeI"), Options(size=24), progress=False)["test"].records
    path = tmp_path / "agr_en_typeI_test.json"
    # the layout write_calamita writes (it refuses agr's 6 candidates, which CALAMITA's harness misscores)
    path.write_text(json.dumps([to_calamita(row, i) for i, row in enumerate(original)]), encoding="utf-8")
    result = build([str(path)])
    assert list(result.configs) == ["agr_en_typeI"]
    back = result.configs["agr_en_typeI"]["test"]
    for before, after in zip(original, back, strict=True):
        for column in ("context", "answers", "answer_labels", "answer_error_classes", "label", "lemma"):
            assert after[column] == before[column], column


HARNESS = RELEASE / "calamita_harness"   # CALAMITA's task-file layout: no Answer_set_annotation


def test_calamita_task_files_without_annotations_import_with_the_gold_and_unknown_distractors():
    result = build([str(HARNESS)])
    assert list(result.configs) == ["cos_it_typeII"]   # BLM-CausIt_type-II: the path names the task
    splits = result.configs["cos_it_typeII"]
    assert {s: len(r) for s, r in splits.items()} == {"train": 2, "test": 3}
    items = json.loads((HARNESS / "BLM-CausIt_type-II" / "test.json").read_text(encoding="utf-8"))
    for item, row in zip(items, splits["test"], strict=True):
        assert row["answers"] == item["Answer_set"] and row["lemma"] == item["Verb"]
        assert row["label"] == "ABCDEFGH".index(item["Correct_option"])
        assert row["answers"][row["label"]] == item["Correct_answer"]
        assert row["answer_labels"] == ["Correct" if i == row["label"] else "UNKNOWN" for i in range(8)]
        assert row["answer_error_classes"] == ["CORRECT" if i == row["label"] else "UNKNOWN" for i in range(8)]
    report = file_report(result, "test.json")
    assert any("3 of 3 items have no Answer_set_annotation" in n and "UNKNOWN" in n and "macro-F1" in n
               for n in report.notes)
    failures = result.config_reports["cos_it_typeII"].checks["failures"]
    assert "one_gold" in failures and not any(failures.values())   # the gold checks still apply, and pass


def test_unannotated_agreement_items_take_their_labels_from_the_sentences(tmp_path):
    original = generate(registry.get_spec("agr_it_typeII"), Options(size=24), progress=False)["test"].records
    items = [to_calamita(row, i) for i, row in enumerate(original)]
    for item in items:
        del item["Answer_set_annotation"]
    path = tmp_path / "BLM-AgrIt_type-II_test.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    result = build([str(path)])
    back = result.configs["agr_it_typeII"]["test"]
    assert [r["answer_labels"] for r in back] == [r["answer_labels"] for r in original]
    assert [r["answer_error_classes"] for r in back] == [r["answer_error_classes"] for r in original]
    assert sum(result.files[0].content_labels["refined"].values()) == 5 * len(original)   # UNKNOWN -> label, read from Italian text


def test_calamita_items_with_only_the_concatenated_fields_read_the_same(tmp_path):
    items = json.loads((HARNESS / "BLM-CausIt_type-II" / "test.json").read_text(encoding="utf-8"))
    bare = [{k: v for k, v in item.items() if k not in ("Context", "Answer_set", "Correct_answer")} for item in items]
    path = tmp_path / "BLM-CausIt_type-II" / "test.json"
    path.parent.mkdir()
    path.write_text(json.dumps(bare, ensure_ascii=False), encoding="utf-8")
    rows = build([str(path)]).configs["cos_it_typeII"]["test"]
    assert [(r["context"], r["answers"], r["label"]) for r in rows] == [
        (i["Context"], i["Answer_set"], "ABCDEFGH".index(i["Correct_option"])) for i in items]
    bare[0]["Correct_option"] = "J"
    path.write_text(json.dumps(bare, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ReleaseError, match=r"item 1 \(ID 100\): Correct_option 'J' is not one of the 8 options A-H"):
        build([str(path)])


def test_split_folders_give_the_release_split_and_unlisted_rows_are_counted():
    result = build([str(SPRAY)])
    assert list(result.configs) == ["sprayload_en_altatl_typeII"]
    splits = result.configs["sprayload_en_altatl_typeII"]
    x = {split: json.loads((SPRAY / "datasets" / split / "sentences" / "x.json").read_text()) for split in splits}
    assert {s: [r["context"] for r in rows] for s, rows in splits.items()} == x
    report = result.files[0]
    assert report.dropped == {"not_in_release_split": 1} and report.kept == 6 and report.rows == 7
    assert any("header repeats Answer_template_9 and lacks Answer_template_8" in n for n in report.notes)
    row = splits["train"][0]
    assert row["answer_labels"] == ["Correct", "AGENTACT", "ALT-NP", "ALT-PP", "NOEMB", "LEXPREP", "SSM-1", "SSM-2",
                                    "AASSM"]
    assert row["template"] == "ALT-ATL" and row["answer_patterns"][8] == "NP-Theme Verb NP-Loc PP-Agent"
    shared = result.config_reports["sprayload_en_altatl_typeII"].test_sentences_in_train
    assert shared["count"] == 1 and shared["detail"] == {"a context sentence in train": 1}


def test_split_info_index_lists_split_the_rows_and_random_ignores_them(tmp_path):
    folder = tmp_path / "ALT-ATL" / "type_II"
    folder.mkdir(parents=True)
    shutil.copy(SPRAY_TSV, folder)
    (folder / "split_info.json").write_text(json.dumps({"train": ["sl000", "sl001", "sl002"], "test": ["sl005"]}))
    result = build([str(tmp_path)])
    splits = result.configs["sprayload_en_altatl_typeII"]
    assert {s: len(r) for s, r in splits.items()} == {"train": 3, "test": 1}
    assert result.files[0].dropped == {"not_in_release_split": 3}
    shuffled = build([str(tmp_path)], ImportOptions(split="random", test_size=0.3))
    assert {s: len(r) for s, r in shuffled.configs["sprayload_en_altatl_typeII"].items()} == {"train": 5, "test": 2}


def test_split_folders_without_a_release_file_are_imported_on_their_own(tmp_path):
    shutil.copytree(SPRAY / "datasets", tmp_path / "ALT-ATL" / "type_II" / "datasets")
    result = build([str(tmp_path)])
    splits = result.configs["sprayload_en_altatl_typeII"]
    assert {s: len(r) for s, r in splits.items()} == {"test": 2, "train": 4}
    truth = json.loads((SPRAY / "datasets" / "test" / "sentences" / "truth_bool.json").read_text())
    assert [r["label"] for r in splits["test"]] == [t.index(True) for t in truth]


# ------------------------------------------------------------------------------------------ inference
def test_language_and_lexical_type_come_from_the_sentences_when_the_path_says_nothing(tmp_path):
    path = tmp_path / "data.tsv"
    shutil.copy(AGR, path)
    report = build([str(path)]).files[0]
    assert report.config == "agr_fr_typeI"
    assert report.inferred["language"] == "fr (function words)"
    assert report.inferred["lexical_type"].startswith("I (content")
    flagged = build([str(path)], ImportOptions(lexical_type="II", template="main")).files[0]
    assert flagged.config == "agr_fr_typeII" and flagged.inferred["lexical_type"] == "II (--lexical-type)"


def test_cos_and_od_labels_need_the_path_or_the_flag(tmp_path):
    path = tmp_path / "items_typeII.json"
    shutil.copy(CALAMITA / "BLM-OdI_typeII_test.json", path)
    with pytest.raises(ReleaseError, match=r"cannot tell the phenomenon .*pass --phenomenon \(cos or od"):
        build([str(path)])
    assert list(build([str(path)], ImportOptions(phenomenon="od")).configs) == ["od_it_typeII"]


def test_files_in_a_folder_that_are_not_release_files_are_skipped_and_listed(tmp_path):
    shutil.copy(AGR, tmp_path / AGR.name)
    (tmp_path / "README.txt").write_text("the BLM release\n")
    result = build([str(tmp_path)])
    assert len(result.files) == 1 and result.skipped[0].startswith(str(tmp_path / "README.txt"))
    with pytest.raises(ReleaseError, match="README.txt: not a BLM release file"):
        build([str(tmp_path / "README.txt")])


# ------------------------------------------------------------------------------------------ the folder written
@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    out = tmp_path_factory.mktemp("imported") / "blm"
    result, written = import_release([str(AGR)], out, ImportOptions(test_size=0.25), say=None)
    return out, result, written


def test_the_folder_loads_with_datasets_and_the_one_loader(imported, tmp_path):
    out, result, _ = imported
    name = "agr_fr_typeI"
    loaded = datasets.load_dataset(str(out), name, cache_dir=str(tmp_path))
    same = load_source(out, name)
    for split, rows in result.configs[name].items():
        assert loaded[split].features == FEATURES
        assert loaded[split].to_list() == rows == same[split].to_list()


def test_the_card_reports_each_files_defects_and_passes_the_schema_check(imported):
    out, _, _ = imported
    data, body = split_card((out / "README.md").read_text(encoding="utf-8"))
    assert check_dataset_card_data(data) == []
    assert [c["config_name"] for c in data["configs"]] == ["agr_fr_typeI"]
    section = body.split("<!-- blm:begin import -->")[1]
    assert "| `BLMagr4dev_type_I.csv` | 4dev | `agr_fr_typeI` | 12 | 12 |" in section
    assert "duplicate_candidates 12 (AEN2 = AEN2 12)" in section and "gold_same_position 12" in section
    assert "`BLMagr4dev_type_I.csv`: 12 rows (agreement_error_N1: AEN1 -> AEN2" in section
    assert "| agr | WNA, mis_num | `WNA` | SEQUENCE |" in section
    assert "gold_is_next_step: the release's patterns" in section
    assert "blm import BLMagr4dev_type_I.csv --out DIR" in section and "How the data was generated" not in body
    assert str(AGR.parent) not in section  # no local folders in a card meant for the Hub


def test_validate_and_show_read_the_imported_folder(imported, capsys):
    out, _, _ = imported
    assert main(["validate", "--dataset", str(out), "agr_fr_typeI"]) == 1  # the release's defects fail checks
    text = capsys.readouterr().out
    assert "distinct_answers" in text and "FAIL" in text
    assert main(["show", "agr_fr_typeI", "--dataset", str(out)]) == 0
    assert "Correct (CORRECT)" in capsys.readouterr().out


def test_importing_again_needs_overwrite_when_files_or_options_differ(imported, capsys):
    out, _, written = imported
    again, _ = import_release([str(AGR)], out, ImportOptions(test_size=0.25), say=None)[1], None
    assert {p.read_bytes() for p in again.files} == {p.read_bytes() for p in written.files}  # same request: same bytes
    assert main(["import", str(AGR), "--out", str(out), "--test-size", "0.25", "--repair"]) == 2
    assert "pass --overwrite" in capsys.readouterr().err


def test_train_py_trains_on_an_imported_config(imported, tmp_path, tiny_encoder_dir):  # noqa: F811
    from blm_models.train_job import main as train

    out, result, _ = imported
    train(["--dataset_path", str(out), "--dataset_config", "agr_fr_typeI", "--encoder", str(tiny_encoder_dir),
           "--embedding_cache_dir", str(tmp_path / "cache"), "--output_dir", str(tmp_path / "run"), "--head", "ffnn",
           "--num_train_epochs", "1", "--per_device_train_batch_size", "4", "--disable_tqdm", "true"])
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["test"]["instances"] == len(result.configs["agr_fr_typeI"]["test"])


def test_validate_and_audit_read_an_imported_folder_and_skip_the_checks_that_cannot_judge_it(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["import", str(AGR), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["validate", "--dataset", str(out), "agr_fr_typeI"]) == 1   # the release's own defects fail
    printed = capsys.readouterr().out
    assert "agr_fr_typeI: gold_is_next_step: not applicable (the release's patterns" in printed
    assert "gold_is_next_step" not in printed.split("not applicable")[1].split("\n", 1)[1]
    assert main(["audit", "--dataset", str(out), "agr_fr_typeI"]) == 0
    assert "medoid" in capsys.readouterr().out
