"""The GPU check: the README's main job, the FFNN on cached embeddings and embedding throughput on one GPU, in one
table (`benchmarks/gpu_check.sh` runs it; under 5 minutes on one H100-class GPU).

    python benchmarks/gpu_check.py [--out DIR] [--skip main main_fp32 ffnn embed]

Each part runs where CI never does, so nothing here is a test: it prints what it measured, with the GPU's name,
torch/CUDA versions and peak GPU memory, and writes the figures to DIR/gpu_check.json. Without a GPU it stops at
once with one line saying so.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_finetune import MAIN_JOB  # noqa: E402

from blm_models.precision import choose_precision, cpu_description  # noqa: E402

CONFIG = "agr_en_typeI"


def run_main_job(out: Path, bf16: str = "auto") -> dict:
    """The README main job in its own process (`--bf16 auto`: bfloat16 on a GPU that has it; `false`: fp32)."""
    folder = out / f"main_job_bf16_{bf16}"
    command = [sys.executable, str(REPO / "train.py"), "--dataset_config", CONFIG, "--output_dir", str(folder),
               "--overwrite_output_dir", "true", *MAIN_JOB, "--bf16", bf16]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1:] or ["train.py failed"]}
    report = json.loads((folder / "metrics.json").read_text())
    gpu = report.get("hardware", {}).get("gpu") or {}
    return {"wall_s": round(wall, 1), "train_runtime_s": round(report["training"]["train_runtime"], 1),
            "steps": report["training"].get("global_step"), "test_accuracy": round(report["test"]["accuracy"], 4),
            "precision": report["training"]["precision"], "peak_gpu_memory_gib": gpu.get("peak_memory_gib")}


def run_ffnn(out: Path) -> dict:
    """`bench_train.py` (the FFNN at the main job's size, 120 epochs, validation every epoch) on the GPU."""
    output = out / "ffnn.json"
    command = [sys.executable, str(REPO / "benchmarks" / "bench_train.py"), "--output", str(output), "--repeats", "5"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1:] or ["bench_train.py failed"]}
    figures = json.loads(output.read_text())
    return {"wall_s": figures["run"]["wall_s"], "epochs": figures["epochs"], "train_instances": figures["train"]}


@torch.no_grad()
def run_embedding() -> dict:
    """Sentences per second of the default encoder over agr_en_typeI's unique sentences, fp32 and bf16 autocast,
    and the peak GPU memory of the larger of the two."""
    from blm_models.data import load_splits
    from blm_models.embedding_cache import SentenceEmbedder
    from blm_models.encoders import DEFAULT_ENCODER_ALIAS, load_encoder

    splits = load_splits(CONFIG, None)
    sentences = list(dict.fromkeys(s for split in splits.values() for row in split
                                   for s in row["context"] + row["answers"]))
    model, tokenizer = load_encoder(DEFAULT_ENCODER_ALIAS)
    embedder = SentenceEmbedder(model.to("cuda"), tokenizer, batch_size=256)
    batches = [inputs for _, inputs in embedder.batches(embedder.tokenize(sentences))]
    figures = {"sentences": len(sentences)}
    torch.cuda.reset_peak_memory_stats()
    for name, dtype in (("fp32", None), ("bf16", torch.bfloat16)):
        for repeat in range(2):  # the first pass warms up kernels
            torch.cuda.synchronize()
            start = time.perf_counter()
            with torch.autocast("cuda", dtype=dtype or torch.float32, enabled=dtype is not None):
                for inputs in batches:
                    model(**{key: value.to("cuda") for key, value in inputs.items()})
            torch.cuda.synchronize()
            seconds = time.perf_counter() - start
        figures[f"{name}_sentences_per_s"] = round(len(sentences) / seconds)
    figures["peak_gpu_memory_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    return figures


def table(results: dict) -> str:
    """One Markdown table of what was measured."""
    rows = ["| part | figure |", "|---|---|"]
    for main in (results.get("main_job", {}), results.get("main_job_fp32", {})):
        if "wall_s" in main:
            rows.append(f"| main job ({CONFIG}, {main['precision']['requested']} -> "
                        f"{'bf16' if main['precision']['bf16'] else 'fp32'}) | {main['wall_s']} s wall, "
                        f"{main['train_runtime_s']} s training, {main['steps']} steps, test {main['test_accuracy']}, "
                        f"peak {main['peak_gpu_memory_gib']} GiB |")
    ffnn = results.get("ffnn", {})
    if "wall_s" in ffnn:
        rows.append(f"| FFNN, {ffnn['epochs']} epochs on {ffnn['train_instances']} instances | {ffnn['wall_s']} s |")
    embed = results.get("embedding", {})
    if "fp32_sentences_per_s" in embed:
        rows.append(f"| embedding {embed['sentences']} sentences (MiniLM) | {embed['fp32_sentences_per_s']}/s fp32, "
                    f"{embed['bf16_sentences_per_s']}/s bf16, peak {embed['peak_gpu_memory_gib']} GiB |")
    rows += [f"| {part} failed | {figures['error']} |" for part, figures in results.items()
             if isinstance(figures, dict) and "error" in figures]
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=None, help="keep the runs and gpu_check.json here (default: a temp folder)")
    parser.add_argument("--skip", nargs="*", default=[], choices=["main", "main_fp32", "ffnn", "embed"])
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("gpu_check: no CUDA GPU visible to torch; nothing measured (run it on a machine with one)",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="blm-gpu-check-") as scratch:
        out = Path(args.out or scratch)
        out.mkdir(parents=True, exist_ok=True)
        results = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
                   "bf16": choose_precision("auto").as_dict(), "cpu": cpu_description()}
        print(json.dumps(results), flush=True)
        parts = {"main": ("main_job", lambda: run_main_job(out)),
                 "main_fp32": ("main_job_fp32", lambda: run_main_job(out, "false")),
                 "ffnn": ("ffnn", lambda: run_ffnn(out)), "embed": ("embedding", run_embedding)}
        for flag, (name, run) in parts.items():
            if flag not in args.skip:
                start = time.perf_counter()
                results[name] = run()
                print(f"{name}: {json.dumps(results[name])} ({time.perf_counter() - start:.0f} s)", flush=True)
        (out / "gpu_check.json").write_text(json.dumps(results, indent=2))
        print(f"\nGPU check on {results['gpu']} (torch {results['torch']}, CUDA {results['cuda']})")
        print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
