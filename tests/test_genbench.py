"""The GenBench export: input/target/target_options data files and a task config scored by macro-F1."""

import json

from blm_cli.main import main
from blm_datasets.genbench import SEPARATOR, load_config, score
from blm_datasets.sources import load_source


def test_blm_export_genbench_writes_the_data_files_and_a_macro_f1_task(tmp_path, capsys):
    out = tmp_path / "genbench"
    assert main(["export", "agr_it_typeII", "--format", "genbench", "--size", "40", "--out", str(out),
                 "--quiet", "--num-proc", "1"]) == 0
    assert "agr_it_typeII: GenBench task written to" in capsys.readouterr().out
    task = out / "agr_it_typeII"
    assert sorted(p.name for p in task.iterdir()) == ["config.jsonnet", "test.jsonl", "train.jsonl"]
    rows = load_source(None, "agr_it_typeII", size=40)
    for split in ("train", "test"):
        examples = [json.loads(line) for line in (task / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()]
        assert len(examples) == len(rows[split]) > 0
        for example, row in zip(examples, rows[split]):
            assert list(example) == ["input", "target", "target_options"]
            assert example["input"].split(SEPARATOR) == row["context"]
            assert example["target_options"] == row["answers"] and example["target"] == row["label"]
    config = load_config(task / "config.jsonnet")
    assert config["task_type"] == "multiple_choice"
    assert config["data_source"] == {"type": "manual", "train": "train.jsonl", "test": "test.jsonl"}
    assert config["field_mapping"] == {"input": "input", "target": "target", "target_options": "target_options"}
    f1 = next(m for m in config["evaluation_metrics"] if m["hf_id"] == "f1")
    assert f1["compute_extra_kwargs"] == {"average": "macro"}

    gold = [json.loads(line) for line in (task / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    assert score(config, gold, [g["target"] for g in gold]) == {"hf_accuracy__accuracy": 1.0, "hf_f1__f1": 1.0}
    # one wrong pick: macro-F1 over the option indices, as blm llm-eval computes it over letters
    from blm_eval.llm_eval import macro_f1

    wrong = [g["target"] for g in gold]
    wrong[0] = (wrong[0] + 1) % len(gold[0]["target_options"])
    letters = "ABCDEFGHIJ"
    assert score(config, gold, wrong)["hf_f1__f1"] == macro_f1([letters[g["target"]] for g in gold],
                                                               [letters[p] for p in wrong]) < 1.0


def test_an_existing_task_folder_is_kept_without_overwrite(tmp_path, capsys):
    task = tmp_path / "agr_it_typeII"
    task.mkdir()
    (task / "mine.txt").write_text("precious")
    assert main(["export", "agr_it_typeII", "--format", "genbench", "--size", "40", "--out", str(tmp_path),
                 "--quiet", "--num-proc", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{task} exists; pass --overwrite" in err
    assert (task / "mine.txt").read_text() == "precious"
    assert main(["export", "agr_it_typeII", "--format", "genbench", "--size", "40", "--out", str(tmp_path),
                 "--quiet", "--num-proc", "1", "--overwrite"]) == 0
    assert sorted(p.name for p in task.iterdir()) == ["config.jsonnet", "test.jsonl", "train.jsonl"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]   # no staging folder left
