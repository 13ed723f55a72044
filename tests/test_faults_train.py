"""Faults a user makes on train.py's command line: each is one line on stderr naming the flag or path, exit
status 2, no traceback, and nothing written. BLM_DEBUG=1 shows the traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
from conftest_models import single_torch_thread, small_agreement_dir, tiny_encoder_dir  # noqa: F401 (fixtures)

from blm_models.train_job import main

REPO = Path(__file__).resolve().parents[1]


def train_args(data: Path, encoder: Path, tmp: Path, *extra: str) -> list[str]:
    """A quick run's flags into tmp/out, with its own cache; `extra` overrides or adds flags."""
    return ["--dataset_path", str(data), "--encoder", str(encoder), "--embedding_cache_dir", str(tmp / "cache"),
            "--output_dir", str(tmp / "out"), "--per_device_train_batch_size", "16", "--num_train_epochs", "2",
            "--disable_tqdm", "true", "--seed", "0", *extra]


def fails_with(capsys, argv: list[str]) -> str:
    """Run main(argv); assert exit status 2 and one error line without a traceback; return that line."""
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("train.py: error: ")]
    assert len(errors) == 1, err
    return errors[0].removeprefix("train.py: error: ")


@pytest.mark.parametrize("flags, message", [
    (["--num_train_epochs", "0"], "--num_train_epochs 0: must be > 0"),
    (["--num_train_epochs", "-1"], "--num_train_epochs -1: must be > 0"),
    (["--num_train_epochs", "nan"], "--num_train_epochs nan: must be > 0"),
    (["--learning_rate", "0"], "--learning_rate 0: must be > 0"),
    (["--learning_rate", "-0.001"], "--learning_rate -0.001: must be > 0"),
    (["--encoder_learning_rate", "0", "--train_encoder", "true"], "--encoder_learning_rate 0: must be > 0"),
    (["--per_device_train_batch_size", "0"], "--per_device_train_batch_size 0: must be >= 1"),
    (["--per_device_eval_batch_size", "0"], "--per_device_eval_batch_size 0: must be >= 1"),
    (["--embedding_batch_size", "0"], "--embedding_batch_size 0: must be >= 1"),
    (["--max_length", "0"], "--max_length 0: must be >= 1"),
    (["--validation_fraction", "1.5"], "--validation_fraction 1.5: must be between 0 and 1"),
    (["--validation_fraction", "0"], "--validation_fraction 0: must be between 0 and 1"),
    (["--max_train_instances", "-5"], "--max_train_instances -5: must be >= 0 (0 uses all of train)"),
    (["--max_train_instances", "1"], "--max_train_instances 1: must be 0 (all) or at least 2"),
    (["--margin", "-1"], "--margin -1: must be > 0"),
    (["--kl_weight", "-0.5"], "--kl_weight -0.5: must be >= 0"),
    (["--hidden_layer", "-3"], "--hidden_layer -3: must be -1 (the last layer)"),
    (["--reset_optimizer_state", "true"], "--reset_optimizer_state only applies with --resume_from_checkpoint"),
    (["--overwrite_output_dir", "true", "--resume_from_checkpoint"], "contradict each other"),
])
def test_an_impossible_flag_value_is_one_line_quoting_it_and_nothing_is_written(
    tmp_path, capsys, small_agreement_dir, tiny_encoder_dir, flags, message
):
    line = fails_with(capsys, train_args(small_agreement_dir, tiny_encoder_dir, tmp_path, *flags))
    assert message in line
    assert not (tmp_path / "out").exists() and not (tmp_path / "cache").exists()


def test_every_impossible_value_is_reported_at_once(tmp_path, capsys, small_agreement_dir, tiny_encoder_dir):
    line = fails_with(capsys, train_args(small_agreement_dir, tiny_encoder_dir, tmp_path, "--num_train_epochs", "-1",
                                         "--learning_rate", "0"))
    assert line == "--num_train_epochs -1: must be > 0; --learning_rate 0: must be > 0"


def test_max_steps_stands_in_for_epochs(tmp_path, small_agreement_dir, tiny_encoder_dir):
    report = main(train_args(small_agreement_dir, tiny_encoder_dir, tmp_path, "--num_train_epochs", "0",
                             "--max_steps", "3"))
    assert report["training"]["instances"] == 64 and (tmp_path / "out" / "metrics.json").is_file()


def test_an_unknown_flag_names_the_closest_known_one(tmp_path, capsys, small_agreement_dir, tiny_encoder_dir):
    line = fails_with(capsys, train_args(small_agreement_dir, tiny_encoder_dir, tmp_path, "--num_epochs", "3"))
    assert line.startswith("unknown flag --num_epochs (did you mean --num_train_epochs?)")


