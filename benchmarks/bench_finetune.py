"""Accuracy and wall time of the README main job (fast fine-tuning) over several seeds, one `train.py` process each.

    python benchmarks/bench_finetune.py [--seeds 0 1 2] [--bf16 auto false true] [--config agr_en_typeI] [--out DIR]
                                        [-- TRAIN.PY FLAGS...]

It first prints the CPU (model, cores, torch's vector capability, native bfloat16 flags: AMX / AVX512-BF16) and the
GPU if any, since a bfloat16 figure means nothing without them. Each `--bf16` value (default: auto, the README's
job) and each seed runs `python train.py` as the README gives it (flags after `--` replace the job's own), so the wall
time includes starting Python, loading the data and the encoder and the frozen layers' pass. Per seed it prints
test accuracy (held-out lemmas), validation accuracy, the best and the last epoch, wall seconds and the load
average before and after (the machine is shared: compare timings only at similar load); then mean ± std.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from blm_models.precision import cpu_description  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
# the README main job, less --dataset_config / --output_dir / --seed
MAIN_JOB = ["--head", "ffnn", "--hidden_layer", "3", "--center_context", "true", "--train_encoder", "true",
            "--train_top_layers", "2", "--encoder_learning_rate", "3e-4", "--per_device_train_batch_size", "32",
            "--num_train_epochs", "6", "--early_stopping_patience", "2", "--group_by_lemma", "true"]


def run_seed(config: str, seed: int, flags: list[str], output: Path, bf16: str) -> dict:
    """One train.py process; its metrics.json figures and wall time."""
    folder = output / f"{config}-bf16-{bf16}-seed{seed}"
    command = [sys.executable, str(REPO / "train.py"), "--dataset_config", config, "--output_dir", str(folder),
               "--overwrite_output_dir", "true", "--seed", str(seed), *flags, "--bf16", bf16]
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    completed = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if completed.returncode != 0:
        raise SystemExit(f"seed {seed}: train.py failed ({completed.returncode}): {completed.stderr.strip()[-800:]}")
    report = json.loads((folder / "metrics.json").read_text())
    training = report["training"]
    return {"seed": seed, "bf16": bf16, "precision": training.get("precision"), "steps": training.get("global_step"),
            "train_runtime_s": training.get("train_runtime"), "test_accuracy": report["test"]["accuracy"], "test_instances": report["test"]["instances"],
            "validation_accuracy": report["validation"]["accuracy"], "best_epoch": training.get("best_epoch"),
            "epochs_run": training.get("epoch"), "wall_s": round(wall, 1),
            "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
            "wrong_picks": {label: n for label, n in report["test"]["picks_per_label"].items()
                            if label != "Correct" and n}}


def main() -> None:
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else None
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--config", default="agr_en_typeI")
    parser.add_argument("--bf16", nargs="+", default=["auto"], choices=["auto", "true", "false"],
                        help="run the seeds once per value (e.g. --bf16 false true times both precisions)")
    parser.add_argument("--out", default=None, help="keep the runs here (default: a temporary folder)")
    parser.add_argument("--output", default=None, help="write the figures to this JSON file")
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    flags = MAIN_JOB if extra is None else extra
    hardware = {"cpu": cpu_description(), "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else None}
    print(json.dumps(hardware), flush=True)
    figures = {"config": args.config, "flags": flags, "hardware": hardware, "precisions": {}}
    with tempfile.TemporaryDirectory(prefix="bench-finetune-") as scratch:
        output = Path(args.out) if args.out else Path(scratch)
        for bf16 in args.bf16:
            runs = []
            for seed in args.seeds:
                runs.append(run_seed(args.config, seed, flags, output, bf16))
                print(json.dumps(runs[-1]), flush=True)
            accuracies = [run["test_accuracy"] for run in runs]
            walls = [run["wall_s"] for run in runs]
            figures["precisions"][bf16] = {
                "runs": runs, "test_accuracy_mean": round(statistics.mean(accuracies), 4),
                "test_accuracy_std": round(statistics.pstdev(accuracies), 4),
                "wall_s_mean": round(statistics.mean(walls), 1), "wall_s_max": max(walls)}
    print(json.dumps(figures, indent=2))
    if args.output:
        Path(args.output).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
