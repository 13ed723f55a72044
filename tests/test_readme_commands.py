"""The README's main-job command stays runnable: its train.py flags parse, and they are the ones the fine-tuning
benchmark measures."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main_job_flags() -> list[str]:
    line = next(line for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines()
                if line.startswith("bash scripts/setup.sh && .venv/bin/python train.py"))
    words = shlex.split(line)
    return words[words.index("train.py") + 1:]


def test_the_main_job_parses_and_is_what_the_benchmark_measures(tmp_path):
    from blm_models.arguments import parse_arguments

    flags = main_job_flags()
    output = flags.index("--output_dir")
    flags[output + 1] = str(tmp_path / "run")
    data_args, encoder_args, *_ = parse_arguments(flags)
    assert data_args.dataset_config == "agr_en_typeI" and encoder_args.train_encoder
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from bench_finetune import MAIN_JOB
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    measured = list(flags)
    for name in ("--dataset_config", "--output_dir"):  # what the benchmark sets per seed
        del measured[measured.index(name): measured.index(name) + 2]
    assert measured == MAIN_JOB
