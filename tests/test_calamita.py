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
    rows = generate(registry.get_spec("seqtense_it_typeI_balanced"), Options(size=40), progress=False)["test"].records
    path = tmp_path / "out" / "seqtense.json"
    assert write_calamita(rows, path) == len(rows) > 0
    text = path.read_text(encoding="utf-8")
    assert "\\u" not in text  # Italian accents are written as such
    items = json.loads(text)
    assert [item["ID"] for item in items] == list(range(len(rows)))
    for item, row in zip(items, rows):
        letters = [a["option"] for a in item["Answer_set_annotation"]]
        assert letters == list("ABCDEFGH")  # exactly the harness's doc_to_choice
        assert [line.split("\t")[0] for line in item["Answer_concatenated"].split("\n")] == letters
        assert item["Correct_option"] == letters[row["label"]]
        assert item["Correct_answer"] == row["answers"][row["label"]]
        assert [a["value"] for a in item["Answer_set_annotation"]].count(True) == 1
        assert [a["label"] for a in item["Answer_set_annotation"]] == row["answer_labels"]
        assert item["Verb"] == row["lemma"]
        assert len(item["Context_concatenated"].split("\n")) == len(row["context"])


def test_verb_key_and_clear_errors():
    assert to_calamita(ROW, 0, verb_key="template")["Verb"] == "od"
    with pytest.raises(KeyError, match="no column 'verb'"):
        to_calamita(ROW, 0, verb_key="verb")
    assert option_letter(0) == "A" and option_letter(9) == "J"
    with pytest.raises(ValueError, match="no option letter"):
        option_letter(26)


def test_blm_export_calamita_format(tmp_path, capsys):
    from blm_cli.main import main

    out = tmp_path / "seqtense.json"
    assert main(["export", "seqtense_it_typeI_balanced", "--format", "calamita", "--size", "40", "--out", str(out),
                 "--quiet", "--num-proc", "1"]) == 0
    items = json.loads(out.read_text())
    assert len(items) == 4 and all(item["Correct_option"] in "ABCDEFGH" for item in items)
    assert "4 items written" in capsys.readouterr().out


def eight(row: dict, k: int) -> dict:
    """ROW with k candidates, the gold first."""
    return dict(ROW, answers=[f"Frase {i}." for i in range(k)], answer_labels=["Correct"] + ["I-INT"] * (k - 1),
                answer_error_classes=["CORRECT"] + ["GRAMMAR"] * (k - 1), answer_patterns=[""] * k, label=0)


@pytest.mark.parametrize("k, shown", [(9, r"1 with 9 \(A-I\)"), (6, r"1 with 6 \(A-F\)")])
def test_items_the_harness_cannot_score_are_refused(tmp_path, k, shown):
    path = tmp_path / "out.json"
    with pytest.raises(ValueError, match=rf"^od_it_typeII cannot be exported for CALAMITA: of 2 items, {shown} "
                                         r"candidates, but CALAMITA's harness scores the fixed choices A-H"):
        write_calamita([eight(ROW, 8), eight(ROW, k)], path)
    assert not path.exists()
    assert write_calamita(iter([eight(ROW, 8)]), path) == 1


def test_blm_export_calamita_refuses_a_six_candidate_config_in_one_line(tmp_path, capsys):
    from blm_cli.main import main

    out = tmp_path / "a.json"
    assert main(["export", "agr_it_typeII", "--format", "calamita", "--size", "40", "--out", str(out),
                 "--quiet", "--num-proc", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "agr_it_typeII cannot be exported for CALAMITA: of 8 items, 8 with 6 (A-F) candidates" in err
    assert not out.exists()
