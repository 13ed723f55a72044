"""Corrupt input and dying processes: a damaged embedding-cache shard is reported, dropped and recomputed (the run
ends as a clean one does); non-finite embeddings or loss stop the run with an error naming the likely cause and
no metrics or card; a dead data-loading worker fails the run within seconds; the console stays quiet."""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import shutil
import signal
import time
from pathlib import Path

import pytest
import torch
from conftest_models import single_torch_thread, small_agreement_dir, tiny_encoder_dir  # noqa: F401 (fixtures)
from safetensors import safe_open
from safetensors.torch import load_file, save_file
from transformers import TrainerCallback

from blm_models.embedding_cache import CHECKSUM_KEY
from blm_models.train_job import main


def run_args(data: Path, encoder: Path, cache: Path, output: Path, *extra: str) -> list[str]:
    return ["--dataset_path", str(data), "--encoder", str(encoder), "--embedding_cache_dir", str(cache),
            "--output_dir", str(output), "--per_device_train_batch_size", "16", "--num_train_epochs", "2",
            "--disable_tqdm", "true", "--seed", "0", *extra]


def refused(capsys, argv: list[str], callbacks=None) -> str:
    with pytest.raises(SystemExit) as stopped:
        main(argv, callbacks=callbacks)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [line] = [line for line in err.splitlines() if line.startswith("train.py: error: ")]
    return line.removeprefix("train.py: error: ")


@pytest.fixture(scope="module")
def clean(tmp_path_factory, small_agreement_dir, tiny_encoder_dir):
    """A clean run's cache folder and report."""
    root = tmp_path_factory.mktemp("clean")
    report = main(run_args(small_agreement_dir, tiny_encoder_dir, root / "cache", root / "out"))
    return root / "cache", report


def damaged_cache(tmp_path: Path, clean_cache: Path, damage) -> tuple[Path, Path]:
    """A copy of the clean cache with `damage` applied to its shard; returns (cache, shard)."""
    cache = tmp_path / "cache"
    shutil.copytree(clean_cache, cache)
    [shard] = cache.glob("*/shard-*.safetensors")
    damage(shard)
    return cache, shard


def random_bytes(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-3000:-1000] = os.urandom(2000)
    path.write_bytes(bytes(data))


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def nan_rows(keep_checksum: bool):
    """Rewrite a shard as a valid file with NaN in some embeddings, with its old metadata or with none."""

    def damage(path: Path) -> None:
        with safe_open(str(path), "pt") as handle:
            metadata = handle.metadata()
        tensors = load_file(str(path))
        tensors["embeddings"][:5] = float("nan")
        save_file(tensors, str(path), metadata=metadata if keep_checksum else {"key": metadata["key"]})

    return damage


