"""train.py end to end on a synthetic agreement BLM with a tiny random encoder: every head learns, metrics.json,
resume after interruption, and data-parallel training with two processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest_models import agreement_dir, embedding_cache_dir, tiny_encoder_dir, single_torch_thread  # noqa: F401 (fixtures)
from safetensors.torch import load_file
from transformers import TrainerCallback

from blm_models.train_job import main

REPO = Path(__file__).resolve().parents[1]
CHANCE = 0.21  # mean of 1/|answer set| on the synthetic test split (4-6 candidates)


def training_args(data: Path, encoder: Path, cache: Path, output: Path, *extra: str) -> list[str]:
    """Flags of a small, quick run; `extra` overrides or adds flags."""
    return [
        "--dataset_path", str(data), "--encoder", str(encoder), "--embedding_cache_dir", str(cache),
        "--output_dir", str(output), "--per_device_train_batch_size", "32", "--disable_tqdm", "true",
        "--logging_strategy", "no", "--seed", "0", *extra,
    ]


def test_ffnn_learns_the_synthetic_agreement_blm_and_writes_metrics_json(
    tmp_path, agreement_dir, tiny_encoder_dir, embedding_cache_dir
):
    report = main(training_args(agreement_dir, tiny_encoder_dir, embedding_cache_dir, tmp_path,
                                "--head", "ffnn", "--score", "cosine", "--num_train_epochs", "30"))
    written = json.loads((tmp_path / "metrics.json").read_text())
    assert written["test"]["accuracy"] == report["test"]["accuracy"] >= 0.6 > 2.5 * CHANCE
    assert sum(written["test"]["picks_per_label"].values()) == written["test"]["instances"] == 120
    assert set(written["test"]["picks_per_class"]) == {"CORRECT", "SEQUENCE", "GRAMMAR"}
    assert written["test"]["picks_per_label"]["Correct"] == written["test"]["picks_per_class"]["CORRECT"]
    assert written["validation"]["instances"] == 64 and written["training"]["instances"] == 256
    assert written["config"]["head"]["head"] == "ffnn" and written["config"]["training"]["learning_rate"] == 1e-3
    assert {"torch", "transformers", "datasets", "python"} <= set(written["versions"])
    assert written["distributed"]["world_size"] == 1
    assert written["data"]["sentences"]["unique"] < written["data"]["sentences"]["occurrences"]


def test_ffnn_on_a_middle_layer_with_centred_contexts_learns_and_records_both(
    tmp_path, agreement_dir, tiny_encoder_dir, embedding_cache_dir
):
    report = main(training_args(agreement_dir, tiny_encoder_dir, embedding_cache_dir, tmp_path, "--head", "ffnn",
                                "--hidden_layer", "1", "--center_context", "true", "--num_train_epochs", "30"))
    assert report["test"]["accuracy"] >= 0.6 > 2.5 * CHANCE
    saved = json.loads((tmp_path / "config.json").read_text())
    assert saved["hidden_layer"] == 1 and saved["center_context"] is True


def test_two_level_vae_learns_the_synthetic_agreement_blm(tmp_path, agreement_dir, tiny_encoder_dir,
                                                          embedding_cache_dir):
    report = main(training_args(agreement_dir, tiny_encoder_dir, embedding_cache_dir, tmp_path,
                                "--head", "two_level_vae", "--num_train_epochs", "40", "--learning_rate", "1e-2"))
    assert report["test"]["accuracy"] >= 0.4 > 1.8 * CHANCE


@pytest.mark.parametrize("head, extra", [
    ("cnn", ["--score", "cosine"]),
    ("sentence_vae", ["--learning_rate", "1e-2"]),
])
def test_cnn_and_sentence_vae_learn_above_chance(tmp_path, agreement_dir, tiny_encoder_dir, embedding_cache_dir,
                                                 head, extra):
    report = main(training_args(agreement_dir, tiny_encoder_dir, embedding_cache_dir, tmp_path,
                                "--head", head, "--num_train_epochs", "25", *extra))
    assert report["test"]["accuracy"] >= 0.4 > 1.8 * CHANCE


def test_end_to_end_fine_tuning_updates_and_saves_the_encoder(tmp_path, agreement_dir, tiny_encoder_dir,
                                                              embedding_cache_dir):
    report = main(training_args(agreement_dir, tiny_encoder_dir, embedding_cache_dir, tmp_path,
                                "--head", "ffnn", "--train_encoder", "true", "--num_train_epochs", "3",
                                "--score", "cosine", "--learning_rate", "1e-3"))
    saved = load_file(str(tmp_path / "model.safetensors"))
    original = load_file(str(tiny_encoder_dir / "model.safetensors"))
    name = "embeddings.word_embeddings.weight"
    assert not saved[f"encoder.{name}"].equal(original[name])
    assert report["config"]["model"]["train_encoder"] is True
    assert 0 <= report["test"]["accuracy"] <= 1


def test_a_fine_tuned_encoder_gets_its_own_learning_rate(tmp_path, tiny_encoder_dir):
    from transformers import TrainingArguments

    from blm_models import BlmModel
    from blm_models.trainer import BlmTrainer

    model = BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn", train_encoder=True)
    args = TrainingArguments(output_dir=str(tmp_path), learning_rate=1e-3, report_to="none", use_cpu=True)
    optimizer = BlmTrainer(model=model, args=args, encoder_learning_rate=2e-5).create_optimizer()
    encoder_ids = {id(p) for p in model.encoder.parameters()}
    for group in optimizer.param_groups:
        in_encoder = {id(p) in encoder_ids for p in group["params"]}
        assert len(in_encoder) == 1 and group["lr"] == (2e-5 if in_encoder.pop() else 1e-3)


class InterruptAfterSave(TrainerCallback):
    """Simulates a crash right after the checkpoint of the given step was written."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_save(self, args, state, control, **kwargs):
        if state.global_step >= self.step:
            raise KeyboardInterrupt(f"interrupted after step {state.global_step}")


