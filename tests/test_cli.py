"""The blm command: exit codes and messages a user sees."""

import re

from blm_cli.main import main


def test_list_prints_one_name_per_line(capsys):
    assert main(["list", "--phenomenon", "agr"]) == 0
    lines = capsys.readouterr().out.split()
    assert len(lines) == 30 and "agr_es_typeIII_balanced" in lines  # en es fr it ro × 3 types × paper/balanced


def test_validate_passes_and_reports_counts(capsys):
    assert main(["validate", "agr_fr_typeII", "--size", "120"]) == 0
    out = capsys.readouterr().out
    assert "all checks passed" in out and "gold-position p=" in out


def test_show_marks_the_gold_answer(capsys):
    assert main(["show", "agr_en_typeI", "--size", "100", "--index", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count(" *") == 1 and "Correct (CORRECT)" in out


def test_generate_reports_sizes_and_where_it_wrote_without_progress_bars(capsys, tmp_path):
    assert main(["generate", "agr_ro_typeIII", "--size", "100", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    sizes = re.search(r"agr_ro_typeIII: train (\d+), test (\d+) -> (\S+) ", captured.out)
    assert sizes and int(sizes[1]) + int(sizes[2]) == 100 and int(sizes[2]) > 0
    assert sizes[3] == str(tmp_path / "agr_ro_typeIII")
    assert (tmp_path / "agr_ro_typeIII" / "train.parquet").exists()
    assert "parquet" not in captured.err and "Saving the dataset" not in captured.err  # no bar per file


def test_every_blm_flag_also_takes_train_py_spelling(capsys, tmp_path):
    assert main(["generate", "agr_en_typeI", "--size", "40", "--num_proc", "1", "--out", str(tmp_path),
                 "--format", "json"]) == 0
    assert (tmp_path / "agr_en_typeI" / "train.json").exists()
    assert main(["show", "agr_en_typeI", "--size", "40", "--index", "0", "--seed", "3"]) == 0


def test_bad_input_exits_2_without_traceback(capsys):
    assert main(["show", "agr_xx_typeI"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("blm show: error: unknown BLM config 'agr_xx_typeI'") and "Traceback" not in err
    assert main(["generate", "agr_en_typeI", "--size", "999999"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("blm generate: error: agr_en_typeI:") and "--size" in err and "Traceback" not in err
    assert main(["validate"]) == 2