@pytest.mark.parametrize("damage, problem", [
    (random_bytes, "its content does not match the checksum in its metadata"),
    (truncate, "unreadable: "),
    (nan_rows(keep_checksum=True), "its content does not match the checksum"),
    (nan_rows(keep_checksum=False), "it holds non-finite embeddings"),  # a shard from before checksums
])
def test_a_damaged_cache_shard_is_reported_dropped_and_recomputed(tmp_path, capsys, clean, small_agreement_dir,
                                                                  tiny_encoder_dir, damage, problem):
    cache, shard = damaged_cache(tmp_path, clean[0], damage)
    report = main(run_args(small_agreement_dir, tiny_encoder_dir, cache, tmp_path / "out"))
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning: embedding cache")]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"warning: embedding cache: {shard} is corrupt ({problem}")
    assert warnings[0].endswith("; deleted, its sentences are embedded again")
    assert report["data"]["sentences"]["computed"] == report["data"]["sentences"]["unique"]
    assert report["distributed"]["parameter_digests"] == clean[1]["distributed"]["parameter_digests"]
    [rewritten] = cache.glob("*/shard-*.safetensors")
    with safe_open(str(rewritten), "pt") as handle:
        assert len(handle.metadata()[CHECKSUM_KEY]) == 64


def test_an_encoder_giving_nan_embeddings_is_an_error_and_nothing_is_cached(tmp_path, capsys, small_agreement_dir,
                                                                            tiny_encoder_dir):
    encoder = tmp_path / "nan_encoder"
    shutil.copytree(tiny_encoder_dir, encoder)
    weights = load_file(str(encoder / "model.safetensors"))
    weights["embeddings.word_embeddings.weight"][:] = float("nan")
    save_file(weights, str(encoder / "model.safetensors"), metadata={"format": "pt"})
    line = refused(capsys, run_args(small_agreement_dir, encoder, tmp_path / "cache", tmp_path / "out",
                                    "--encoder", str(encoder)))
    assert line.startswith(f"encoder {str(encoder)!r} gave non-finite embeddings for ")
    assert not list((tmp_path / "cache").rglob("shard-*")) and not (tmp_path / "out" / "metrics.json").exists()


def test_a_diverging_learning_rate_stops_training_naming_the_causes_and_writes_no_results(
    tmp_path, capsys, clean, small_agreement_dir, tiny_encoder_dir
):
    line = refused(capsys, run_args(small_agreement_dir, tiny_encoder_dir, clean[0], tmp_path / "out",
                                    "--learning_rate", "1e38"))
    assert line.startswith("training loss became ")
    assert "stopped, no metrics or model card written" in line
    assert f"corrupt input (the embedding cache {clean[0]}/" in line and "--learning_rate 1e+38" in line
    assert not (tmp_path / "out" / "metrics.json").exists() and not (tmp_path / "out" / "README.md").exists()


def test_a_nan_loss_is_caught_at_the_step_it_appears(tmp_path, capsys, clean, small_agreement_dir, tiny_encoder_dir,
                                                     monkeypatch):
    from blm_models.losses import MaxMarginLoss

    forward, calls = MaxMarginLoss.forward, []

    def poisoned(self, scores, gold, mask=None):
        loss = forward(self, scores, gold, mask)
        if self.training:
            calls.append(1)
            if len(calls) == 3:
                return loss * float("nan")
        return loss

    monkeypatch.setattr(MaxMarginLoss, "forward", poisoned)
    line = refused(capsys, run_args(small_agreement_dir, tiny_encoder_dir, clean[0], tmp_path / "out"))
    assert line.startswith("training loss became nan at step 3 (epoch 0.50)")


class KillWorkers(TrainerCallback):
    """SIGKILLs the data-loading workers after the second step, as the out-of-memory killer would."""

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step == 2:
            self.killed_at = time.monotonic()
            for child in multiprocessing.active_children():
                os.kill(child.pid, signal.SIGKILL)


def test_a_killed_data_loading_worker_fails_the_run_within_seconds(tmp_path, capsys, clean, small_agreement_dir,
                                                                   tiny_encoder_dir):
    # batches of 4: 16 per epoch, more than the workers prefetch, so the killed worker still owes batches
    argv = run_args(small_agreement_dir, tiny_encoder_dir, clean[0], tmp_path / "out", "--dataloader_num_workers",
                    "2", "--num_train_epochs", "50", "--per_device_train_batch_size", "4")
    killer = KillWorkers()
    line = refused(capsys, argv, callbacks=[killer])
    assert time.monotonic() - killer.killed_at < 15  # torch checks its workers every 5 s; measured: 0.1-0.2 s
    assert line.startswith("a data-loading worker process died (")
    assert "--dataloader_num_workers 0" in line
    assert not (tmp_path / "out" / "metrics.json").exists()


def _torch_like_sigchld_handler(signum, frame):
    # what torch's DataLoader installs: it raises in whatever the main thread runs when a killed worker's signal lands
    raise RuntimeError("DataLoader worker (pid 4242) is killed by signal: Killed. ")


def _reset_by_a_dying_worker():
    raise ConnectionResetError(104, "Connection reset by peer")


def test_a_worker_signal_landing_while_an_error_is_reported_stays_one_line(monkeypatch, capsys):
    # seen in CI: the reset connection of a killed worker was being reported when its SIGCHLD arrived, and torch's
    # handler raised from inside the report, a traceback instead of the line
    from blm_models import errors

    translate = errors.translate_known_errors

    def signal_meanwhile(error):
        os.kill(os.getpid(), signal.SIGCHLD)
        time.sleep(0.05)  # the handler would run at the next bytecode
        return translate(OSError(errno.ENOSPC, "No space left on device", "/out/metrics.json"))

    monkeypatch.setattr(errors, "translate_known_errors", signal_meanwhile)
    previous = signal.signal(signal.SIGCHLD, _torch_like_sigchld_handler)
    try:
        with pytest.raises(SystemExit) as stopped:
            errors.report_errors(_reset_by_a_dying_worker)
        assert signal.getsignal(signal.SIGCHLD) is _torch_like_sigchld_handler  # restored afterwards
    finally:
        signal.signal(signal.SIGCHLD, previous)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("train.py: error: cannot write /out/metrics.json: No space left on device; free some space")


def test_a_worker_signal_landing_before_the_report_holds_it_off_is_reported_as_the_dead_worker(monkeypatch, capsys):
    from blm_models import errors

    held, calls = errors._child_signals_held, []

    def lands_first():
        calls.append(1)
        if len(calls) == 1:
            _torch_like_sigchld_handler(signal.SIGCHLD, None)
        return held()

    monkeypatch.setattr(errors, "_child_signals_held", lands_first)
    with pytest.raises(SystemExit) as stopped:
        errors.report_errors(_reset_by_a_dying_worker)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.count("\n") == 1
    assert err.startswith("train.py: error: a data-loading worker process died (DataLoader worker (pid 4242) is "
                          "killed by signal: Killed); the run stopped")


def test_an_unknown_error_keeps_its_traceback():
    from blm_models import errors

    def bug():
        raise KeyError("a bug, not a user error")

    with pytest.raises(KeyError, match="a bug"):
        errors.report_errors(bug)


def test_the_console_shows_one_bar_and_a_summary_not_a_dictionary_per_step(tmp_path, capsys, clean,
                                                                          small_agreement_dir, tiny_encoder_dir):
    argv = run_args(small_agreement_dir, tiny_encoder_dir, clean[0], tmp_path / "out", "--disable_tqdm", "false")
    report = main(argv)
    captured = capsys.readouterr()
    assert "{'" not in captured.out + captured.err
    bars = {line.split(":")[0] for line in captured.err.replace("\r", "\n").splitlines() if "%|" in line}
    assert bars == {"training"}
    assert captured.out.splitlines() == [
        f"test accuracy {report['test']['accuracy']:.4f} on 30 instances "
        f"(validation {report['validation']['accuracy']:.4f} on 16)",
        "picks per error class: " + " ".join(f"{k} {v}" for k, v in report["test"]["picks_per_class"].items()),
        f"precision: {'bfloat16' if report['training']['precision']['bf16'] else 'fp32'} (--bf16 auto: "
        f"{report['training']['precision']['reason']})",
        f"metrics: {tmp_path / 'out' / 'metrics.json'}",
        f"model card: {tmp_path / 'out' / 'README.md'}",
    ]
    assert json.loads((tmp_path / "out" / "metrics.json").read_text())["test"] == json.loads(
        json.dumps(report["test"]))


def test_log_level_info_shows_the_trainer_logs(tmp_path, capsys, clean, small_agreement_dir, tiny_encoder_dir):
    main(run_args(small_agreement_dir, tiny_encoder_dir, clean[0], tmp_path / "out", "--log_level", "info",
                  "--logging_strategy", "epoch"))
    shown = capsys.readouterr()
    assert sum(line.startswith("{'loss'") for line in (shown.out + shown.err).splitlines()) == 2
    assert sum(line.startswith("{'eval_loss'") for line in (shown.out + shown.err).splitlines()) == 2


def test_metrics_json_keeps_its_sections(clean):
    assert list(clean[1]) == ["test", "validation", "training", "data", "config", "distributed", "versions",
                              "hardware"]
    assert clean[1]["hardware"]["cpu"]["torch_capability"] and clean[1]["training"]["precision"]["requested"] == "auto"
    assert torch.isfinite(torch.tensor(clean[1]["training"]["train_loss"]))