def test_an_interrupted_run_resumed_from_its_checkpoint_ends_like_an_uninterrupted_one(
    tmp_path, agreement_dir, tiny_encoder_dir, embedding_cache_dir
):
    common = ("--head", "sentence_vae", "--num_train_epochs", "6", "--save_strategy", "epoch")
    whole = main(training_args(agreement_dir, tiny_encoder_dir, embedding_cache_dir, tmp_path / "whole", *common))
    resumed_dir = tmp_path / "resumed"
    with pytest.raises(KeyboardInterrupt):
        main(training_args(agreement_dir, tiny_encoder_dir, embedding_cache_dir, resumed_dir, *common),
             callbacks=[InterruptAfterSave(step=24)])
    assert not (resumed_dir / "metrics.json").exists()
    assert "checkpoint-24" in [p.name for p in resumed_dir.glob("checkpoint-*")]
    resumed = main(training_args(agreement_dir, tiny_encoder_dir, embedding_cache_dir, resumed_dir, *common,
                                 "--resume_from_checkpoint"))
    assert resumed["test"] == whole["test"] | {"runtime": resumed["test"]["runtime"],
                                               "samples_per_second": resumed["test"]["samples_per_second"],
                                               "steps_per_second": resumed["test"]["steps_per_second"]}
    assert resumed["distributed"]["parameter_digests"] == whole["distributed"]["parameter_digests"]


def _launch(launcher: list[str], args: list[str], timeout: int = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO)}
    return subprocess.run([*launcher, str(REPO / "train.py"), *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


def _assert_two_identical_replicas(result: subprocess.CompletedProcess, output: Path) -> None:
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads((output / "metrics.json").read_text())
    assert report["distributed"]["world_size"] == 2
    digests = report["distributed"]["parameter_digests"]
    assert len(digests) == 2 and digests[0] == digests[1]
    assert report["test"]["instances"] == 120


def test_torchrun_trains_two_gloo_processes_with_identical_parameters(tmp_path, agreement_dir, tiny_encoder_dir):
    cache = tmp_path / "fresh_cache"
    args = training_args(agreement_dir, tiny_encoder_dir, cache, tmp_path / "out", "--num_train_epochs", "2",
                         "--per_device_train_batch_size", "16")
    result = _launch([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2"], args)
    _assert_two_identical_replicas(result, tmp_path / "out")
    assert len(list(cache.glob("*/shard-*.safetensors"))) == 2  # each rank embedded half the sentences
    assert "early stopping is disabled" not in result.stderr  # every rank sees the validation accuracy


@pytest.mark.slow
def test_accelerate_launch_multi_gpu_runs_two_processes_on_cpu(tmp_path, agreement_dir, tiny_encoder_dir,
                                                               embedding_cache_dir):
    args = training_args(agreement_dir, tiny_encoder_dir, embedding_cache_dir, tmp_path / "out",
                         "--num_train_epochs", "2", "--per_device_train_batch_size", "16")
    launcher = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2"]
    result = _launch(launcher, args)
    _assert_two_identical_replicas(result, tmp_path / "out")
