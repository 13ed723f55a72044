"""`blm import` on a whole release: labels read from content, spray/load names and corrupt headers,
duplicate files, a folder with bad files among good ones, and the gold-position test on few rows.

Every file is one of tests/fixtures/release or a variant of it written into tmp_path in the shape
of a released file (names that mean something else, a corrupt header, a copy under another folder).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import datasets
import pytest
from test_import import AGR, AGR_LABELS, AGRF, SPRAY_TSV, content, read_table, records, write_table

from blm_cli.main import main
from blm_datasets.importer import ImportOptions, ReleaseError, agreement, build
from blm_datasets.sources import load_source
from blm_datasets.validate import gold_position_pvalue, validate_rows
from builders import registry

SPRAY_NAMES = ["Correct", "CRagentact", "CRalternation1", "CRalternation2", "CRNoEmb", "CRLexPrep", "CrSSM1",
               "CrSSM2", "CrAASSM1"]


def agrf_variant(path: Path, edit) -> Path:
    header, rows = read_table(AGRF, ",")
    for row in rows:
        edit(row)
    return write_table(path, header, rows, delimiter=",")


def labels_of(result) -> list[list[str]]:
    return [r["answer_labels"] for r in sorted(records(result), key=lambda r: tuple(r["context"]))]


# ------------------------------------------------------------------------------------------ labels from content
def test_agrf_names_that_disagree_with_the_sentences_are_overruled_and_reported(tmp_path):
    def swap(row):  # the labels of the coordination and the wrong-number-of-attractors candidates swapped
        row[20], row[21] = row[21], row[20]

    path = agrf_variant(tmp_path / "agrf" / AGRF.name, swap)
    result, truth = build([str(path)]), build([str(AGRF)])
    assert labels_of(result) == labels_of(truth)  # the content decides, whatever the names say
    assert all(r["answer_labels"][:2] == ["WNA", "Coord"] for r in records(result))
    relabelled = result.files[0].content_labels["relabelled"]
    assert relabelled["count"] == 6 and relabelled["detail"] == {
        "coordination: Coord -> WNA (1 attractor, the gold 2)": 6,
        "mis_num: WNA -> Coord (an attractor coordinated)": 6}
    assert truth.files[0].content_labels["relabelled"]["count"] == 0   # the fixture's names fit the AgrF reading


def test_agrf_n1_alter_is_an_agreement_error_and_n2_alter_the_first_attractor():
    result = build([str(AGRF)])
    for row in records(result):
        gold = row["answers"][row["label"]]
        n1_alter, n2_alter = row["answers"][2], row["answers"][4]
        assert gold.split()[0] != n1_alter.split()[0] and gold.split()[-4:] == n1_alter.split()[-4:]
        assert row["answer_labels"][2] in agreement.AGREEMENT_ERRORS and row["answer_error_classes"][2] == "GRAMMAR"
        assert n2_alter in row["context"] and row["answer_labels"][4] == "WN1"
    refined = result.files[0].content_labels["refined"]
    assert sum(refined.values()) == 12 and set(refined) <= {"AE -> AEV", "AE -> AEN1", "AE -> AEN2"}


def test_4dev_labels_read_from_the_text_match_those_read_from_the_patterns(tmp_path):
    def no_patterns(header, rows):
        for row in rows:
            for i, name in enumerate(header):
                if name.startswith(("Answer_template_", "Sent_template_")):
                    row[i] = ""

    header, rows = read_table(AGR)
    no_patterns(header, rows)
    result = build([str(write_table(tmp_path / "agr" / AGR.name, header, rows))])
    assert result.files[0].content_labels["read"] == {"text": 12}
    assert all(r["answer_labels"] == AGR_LABELS for r in records(result))


def test_4dev_names_swapped_keep_the_labels_the_sentences_give(tmp_path):
    header, rows = read_table(AGR)
    first, second = header.index("Answer_label_5"), header.index("Answer_label_6")   # N1_alter, N2_alter
    for row in rows:
        row[first], row[second] = row[second], row[first]
    result = build([str(write_table(tmp_path / "agr" / AGR.name, header, rows))])
    assert all(r["answer_labels"] == AGR_LABELS for r in records(result))
    assert result.files[0].content_labels["relabelled"]["count"] == 12


def test_clause_type_comes_from_the_file_name_or_the_sentences(tmp_path):
    named = tmp_path / "BLM-AgrF_typeI_relative.csv"
    shutil.copy(AGRF, named)
    assert {r["template"] for r in records(build([str(named)]))} == {"relative"}

    def completive(row):
        row[1:14] = [f"Jean suppose que {s[0].lower()}{s[1:]}" for s in row[1:14]]

    result = build([str(agrf_variant(tmp_path / "c" / AGRF.name, completive))])
    assert {r["template"] for r in records(result)} == {"completive"}
    assert labels_of(result) == labels_of(build([str(AGRF)]))   # the prefix is not read as the subject


def test_the_text_reader_finds_each_candidate_kind():
    gold = "L’ ordinateur avec les programmes de l’ expérience est en panne ."
    cases = {"L’ ordinateur avec les programmes et l’ expérience est en panne .": "Coord",
             "L’ ordinateur avec le programme est en panne .": "WNA",
             "Les ordinateurs avec les programmes de l’ expérience est en panne .": "AEN2",
             "L’ ordinateur avec les programmes de l’ expérience sont en panne .": "AEN1",
             "L’ ordinateur avec le programme des expériences sont en panne .": "AEN2",
             "L’ ordinateur avec le programme de l’ expérience est en panne .": "WN1",
             "L’ ordinateur avec les programmes des expériences est en panne .": "WN2"}
    found, read = agreement.content_labels(0, [gold, *cases], None, "fr")
    assert read == "text" and [label for label, _ in found] == ["Correct", *cases.values()]


# ------------------------------------------------------------------------------------------ spray/load
def test_the_released_spray_load_label_names_map_to_the_toolkits(tmp_path):
    header, rows = read_table(SPRAY_TSV)
    for row in rows:
        for i in range(9):
            row[header.index(f"Answer_label_{i + 1}")] = SPRAY_NAMES[i]
    result = build([str(write_table(tmp_path / "ALT-ATL" / "type_I" / "type_i.csv", header, rows))])
    expected = ["Correct", "AGENTACT", "ALT-NP", "ALT-PP", "NOEMB", "LEXPREP", "SSM-1", "SSM-2", "AASSM"]
    assert list(result.configs) == ["sprayload_en_altatl_typeI"]
    assert all(r["answer_labels"] == expected for r in records(result))


def _corrupt_header(header: list[str], extra: int = 0) -> list[str]:
    """The BLMsl4dev type II/III header: 10 Answer_i for 9 labels, 4 Sent_template_i for 7 sentences."""
    names = (["ID"] + [f"Sent_{i}" for i in range(1, 8)] + [f"Answer_{i}" for i in range(1, 11)]
             + [f"Answer_label_{i}" for i in range(1, 10)] + [f"Answer_value_{i}" for i in range(1, 10)]
             + [f"Sent_template_{i}" for i in range(1, 5)])
    return names + [f"Answer_template_{i}" for i in range(1, len(header) + extra - len(names) + 1)]


def test_a_corrupt_spray_load_header_is_repaired_from_the_rows(tmp_path):
    header, rows = read_table(SPRAY_TSV)
    path = write_table(tmp_path / "ALT-ATL" / "type_II" / "type_ii.csv", _corrupt_header(header), rows)
    result = build([str(path)], ImportOptions(split="random"))
    original = build([str(SPRAY_TSV)], ImportOptions(split="random"))
    assert content(result) == content(original)
    note = result.files[0].notes[0]
    assert note.startswith("header repaired from the rows: 7 context sentences, 9 answers, labels and values, 16 "
                           "pattern columns")


def test_a_corrupt_header_the_rows_do_not_settle_is_reported(tmp_path):
    header, rows = read_table(SPRAY_TSV)
    at = header.index("Answer_9") + 1
    for row in rows:   # a tenth answer sentence with no label
        row.insert(at, "The man sprayed the wall .")
    path = write_table(tmp_path / "ALT-ATL" / "type_II" / "type_ii.csv", _corrupt_header(header, 1), rows)
    with pytest.raises(ReleaseError, match=r"type_ii.csv:1: the header lacks .*; the rows do not "
                                           r"settle it either \(the rows hold 17 sentence columns: 7 context "
                                           r"sentences \(as the header says\) would leave 10 answers for 9 labels\)"):
        build([str(path)])


def test_an_answer_column_with_one_sentence_in_every_row_is_a_defect(tmp_path):
    header, rows = read_table(SPRAY_TSV)
    for row in rows:
        row[header.index("Answer_6")] = "The man sprayed varnish under the wall ."
    result = build([str(write_table(tmp_path / "ALT-ATL" / "type_II" / SPRAY_TSV.name, header, rows))],
                   ImportOptions(split="random"))
    found = result.files[0].defects["constant_answer_column"]
    assert found["count"] == 7 and found["detail"] == {"Answer_6 (LEXPREP)": 7}
    assert "constant_answer_column" not in build([str(SPRAY_TSV)], ImportOptions(split="random")).files[0].defects


# ------------------------------------------------------------------------------------------ duplicates
def test_identical_files_are_imported_once_and_reported(tmp_path):
    for folder in ("BLMagr4dev", "BLMagrXlang4dev/type_I_FR"):
        (tmp_path / folder).mkdir(parents=True)
        shutil.copy(AGR, tmp_path / folder / AGR.name)
    header, rows = read_table(AGR)
    write_table(tmp_path / "copy" / "agr_typeI.tsv", header, rows, newline="\r\n")   # other bytes, same rows
    result = build([str(tmp_path)])
    assert len(result.files) == 1 and len(records(result)) == 12
    assert [(Path(d["path"]).parent.name, d["how"]) for d in result.duplicates] == [
        ("type_I_FR", "byte-identical to"), ("copy", "the same rows as")]
    assert all(Path(d["of"]) == tmp_path / "BLMagr4dev" / AGR.name for d in result.duplicates)


# ------------------------------------------------------------------------------------------ a folder, bad files
@pytest.fixture()
def release_folder(tmp_path):
    """Two good files and two bad ones: a row with two golds, a spray/load header nothing settles."""
    root = tmp_path / "release"
    (root / "BLMagr4dev").mkdir(parents=True)
    shutil.copy(AGR, root / "BLMagr4dev" / AGR.name)
    header, rows = read_table(SPRAY_TSV)
    write_table(root / "BLMsl4dev" / "ALT-ATL" / "type_I" / "type_i.csv", header, rows)
    rows[2][header.index("Answer_value_2")] = "1"
    write_table(root / "BLMsl4dev" / "ATL-ALT" / "type_I" / "type_i.csv", header, rows)   # two golds
    for row in rows:
        row.insert(header.index("Answer_9") + 1, "The man sprayed the wall .")
    write_table(root / "BLMsl4dev" / "ALT-ATL" / "type_II" / "type_ii.csv", _corrupt_header(header, 1), rows)
    return root


def test_a_folder_imports_every_good_file_and_reports_each_bad_one(release_folder, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["import", str(release_folder), "--out", str(out)]) == 1
    printed = capsys.readouterr().out
    failed = [line for line in printed.splitlines() if line.startswith("not imported ")]
    assert len(failed) == 2
    assert any(f.startswith(f"not imported {release_folder}/BLMsl4dev/ATL-ALT/type_I/type_i.csv: ")
               and "2 gold answers" in f and "--repair" in f for f in failed)
    assert any("would leave 10 answers for 9 labels" in f for f in failed)
    assert "2 files not imported" in printed and "the other 2 imported" in printed
    for name, rows in (("agr_fr_typeI", 12), ("sprayload_en_altatl_typeI", 7)):
        loaded = load_source(out, name)
        assert sum(len(split) for split in loaded.values()) == rows
    assert isinstance(datasets.load_dataset(str(out), "agr_fr_typeI", cache_dir=str(tmp_path / "c")),
                      datasets.DatasetDict)
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "Not imported (the other files were)" in card and "would leave 10 answers for 9 labels" in card


def test_repair_brings_in_the_file_with_two_golds(release_folder, tmp_path):
    result = build([str(release_folder)], ImportOptions(repair=True))
    assert [Path(f["path"]).parent.name for f in result.failed] == ["type_II"]
    assert "sprayload_en_atlalt_typeI" in result.configs


def test_a_folder_where_no_file_imports_is_a_user_error(tmp_path, capsys):
    header, rows = read_table(AGR)
    rows[0][header.index("Answer_value_2")] = "True"
    write_table(tmp_path / "agr" / AGR.name, header, rows)
    assert main(["import", str(tmp_path / "agr"), "--dry-run"]) == 2
    assert "2 gold answers" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ validate, few rows
def test_the_gold_position_test_says_n_a_on_too_few_rows(tmp_path, capsys):
    assert gold_position_pvalue([0] * 10, [8] * 10) is None
    assert gold_position_pvalue([0] * 40, [8] * 40) < 1e-6
    rows = records(build([str(AGR)]))
    report = validate_rows([{**r, "id": str(i)} for i, r in enumerate(rows)], registry.get_spec("agr_fr_typeI"))
    assert report["gold_position_pvalue"] is None and report["failures"]["gold_position_uniform"] == 0
    out = tmp_path / "out"
    assert main(["import", str(AGR), "--out", str(out)]) == 0
    capsys.readouterr()
    main(["validate", "--dataset", str(out), "agr_fr_typeI"])
    printed = capsys.readouterr().out
    assert "gold-position p=n/a (too few rows to test)" in printed and "p=1.000" not in printed


def test_a_config_mixing_answer_set_sizes_is_warned_about():
    warnings = build([str(AGR), str(AGRF)]).config_reports["agr_fr_typeI"].warnings
    assert any(w.startswith("rows with 6 and 8 candidates in one config (from BLM-AgrF_typeI.csv (6), "
                            "BLMagr4dev_type_I.csv (8))") for w in warnings)
    assert not any("candidates in one config" in w for w in build([str(AGR)]).config_reports["agr_fr_typeI"].warnings)


def test_files_whose_config_cannot_be_split_are_reported_and_the_other_configs_imported(tmp_path):
    header, rows = read_table(AGR)
    write_table(tmp_path / "agr" / AGR.name, header, rows)
    write_table(tmp_path / "agr" / "BLMagr4dev_type_I_test.csv", header, rows[:4])   # a split, the other has none
    header, rows = read_table(SPRAY_TSV)
    write_table(tmp_path / "ALT-ATL" / "type_I" / "type_i.csv", header, rows)
    result = build([str(tmp_path)])
    assert list(result.configs) == ["sprayload_en_altatl_typeI"] and len(result.files) == 1
    assert sorted(Path(f["path"]).name for f in result.failed) == [AGR.name, "BLMagr4dev_type_I_test.csv"]
    assert all("carry no split but other files of this config do" in f["reason"] and "--split random" in f["reason"]
               for f in result.failed)
    assert "agr_fr_typeI" in build([str(tmp_path)], ImportOptions(split="random")).configs
