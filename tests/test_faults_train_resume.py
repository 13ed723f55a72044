"""Faults in checkpoints and resuming: a resume is exact or refuses. Incomplete (killed while saving) and corrupt
checkpoints are skipped with one line when resuming from the last one and are an error when named; a missing
optimizer state is an error unless --reset_optimizer_state; corrupt files are named."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from conftest_models import (  # noqa: F401 (fixtures)
    embedding_cache_dir,
    single_torch_thread,
    small_agreement_dir,
    tiny_encoder_dir,
)

from blm_models.checkpoints import CHECKSUM_FILE, inspect_checkpoint, write_checksums
from blm_models.remote_code import BUNDLE
from blm_models.train_job import main


def run_args(data: Path, encoder: Path, cache: Path, output: Path, *extra: str) -> list[str]:
    """4 epochs of 4 steps, a checkpoint after each epoch, all kept."""
    return ["--dataset_path", str(data), "--encoder", str(encoder), "--embedding_cache_dir", str(cache),
            "--output_dir", str(output), "--per_device_train_batch_size", "16", "--num_train_epochs", "4",
            "--save_strategy", "epoch", "--save_total_limit", "10", "--disable_tqdm", "true", "--seed", "0", *extra]


@pytest.fixture(scope="module")
def whole(tmp_path_factory, small_agreement_dir, tiny_encoder_dir, embedding_cache_dir):
    """An uninterrupted run: (output folder, report)."""
    output = tmp_path_factory.mktemp("whole") / "out"
    report = main(run_args(small_agreement_dir, tiny_encoder_dir, embedding_cache_dir, output))
    assert sorted(p.name for p in output.glob("checkpoint-*")) == ["checkpoint-12", "checkpoint-16", "checkpoint-4",
                                                                   "checkpoint-8"]
    return output, report


@pytest.fixture
def resume(tmp_path, whole, small_agreement_dir, tiny_encoder_dir, embedding_cache_dir):
    """What a run killed after step 8 leaves (checkpoints 4 and 8), and a function resuming it with extra flags."""
    output = tmp_path / "out"
    output.mkdir()
    for name in ("checkpoint-4", "checkpoint-8"):
        shutil.copytree(whole[0] / name, output / name)

    def run(*extra: str) -> dict:
        return main(run_args(small_agreement_dir, tiny_encoder_dir, embedding_cache_dir, output,
                             "--resume_from_checkpoint", *extra))

    return output, run


def refused(capsys, run, *extra: str) -> str:
    """Run; assert exit status 2 with one error line and no traceback; return the line."""
    with pytest.raises(SystemExit) as stopped:
        run(*extra)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [line] = [line for line in err.splitlines() if line.startswith("train.py: error: ")]
    return line.removeprefix("train.py: error: ")


def folder_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


def damage(path: Path, count: int = 4000) -> None:
    """Overwrite `count` bytes near the end of a file with random bytes (size unchanged)."""
    data = bytearray(path.read_bytes())
    start = max(0, len(data) - count - 96)
    data[start:start + count] = os.urandom(min(count, len(data) - start))
    path.write_bytes(bytes(data))


def leave_only(folder: Path, *names: str) -> None:
    """Keep only `names` in a checkpoint: what a kill in the middle of saving it leaves."""
    for path in folder.iterdir():
        if path.name not in names:
            path.unlink()


def test_every_checkpoint_carries_sha256sums_of_its_files(whole):
    folder = whole[0] / "checkpoint-8"
    lines = (folder / CHECKSUM_FILE).read_text().splitlines()
    listed = {line.split("  ", 1)[1]: line.split("  ", 1)[0] for line in lines}
    assert set(listed) == {"config.json", "model.safetensors", "optimizer.pt", "scheduler.pt", "rng_state.pth",
                           "trainer_state.json", "training_args.bin", "run_identity.json",
                           "tokenizer.json", "tokenizer_config.json", *BUNDLE.values()}  # the model's code, tokenizer
    assert all(hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest for name, digest in listed.items())
    assert inspect_checkpoint(folder).usable and inspect_checkpoint(folder).verified


def test_a_resumed_run_ends_with_the_parameters_of_the_uninterrupted_one(resume, whole):
    report = resume[1]()
    assert report["distributed"]["parameter_digests"] == whole[1]["distributed"]["parameter_digests"]


def test_without_optimizer_state_resuming_is_refused_and_names_the_reset_flag(resume, capsys):
    output, run = resume
    (output / "checkpoint-8" / "optimizer.pt").unlink()
    before = folder_digest(output)
    line = refused(capsys, run)
    assert line.startswith(f"--resume_from_checkpoint {output / 'checkpoint-8'}: no optimizer state (optimizer.pt "
                           "missing)") and "pass --reset_optimizer_state" in line
    assert folder_digest(output) == before and not (output / "metrics.json").exists()


def test_reset_optimizer_state_resumes_with_a_fresh_optimizer_and_says_so(resume, whole, capsys):
    output, run = resume
    (output / "checkpoint-8" / "optimizer.pt").unlink()
    report = run("--reset_optimizer_state")
    err = capsys.readouterr().err
    assert f"warning: resuming from {output / 'checkpoint-8'} with a fresh optimizer" in err
    assert report["training"]["epoch"] == 4
    # a fresh Adam state takes another path than the uninterrupted run: the flag really reset it
    assert report["distributed"]["parameter_digests"] != whole[1]["distributed"]["parameter_digests"]


def test_reset_optimizer_state_discards_a_saved_optimizer(resume, whole, tmp_path, small_agreement_dir,
                                                        tiny_encoder_dir, embedding_cache_dir):
    output, run = resume
    discarded = run("--reset_optimizer_state")  # optimizer.pt and scheduler.pt are there, and ignored
    other = tmp_path / "without"
    for name in ("checkpoint-4", "checkpoint-8"):
        shutil.copytree(whole[0] / name, other / name)
    (other / "checkpoint-8" / "optimizer.pt").unlink()
    absent = main(run_args(small_agreement_dir, tiny_encoder_dir, embedding_cache_dir, other,
                           "--resume_from_checkpoint", "--reset_optimizer_state"))
    digests = discarded["distributed"]["parameter_digests"]
    assert digests == absent["distributed"]["parameter_digests"] != whole[1]["distributed"]["parameter_digests"]


def test_a_checkpoint_killed_while_saving_is_skipped_and_the_run_resumes_exactly(resume, whole, capsys):
    output, run = resume
    leave_only(output / "checkpoint-8", "config.json", "model.safetensors")
    report = run()
    err = capsys.readouterr().err
    assert f"warning: skipping {output / 'checkpoint-8'}: incomplete (no trainer_state.json" in err
    assert report["distributed"]["parameter_digests"] == whole[1]["distributed"]["parameter_digests"]


def test_a_checkpoint_killed_while_writing_trainer_state_is_skipped(resume, whole, capsys):
    output, run = resume
    state = output / "checkpoint-8" / "trainer_state.json"
    (output / "checkpoint-8" / CHECKSUM_FILE).unlink()  # the kill came before the checksums were written
    state.write_text(state.read_text()[:40])
    report = run()
    assert "incomplete (trainer_state.json is not valid JSON" in capsys.readouterr().err
    assert report["distributed"]["parameter_digests"] == whole[1]["distributed"]["parameter_digests"]


def test_naming_an_incomplete_checkpoint_is_an_error(resume, capsys):
    output, run = resume
    leave_only(output / "checkpoint-8", "config.json", "model.safetensors")
    line = refused(capsys, run, str(output / "checkpoint-8"))
    assert line.startswith(f"--resume_from_checkpoint {output / 'checkpoint-8'} is incomplete: no trainer_state.json")


def test_random_bytes_in_the_newest_checkpoints_weights_are_skipped_for_the_one_before(resume, whole, capsys):
    output, run = resume
    damage(output / "checkpoint-8" / "model.safetensors")
    report = run()
    assert (f"warning: skipping {output / 'checkpoint-8'}: corrupt (model.safetensors does not match its checksum"
            in capsys.readouterr().err)
    assert report["distributed"]["parameter_digests"] == whole[1]["distributed"]["parameter_digests"]


@pytest.mark.parametrize("name, corrupt", [
    ("model.safetensors", damage),
    ("model.safetensors", lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])),
    ("optimizer.pt", damage),
    ("trainer_state.json", lambda p: p.write_text("{ not json")),
    ("rng_state.pth", Path.unlink),
])
def test_a_named_corrupt_checkpoint_is_an_error_naming_the_file(resume, capsys, name, corrupt):
    output, run = resume
    corrupt(output / "checkpoint-8" / name)
    line = refused(capsys, run, str(output / "checkpoint-8"))
    assert line.startswith(f"--resume_from_checkpoint {output / 'checkpoint-8'} is corrupt: {name} ")
    assert not (output / "metrics.json").exists()


def test_when_every_checkpoint_is_corrupt_resuming_is_an_error_listing_them(resume, capsys):
    output, run = resume
    for name in ("checkpoint-4", "checkpoint-8"):
        damage(output / name / "model.safetensors")
    line = refused(capsys, run)
    assert line.startswith(f"--resume_from_checkpoint: no usable checkpoint in {output}: checkpoint-8 (corrupt: "
                           "model.safetensors does not match") and "checkpoint-4 (corrupt" in line


def test_resuming_with_no_checkpoint_or_a_missing_one_is_an_error(tmp_path, resume, capsys):
    output, run = resume
    line = refused(capsys, run, str(tmp_path / "checkpoint-99"))
    assert line.startswith(f"--resume_from_checkpoint {tmp_path / 'checkpoint-99'}: no such folder")
    for folder in output.glob("checkpoint-*"):
        shutil.rmtree(folder)
    line = refused(capsys, run)
    assert line.startswith(f"--resume_from_checkpoint: no checkpoint-* folder in {output}")


def test_resuming_with_another_head_or_batch_size_is_refused(resume, capsys):
    output, run = resume
    line = refused(capsys, run, "--head", "cnn")
    assert line.startswith(f"--resume_from_checkpoint {output / 'checkpoint-8'}: this would be a different run "
                           "(--head 'ffnn' -> 'cnn')")
    assert line.endswith("start afresh with --overwrite_output_dir or another --output_dir")
    line = refused(capsys, run, "--per_device_train_batch_size", "8")
    assert "(--per_device_train_batch_size 16 -> 8)" in line


@pytest.mark.parametrize("flags, named", [
    (("--learning_rate", "0.5"), "--learning_rate 0.001 -> 0.5"),
    (("--seed", "7"), "--seed 0 -> 7"),
    (("--max_train_instances", "50"), "--max_train_instances 2000 -> 50"),
    (("--validation_fraction", "0.3"), "--validation_fraction 0.2 -> 0.3"),
    (("--pooling", "first"), "--pooling 'mean' -> 'first'"),
    (("--weight_decay", "0.1"), "--weight_decay 0.0 -> 0.1"),
])
def test_resuming_with_any_setting_that_changes_the_result_is_refused_naming_it(resume, capsys, flags, named):
    line = refused(capsys, resume[1], *flags)
    assert "this would be a different run" in line and named in line


def test_resuming_on_other_data_or_another_encoder_of_the_same_width_is_refused(
        tmp_path, resume, small_agreement_dir, tiny_encoder_dir, embedding_cache_dir, capsys):
    import datasets
    from safetensors.torch import load_file, save_file

    output, _ = resume
    other_data = tmp_path / "other_data"
    loaded = datasets.load_from_disk(str(small_agreement_dir))
    datasets.DatasetDict({"train": loaded["train"].select(range(1, len(loaded["train"]))),
                          "test": loaded["test"]}).save_to_disk(str(other_data))
    line = refused(capsys, lambda: main(run_args(other_data, tiny_encoder_dir, embedding_cache_dir, output,
                                                 "--resume_from_checkpoint")))
    assert "this would be a different run (the data (a digest of its instances)" in line

    other_encoder = tmp_path / "other_encoder"
    shutil.copytree(tiny_encoder_dir, other_encoder)
    weights = load_file(other_encoder / "model.safetensors")
    save_file({name: tensor * 1.01 for name, tensor in weights.items()}, other_encoder / "model.safetensors")
    line = refused(capsys, lambda: main(run_args(small_agreement_dir, other_encoder, embedding_cache_dir, output,
                                                 "--resume_from_checkpoint")))
    assert "this would be a different run (the encoder's weights 'local-" in line


def test_resuming_after_the_training_code_changed_is_refused(resume, capsys, monkeypatch):
    import blm_models.run_identity as run_identity

    monkeypatch.setattr(run_identity, "training_code_digest", lambda: "edited-code")
    line = refused(capsys, resume[1])
    assert "this would be a different run (the training code (a digest)" in line and "-> 'edited-code')" in line


def test_a_checkpoint_records_its_identity_and_the_same_flags_resume_exactly(resume, whole, capsys):
    from blm_models.run_identity import RUN_IDENTITY

    output, run = resume
    identity = (output / "checkpoint-8" / RUN_IDENTITY).read_text()
    assert RUN_IDENTITY in (output / "checkpoint-8" / CHECKSUM_FILE).read_text()  # covered by the checksums
    assert str(output) not in identity and "embedding_cache" not in identity  # no local paths
    report = run("--embedding_batch_size", "7", "--logging_steps", "3")  # neither changes the result
    assert report["distributed"]["parameter_digests"] == whole[1]["distributed"]["parameter_digests"]


def test_a_checkpoint_without_identity_is_checked_as_before_with_a_notice(resume, capsys):
    from blm_models.run_identity import RUN_IDENTITY

    output, run = resume
    (output / "checkpoint-8" / RUN_IDENTITY).unlink()
    write_checksums(output / "checkpoint-8")
    line = refused(capsys, run, "--head", "cnn")
    assert "it was trained with head='ffnn' (now 'cnn')" in line
    run()
    assert "records no run identity (written by an older version)" in capsys.readouterr().err


def test_a_checkpoint_from_before_checksums_resumes_exactly_with_a_note(resume, whole, capsys):
    output, run = resume
    (output / "checkpoint-8" / CHECKSUM_FILE).unlink()
    report = run()
    assert "has no SHA256SUMS" in capsys.readouterr().err
    assert report["distributed"]["parameter_digests"] == whole[1]["distributed"]["parameter_digests"]


def test_without_checksums_damage_to_a_torch_file_is_still_caught(resume):
    output, _ = resume
    folder = output / "checkpoint-8"
    (folder / CHECKSUM_FILE).unlink()
    damage(folder / "optimizer.pt", count=1500)
    verdict = inspect_checkpoint(folder)
    assert verdict.kind == "corrupt" and verdict.problem.startswith("optimizer.pt is")


def test_a_malformed_checksum_file_makes_the_checkpoint_corrupt(resume):
    folder = resume[0] / "checkpoint-8"
    (folder / CHECKSUM_FILE).write_text("not a checksum line\n")
    verdict = inspect_checkpoint(folder)
    assert verdict.kind == "corrupt" and verdict.problem == "SHA256SUMS:1 is not '<sha256>  <file>'"
    write_checksums(folder)
    assert inspect_checkpoint(folder).usable