def test_a_bad_choice_is_one_line_not_the_usage_of_every_flag(tmp_path, capsys, small_agreement_dir,
                                                              tiny_encoder_dir):
    line = fails_with(capsys, train_args(small_agreement_dir, tiny_encoder_dir, tmp_path, "--head", "transformer"))
    assert line.startswith("argument --head: invalid choice: 'transformer'") and "two_level_vae" in line
    assert "usage:" not in capsys.readouterr().err


def test_a_contradiction_inside_training_arguments_is_one_line(tmp_path, capsys, small_agreement_dir,
                                                               tiny_encoder_dir):
    line = fails_with(capsys, train_args(small_agreement_dir, tiny_encoder_dir, tmp_path, "--save_strategy", "steps",
                                         "--save_steps", "5", "--eval_strategy", "steps", "--eval_steps", "3"))
    assert line.startswith("--load_best_model_at_end requires the saving steps to be a round multiple")


def test_an_unknown_encoder_says_it_is_no_folder_nor_alias_and_the_hub_is_offline(
    tmp_path, capsys, small_agreement_dir, tiny_encoder_dir
):
    argv = train_args(small_agreement_dir, tiny_encoder_dir, tmp_path, "--encoder", "no-org/no-model")
    line = fails_with(capsys, argv)
    assert line.startswith("--encoder: cannot load encoder 'no-org/no-model': it is not a local model folder nor a "
                           "known alias ('all-MiniLM-L6-v2'), and the Hugging Face Hub is offline")
    assert not (tmp_path / "out").exists()


def test_an_encoder_folder_without_a_model_says_what_it_lacks(tmp_path, capsys, small_agreement_dir, tiny_encoder_dir):
    (tmp_path / "empty_encoder").mkdir()
    line = fails_with(capsys, train_args(small_agreement_dir, tiny_encoder_dir, tmp_path,
                                         "--encoder", str(tmp_path / "empty_encoder")))
    assert line.startswith(f"--encoder {tmp_path / 'empty_encoder'}: this folder holds no loadable encoder")


def test_an_out_of_range_hidden_layer_is_caught_before_anything_is_embedded(
    tmp_path, capsys, small_agreement_dir, tiny_encoder_dir
):
    line = fails_with(capsys, train_args(small_agreement_dir, tiny_encoder_dir, tmp_path, "--hidden_layer", "99"))
    assert line == "--hidden_layer 99: this encoder has layers 0 (the input embeddings) to 2; -1 is the last"
    assert not (tmp_path / "cache").exists()


def test_an_unknown_dataset_config_reports_the_loaders_suggestions(tmp_path, capsys, tiny_encoder_dir):
    argv = train_args(tmp_path / "unused", tiny_encoder_dir, tmp_path)
    argv[0:2] = ["--dataset_config", "agr_en_typI"]
    line = fails_with(capsys, argv)
    assert line.startswith("--dataset_config agr_en_typI: ") and "agr_en_typeI" in line


def test_a_generated_config_takes_its_size_and_seed_from_dataset_size_and_dataset_seed(
    tmp_path, capsys, tiny_encoder_dir
):
    argv = train_args(tmp_path / "unused", tiny_encoder_dir, tmp_path, "--num_train_epochs", "1")
    argv[0:2] = ["--dataset_config", "agr_en_typeI", "--dataset_size", "48", "--dataset_seed", "3"]
    report = main(argv)
    assert sum(report[part]["instances"] for part in ("training", "validation", "test")) == 48
    assert report["config"]["data"]["dataset_size"] == 48 and report["config"]["data"]["dataset_seed"] == 3
    assert "generating agr_en_typeI (48 instances, seed 3; cached for later runs)" in capsys.readouterr().err
    argv[argv.index("--output_dir") + 1] = str(tmp_path / "again")
    main(argv)
    assert "generating" not in capsys.readouterr().err  # read from the cache, nothing to announce


def test_dataset_size_with_data_read_from_a_folder_is_refused(tmp_path, capsys, small_agreement_dir,
                                                             tiny_encoder_dir):
    line = fails_with(capsys, train_args(small_agreement_dir, tiny_encoder_dir, tmp_path, "--dataset_size", "40"))
    assert line.startswith("--dataset_size and --dataset_seed size and seed generated configs")


def test_a_missing_dataset_folder_is_named(tmp_path, capsys, tiny_encoder_dir):
    line = fails_with(capsys, train_args(tmp_path / "nowhere", tiny_encoder_dir, tmp_path))
    assert line.startswith(f"--dataset_path {tmp_path / 'nowhere'}: ")


