"""FFNN training time on cached embeddings, as a multiple of the matmul floor of this machine.

    python benchmarks/bench_train.py [--dim 384] [--train 1474] [--validation 369] [--epochs 120] [--bf16]

The run is an FFNN run on frozen embeddings at the main job's size: 1,474 training instances (agr_en_typeI's
train minus 20 % validation) × 120 epochs (`--early_stopping_patience 0`: the papers' fixed length), batch 100,
lr 1e-3, 7 context sentences and 6 candidates, validation every epoch and the best checkpoint saved, through
BlmTrainer. Embeddings are a random table of the encoder's size (timing does not depend on their values).

The floor: the matrix products the run cannot avoid (the FFNN's forward and backward at every step, its forward
on the validation split every epoch), timed as bare `torch.mm` calls of the same shapes on this machine; their
FLOPs over that time is the machine's matmul throughput. The run's wall time over the floor is the figure to
watch (target <= 1.2): the rest is the optimizer, the Trainer, collation, evaluation and checkpoints. Both are
measured in the same process, the floor before and after the run (the machine is shared: the load average is
printed with them). The optimizer's own time (fused AdamW, and gradient clipping when the run clips: memory-bound,
not matmuls) is timed alone too, and the run is also given as a multiple of floor + optimizer.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from transformers import BertConfig, TrainingArguments  # noqa: E402
from transformers.trainer_callback import PrinterCallback  # noqa: E402

from blm_models import BlmConfig, BlmModel  # noqa: E402
from blm_models.arguments import TRAINING_DEFAULTS  # noqa: E402
from blm_models.collator import CachedEmbeddingCollator  # noqa: E402
from blm_models.data import IndexedBlmDataset  # noqa: E402
from blm_models.trainer import BlmTrainer  # noqa: E402

CONTEXT, CANDIDATES, BATCH = 7, 6, 100
LABELS = ["Correct", "Coord", "WNA", "WN1", "WN2", "AEV"]
CLASSES = [0, 1, 1, 1, 1, 2]


def random_instances(count: int, n_sentences: int, generator: torch.Generator) -> IndexedBlmDataset:
    """Instances of 7 context and 6 candidate sentences drawn from the table."""
    return IndexedBlmDataset([{
        "context_ids": torch.randint(0, n_sentences, (CONTEXT,), generator=generator),
        "answer_ids": torch.randint(0, n_sentences, (CANDIDATES,), generator=generator),
        "labels": torch.randint(0, CANDIDATES, (), generator=generator),
        "answer_label_ids": torch.arange(CANDIDATES),
        "answer_class_ids": torch.tensor(CLASSES),
    } for _ in range(count)])


def ffnn_shapes(dim: int, batch: int, hidden_factor: float = 3.5) -> tuple[list, list]:
    """(forward, backward) matmul shapes (m, k, n) of one FFNN step on `batch` instances: C·d -> h -> h -> d,
    backward without the gradient of the input (the cached embeddings need none)."""
    hidden = int(round(hidden_factor * dim))
    layers = [(CONTEXT * dim, hidden), (hidden, hidden), (hidden, dim)]
    forward = [(batch, fan_in, fan_out) for fan_in, fan_out in layers]
    backward = [(fan_out, batch, fan_in) for fan_in, fan_out in layers]  # weight gradients
    backward += [(batch, fan_out, fan_in) for fan_in, fan_out in layers[1:]]  # input gradients of layers 2 and 3
    return forward, backward


def flops(shapes: list) -> float:
    return float(sum(2 * m * k * n for m, k, n in shapes))


def matmul_seconds(shapes: list, dtype: torch.dtype, repeats: int) -> float:
    """Median seconds of one pass over `shapes` as bare torch.mm calls (operands allocated once)."""
    operands = [(torch.randn(m, k, dtype=dtype), torch.randn(k, n, dtype=dtype)) for m, k, n in shapes]
    for a, b in operands:  # warm-up
        torch.mm(a, b)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(20):
            for a, b in operands:
                torch.mm(a, b)
        times.append((time.perf_counter() - start) / 20)
    return sorted(times)[len(times) // 2]


def floor(args: argparse.Namespace, steps: int, evaluations: int) -> dict:
    """The run's matmul FLOPs and the seconds this machine needs for them as bare matmuls."""
    dtype = torch.bfloat16 if args.bf16 else torch.float32
    forward, backward = ffnn_shapes(args.dim, BATCH)
    train_step = forward + backward
    batches = -(-args.validation // args.eval_batch)
    eval_shapes = ffnn_shapes(args.dim, args.eval_batch)[0]
    step_s = matmul_seconds(train_step, dtype, args.repeats)
    eval_s = matmul_seconds(eval_shapes, dtype, args.repeats)
    total_flops = steps * flops(train_step) + evaluations * batches * flops(eval_shapes)
    seconds = steps * step_s + evaluations * batches * eval_s
    return {"gflop": round(total_flops / 1e9, 1), "seconds": round(seconds, 2),
            "gflop_per_s": round(total_flops / seconds / 1e9, 1), "load_average": os.getloadavg()[0]}


def optimizer_seconds(args: argparse.Namespace, steps: int) -> float:
    """Seconds the run's optimizer steps alone take: fused AdamW over the FFNN's parameters, with gradient clipping
    when the run clips. Memory-bound and outside the matmul floor (median of `repeats` timings of 20 steps)."""
    model = ffnn_model(args.dim)
    parameters = [p for p in model.parameters() if p.requires_grad]
    for parameter in parameters:
        parameter.grad = torch.randn_like(parameter)
    optimizer = torch.optim.AdamW(parameters, lr=1e-3, weight_decay=0.0, fused=True)
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        for _ in range(20):
            if args.max_grad_norm:
                torch.nn.utils.clip_grad_norm_(parameters, args.max_grad_norm)
            optimizer.step()
        times.append((time.perf_counter() - start) / 20)
    return steps * sorted(times)[len(times) // 2]


def ffnn_model(dim: int) -> BlmModel:
    """The run's model: the FFNN head over a frozen stand-in encoder of the embedding size."""
    encoder_config = BertConfig(hidden_size=dim, num_hidden_layers=1, num_attention_heads=1, intermediate_size=8,
                                vocab_size=8)
    torch.manual_seed(0)
    return BlmModel(BlmConfig(encoder_config=encoder_config, head="ffnn", answer_label_names=LABELS))


def time_training(args: argparse.Namespace, with_selection: bool) -> dict:
    """Wall seconds of one BlmTrainer.train() run."""
    generator = torch.Generator().manual_seed(0)
    table = torch.randn(6000, args.dim, generator=generator)
    train = random_instances(args.train, len(table), generator)
    validation = random_instances(args.validation, len(table), generator)
    model = ffnn_model(args.dim)
    with tempfile.TemporaryDirectory() as output:
        settings = {**TRAINING_DEFAULTS, "num_train_epochs": args.epochs, "bf16": args.bf16, "disable_tqdm": True,
                    "use_cpu": not torch.cuda.is_available(), "logging_strategy": "no",
                    "per_device_eval_batch_size": args.eval_batch, "max_grad_norm": args.max_grad_norm}
        if not with_selection:
            settings.update(eval_strategy="no", save_strategy="no", load_best_model_at_end=False)
        trainer = BlmTrainer(model=model, args=TrainingArguments(output_dir=output, **settings),
                             data_collator=CachedEmbeddingCollator(table), train_dataset=train,
                             eval_dataset=validation if with_selection else None)
        trainer.remove_callback(PrinterCallback)
        load = os.getloadavg()[0]
        start = time.perf_counter()
        trainer.train()
        wall = time.perf_counter() - start
        saves = sum(1 for entry in trainer.state.log_history if "eval_accuracy" in entry)
        return {"wall_s": round(wall, 1), "steps": trainer.state.global_step,
                "ms_per_step": round(1000 * wall / trainer.state.global_step, 1),
                "evaluations": saves, "load_average": [load, os.getloadavg()[0]]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dim", type=int, default=384, help="embedding size (384 = all-MiniLM-L6-v2, 768 = base)")
    parser.add_argument("--train", type=int, default=1474, help="training instances")
    parser.add_argument("--validation", type=int, default=369, help="validation instances (evaluated every epoch)")
    parser.add_argument("--epochs", type=int, default=120)
    parser.add_argument("--eval_batch", type=int, default=TRAINING_DEFAULTS["per_device_eval_batch_size"])
    parser.add_argument("--bf16", action="store_true", help="bfloat16 autocast (and a bfloat16 floor)")
    parser.add_argument("--skip_selection", action="store_true", help="time training alone (no evaluation, no saving)")
    parser.add_argument("--threads", type=int, default=0, help="torch intra-op threads (0 = torch's default)")
    parser.add_argument("--max_grad_norm", type=float, default=TRAINING_DEFAULTS.get("max_grad_norm", 1.0),
                        help="gradient clipping of the run (default: train.py's)")
    parser.add_argument("--repeats", type=int, default=15, help="timings of the floor's matmuls (median)")
    parser.add_argument("--output", default=None)
    args = parser.parse_args()
    torch.set_flush_denormal(True)
    if args.threads:
        torch.set_num_threads(args.threads)
    with_selection = not args.skip_selection
    steps = args.epochs * -(-args.train // BATCH)
    evaluations = args.epochs if with_selection else 0
    before = floor(args, steps, evaluations)
    run = time_training(args, with_selection)
    after = floor(args, steps, evaluations)
    floor_s = min(before["seconds"], after["seconds"])
    optimizer_s = optimizer_seconds(args, steps)
    figures = {"dim": args.dim, "train": args.train, "validation": args.validation, "epochs": args.epochs,
               "bf16": args.bf16, "torch_threads": torch.get_num_threads(), "with_selection": with_selection,
               "floor_before": before, "run": run, "floor_after": after,
               "floor_s": floor_s, "multiple_of_floor": round(run["wall_s"] / floor_s, 2), "target_multiple": 1.2,
               "max_grad_norm": args.max_grad_norm, "optimizer_s": round(optimizer_s, 2),
               "multiple_of_floor_with_optimizer": round(run["wall_s"] / (floor_s + optimizer_s), 2)}
    print(json.dumps(figures, indent=2))
    if args.output:
        Path(args.output).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
