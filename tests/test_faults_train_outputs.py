"""Nothing replaced without being asked: train.py refuses an --output_dir holding a run unless
--overwrite_output_dir or --resume_from_checkpoint says what to do, and with --overwrite_output_dir the old run
is kept (in .previous_run) until the new one is complete."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from conftest_models import (  # noqa: F401 (fixtures)
    embedding_cache_dir,
    single_torch_thread,
    small_agreement_dir,
    tiny_encoder_dir,
)

from blm_models.run_folder import PREVIOUS_RUN
from blm_models.train_job import main


def run_args(data: Path, encoder: Path, cache: Path, output: Path, *extra: str) -> list[str]:
    return ["--dataset_path", str(data), "--encoder", str(encoder), "--embedding_cache_dir", str(cache),
            "--output_dir", str(output), "--per_device_train_batch_size", "16", "--num_train_epochs", "2",
            "--save_strategy", "epoch", "--disable_tqdm", "true", "--seed", "0", *extra]


@pytest.fixture(scope="module")
def finished(tmp_path_factory, small_agreement_dir, tiny_encoder_dir, embedding_cache_dir) -> Path:
    """A finished run (seed 0) to copy into each test's output folder."""
    output = tmp_path_factory.mktemp("finished") / "out"
    main(run_args(small_agreement_dir, tiny_encoder_dir, embedding_cache_dir, output))
    return output


@pytest.fixture
def rerun(tmp_path, finished, small_agreement_dir, tiny_encoder_dir, embedding_cache_dir):
    """(output folder holding a copy of the finished run plus a user's notes.txt, a function running train.py
    into it with extra flags)."""
    output = tmp_path / "out"
    shutil.copytree(finished, output)
    (output / "notes.txt").write_text("mine")

    def run(*extra: str) -> dict:
        return main(run_args(small_agreement_dir, tiny_encoder_dir, embedding_cache_dir, output, *extra))

    return output, run


def digest(folder: Path) -> str:
    value = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        value.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return value.hexdigest()


def refused(capsys, run, *extra: str) -> str:
    with pytest.raises(SystemExit) as stopped:
        run(*extra)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [line] = [line for line in err.splitlines() if line.startswith("train.py: error: ")]
    return line.removeprefix("train.py: error: ")


def test_rerunning_into_a_finished_run_is_refused_and_changes_nothing(rerun, capsys):
    output, run = rerun
    before = digest(output)
    line = refused(capsys, run, "--seed", "1")
    assert line.startswith(f"--output_dir {output} holds a finished run (") and "metrics.json" in line
    assert "pass --overwrite_output_dir to replace it" in line and "--resume_from_checkpoint to continue it" in line
    assert digest(output) == before


def test_rerunning_into_an_interrupted_run_is_refused_and_its_checkpoints_kept(rerun, capsys):
    output, run = rerun
    for path in output.iterdir():
        if not path.name.startswith("checkpoint-") and path.name != "notes.txt":
            path.unlink()
    before = digest(output)
    line = refused(capsys, run)
    assert line.startswith(f"--output_dir {output} holds an unfinished run (checkpoint-")
    assert "pass --resume_from_checkpoint to continue it" in line
    assert digest(output) == before


def test_a_folder_with_only_other_files_is_trained_into_and_they_are_kept(tmp_path, small_agreement_dir,
                                                                           tiny_encoder_dir, embedding_cache_dir):
    output = tmp_path / "out"
    output.mkdir()
    (output / "notes.txt").write_text("mine")
    main(run_args(small_agreement_dir, tiny_encoder_dir, embedding_cache_dir, output))
    assert (output / "metrics.json").is_file() and (output / "notes.txt").read_text() == "mine"


def test_overwrite_output_dir_replaces_the_run_once_the_new_one_is_complete(rerun, finished):
    output, run = rerun
    (output / "checkpoint-99").mkdir()  # a checkpoint the new run would never write: must not survive
    report = run("--overwrite_output_dir", "--seed", "1")
    written = json.loads((output / "metrics.json").read_text())
    assert written["config"]["training"]["seed"] == 1 == report["config"]["training"]["seed"]
    checkpoints = sorted(p.name for p in output.glob("checkpoint-*"))
    assert checkpoints and set(checkpoints) <= {"checkpoint-4", "checkpoint-8"}  # checkpoint-99 is gone
    for name in checkpoints:  # each written by the new run, none left over from the old one
        old = finished / name / "model.safetensors"
        assert not old.exists() or old.read_bytes() != (output / name / "model.safetensors").read_bytes()
    assert not (output / PREVIOUS_RUN).exists()
    assert (output / "notes.txt").read_text() == "mine"
    assert (output / "model.safetensors").read_bytes() != (finished / "model.safetensors").read_bytes()


def test_when_the_replacing_run_fails_the_old_run_is_kept_whole(rerun, finished, capsys):
    output, run = rerun
    line = refused(capsys, run, "--overwrite_output_dir", "--learning_rate", "1e38")
    assert line.startswith("training loss became")
    assert digest(output / PREVIOUS_RUN) == digest(finished)
    assert not (output / "metrics.json").exists() and not (output / "README.md").exists()
    # a plain rerun is refused while the old run is set aside; a second --overwrite_output_dir completes the job
    assert PREVIOUS_RUN in refused(capsys, run)
    run("--overwrite_output_dir")
    assert not (output / PREVIOUS_RUN).exists() and (output / "metrics.json").is_file()


def test_a_failure_before_training_leaves_the_folder_untouched_even_with_overwrite(rerun, capsys):
    output, run = rerun
    before = digest(output)
    line = refused(capsys, run, "--overwrite_output_dir", "--encoder", str(output / "no-encoder"))
    assert line.startswith("--encoder: cannot load encoder")
    assert digest(output) == before and not (output / PREVIOUS_RUN).exists()


def test_resume_into_a_finished_run_is_allowed(rerun, finished):
    output, run = rerun
    report = run("--resume_from_checkpoint")
    previous = json.loads((finished / "metrics.json").read_text())
    assert report["distributed"]["parameter_digests"] == previous["distributed"]["parameter_digests"]


def test_metrics_and_card_are_written_atomically_and_no_temp_files_remain(rerun):
    output, _ = rerun
    assert not list(output.rglob("*.tmp"))
    assert json.loads((output / "metrics.json").read_text())["test"]["instances"] == 30
    assert (output / "README.md").read_text().startswith("---")


@pytest.mark.parametrize("layout", ["export", "save_to_disk", "generate"])
def test_an_output_dir_holding_a_dataset_is_refused_even_with_overwrite(tmp_path, capsys, layout, small_agreement_dir,
                                                                         tiny_encoder_dir, embedding_cache_dir):
    data = tmp_path / "data"
    if layout == "save_to_disk":
        shutil.copytree(small_agreement_dir, data)
    else:
        from blm_cli.main import main as blm

        command = ["export", "agr_en_typeI", "--no-audit"] if layout == "export" else ["generate", "agr_en_typeI"]
        assert blm([*command, "--size", "30", "--out", str(data)]) == 0
    before = sorted(str(path.relative_to(data)) for path in data.rglob("*"))
    with pytest.raises(SystemExit) as stopped:
        main(run_args(small_agreement_dir, tiny_encoder_dir, embedding_cache_dir, data, "--overwrite_output_dir",
                      "true"))
    assert stopped.value.code == 2
    assert f"--output_dir {data} holds a dataset" in capsys.readouterr().err
    assert sorted(str(path.relative_to(data)) for path in data.rglob("*")) == before
