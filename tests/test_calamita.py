"""The CALAMITA export: BLM-It's JSON layout (Figs. 7 and 10), option letters in answer order."""

import json

import pytest

from blm_datasets.calamita import option_letter, to_calamita, write_calamita
from builders import registry
from builders.generate import Options, generate

FIELDS = ["ID", "Context", "Context_concatenated", "Answer_set", "Answer_concatenated", "Correct_option",
          "Correct_answer", "Answer_set_annotation", "Verb"]

ROW = {
    "id": "od_it_typeII-test-000003", "phenomenon": "od", "language": "it", "lexical_type": "II",
    "template": "od", "lemma": "disegnare",
    "context": ["Le pittrici possono disegnare le forme a matita.", "Le artiste disegnano le forme dal vero."],
    "context_patterns": ["p1", "p2"], "context_chunks": [["a"], ["b"]],
    "answers": ["Le forme disegnano le pittrici.", "Le pittrici disegnano dal vero.", "Le forme disegnano dal vero."],
    "answer_labels": ["IR-TRANS", "Correct", "I-INT"],
    "answer_error_classes": ["SEQUENCE", "CORRECT", "GRAMMAR"],
    "answer_patterns": ["x", "y", "z"], "label": 1,
}


def test_a_row_becomes_the_figure_10_layout():
    item = to_calamita(ROW, 215)
    assert list(item) == FIELDS
    assert item == {
        "ID": 215,
        "Context": ROW["context"],
        "Context_concatenated": "1\tLe pittrici possono disegnare le forme a matita.\n"
                                "2\tLe artiste disegnano le forme dal vero.",
        "Answer_set": ROW["answers"],
        "Answer_concatenated": "A\tLe forme disegnano le pittrici.\nB\tLe pittrici disegnano dal vero.\n"
                               "C\tLe forme disegnano dal vero.",
        "Correct_option": "B",
        "Correct_answer": "Le pittrici disegnano dal vero.",
        "Answer_set_annotation": [
            {"label": "IR-TRANS", "value": False, "option": "A"},
            {"label": "Correct", "value": True, "option": "B"},
            {"label": "I-INT", "value": False, "option": "C"},
        ],
        "Verb": "disegnare",
    }


def test_generated_rows_round_trip_through_the_file(tmp_path):
    rows = generate(registry.get_spec("cos_it_typeII"), Options(size=40), progress=False)["test"].records
    path = tmp_path / "out" / "cos_it_typeII.json"
    assert write_calamita(rows, path) == len(rows) > 0
    text = path.read_text(encoding="utf-8")
    assert "\\u" not in text  # Italian accents are written as such
    items = json.loads(text)
    assert [item["ID"] for item in items] == list(range(len(rows)))
    for item, row in zip(items, rows):
        letters = [a["option"] for a in item["Answer_set_annotation"]]
        assert letters == list("ABCDEFGHIJ"[:len(row["answers"])])
        assert [line.split("\t")[0] for line in item["Answer_concatenated"].split("\n")] == letters
        assert item["Correct_option"] == letters[row["label"]]
        assert item["Correct_answer"] == row["answers"][row["label"]]
        assert [a["value"] for a in item["Answer_set_annotation"]].count(True) == 1
        assert [a["label"] for a in item["Answer_set_annotation"]] == row["answer_labels"]
        assert item["Verb"] == row["lemma"]
        assert len(item["Context_concatenated"].split("\n")) == 7


def test_verb_key_and_clear_errors():
    assert to_calamita(ROW, 0, verb_key="template")["Verb"] == "od"
    with pytest.raises(KeyError, match="no column 'verb'"):
        to_calamita(ROW, 0, verb_key="verb")
    assert option_letter(0) == "A" and option_letter(9) == "J"
    with pytest.raises(ValueError, match="no option letter"):
        option_letter(26)


def test_blm_export_calamita_format(tmp_path, capsys):
    import json

    from blm_cli.main import main

    out = tmp_path / "cos_en.json"
    assert main(["export", "cos_en_typeII", "--format", "calamita", "--size", "60", "--out", str(out),
                 "--quiet", "--num-proc", "1"]) == 0
    items = json.loads(out.read_text())
    assert len(items) == 6 and items[0]["Correct_option"] in "ABCDEFGH"
    assert "6 items written" in capsys.readouterr().out


def test_items_the_harness_cannot_score_are_refused(tmp_path):
    nine = dict(ROW, answers=[f"Frase {i}." for i in range(9)], answer_labels=["Correct"] + ["I-INT"] * 8,
                answer_error_classes=["CORRECT"] + ["GRAMMAR"] * 8, label=0)
    path = tmp_path / "nine.json"
    with pytest.raises(ValueError, match=r"'od_it_typeII-test-000003' has 9 candidates \(up to I\) but CALAMITA's "
                                         r"harness scores choices A-H only"):
        write_calamita([ROW, nine], path)
    assert not path.exists()
    assert write_calamita(iter([ROW]), path) == 1  # fewer than 8 is written (the CLI notes it)


def test_blm_export_calamita_notes_items_with_fewer_than_eight_candidates(tmp_path, capsys):
    from blm_cli.main import main

    assert main(["export", "agr_en_typeI", "--format", "calamita", "--size", "40", "--out", str(tmp_path / "a.json"),
                 "--quiet", "--num-proc", "1"]) == 0
    out = capsys.readouterr().out
    assert "have fewer than 8 candidates" in out and "a letter its prompt does not show" in out