def test_no_dataset_flag_says_which_to_give(tmp_path, capsys, tiny_encoder_dir):
    argv = train_args(tmp_path, tiny_encoder_dir, tmp_path)[2:]
    line = fails_with(capsys, argv)
    assert "--dataset_config" in line and "--dataset_path" in line


@pytest.mark.parametrize("keep, problem", [
    (lambda d: datasets.DatasetDict({"train": d["train"]}), "no 'test' split"),
    (lambda d: datasets.DatasetDict({"train": d["train"].select([]), "test": d["test"]}), "'train'"),
    (lambda d: datasets.DatasetDict({"train": d["train"], "test": d["test"].select([])}), "'test'"),
])
def test_a_missing_or_empty_split_is_named(tmp_path, capsys, small_agreement_dir, tiny_encoder_dir, keep, problem):
    data = tmp_path / "data"
    keep(datasets.load_from_disk(str(small_agreement_dir))).save_to_disk(str(data))
    line = fails_with(capsys, train_args(data, tiny_encoder_dir, tmp_path))
    assert str(data) in line and problem in line


def test_an_output_dir_that_is_a_file_is_refused_and_the_file_kept(tmp_path, capsys, small_agreement_dir,
                                                                     tiny_encoder_dir):
    (tmp_path / "out").write_text("precious")
    line = fails_with(capsys, train_args(small_agreement_dir, tiny_encoder_dir, tmp_path))
    assert line == (f"--output_dir {tmp_path / 'out'} is a file, not a folder; give the path of a folder (it is "
                    "created when missing)")
    assert (tmp_path / "out").read_text() == "precious"


def test_an_output_dir_below_a_file_cannot_be_created(tmp_path, capsys, small_agreement_dir, tiny_encoder_dir):
    (tmp_path / "afile").write_text("x")
    argv = train_args(small_agreement_dir, tiny_encoder_dir, tmp_path, "--output_dir", str(tmp_path / "afile" / "run"))
    line = fails_with(capsys, argv)
    assert line.startswith(f"--output_dir {tmp_path / 'afile' / 'run'}: {tmp_path / 'afile'} is a file")


def test_an_unwritable_output_dir_is_refused(tmp_path, capsys, small_agreement_dir, tiny_encoder_dir, monkeypatch):
    import tempfile

    def read_only(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "TemporaryFile", read_only)  # root may write anywhere: simulate the refusal
    line = fails_with(capsys, train_args(small_agreement_dir, tiny_encoder_dir, tmp_path))
    assert line.startswith(f"--output_dir {tmp_path / 'out'}: cannot write in {tmp_path} (Permission denied)")


def test_train_py_exits_with_status_2_and_one_line(tmp_path, small_agreement_dir, tiny_encoder_dir):
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    environment.pop("BLM_DEBUG", None)
    argv = train_args(small_agreement_dir, tiny_encoder_dir, tmp_path, "--num_train_epochs", "-1")
    result = subprocess.run([sys.executable, str(REPO / "train.py"), *argv], env=environment, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.strip() == "train.py: error: --num_train_epochs -1: must be > 0"


def test_blm_debug_shows_the_traceback_instead(tmp_path, monkeypatch, small_agreement_dir, tiny_encoder_dir):
    from blm_models.errors import UsageError

    monkeypatch.setenv("BLM_DEBUG", "1")
    with pytest.raises(UsageError, match=r"^--num_train_epochs -1: must be > 0$"):
        main(train_args(small_agreement_dir, tiny_encoder_dir, tmp_path, "--num_train_epochs", "-1"))


def test_every_model_field_is_a_flag_or_follows_from_the_data():
    """BlmConfig is the one list of model fields: the head flags are its head fields with its defaults, and the
    run identity compares them all."""
    import dataclasses

    from blm_models.arguments import EncoderArguments, HeadArguments
    from blm_models.configuration import BlmConfig
    from blm_models.run_identity import model_fields

    heads = {f.name: f for f in dataclasses.fields(HeadArguments)}
    encoder = {f.name for f in dataclasses.fields(EncoderArguments)}
    from_data = {"context_length", "answer_label_names", "error_class_names", "truncated_to"}
    assert set(model_fields()) == set(heads) | (encoder & set(model_fields())) | from_data
    for name, flag in heads.items():
        default = flag.default if flag.default is not dataclasses.MISSING else flag.default_factory()
        assert default == (list(getattr(BlmConfig, name)) if isinstance(getattr(BlmConfig, name), tuple)
                           else getattr(BlmConfig, name)), name
