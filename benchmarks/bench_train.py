"""FFNN training time on cached embeddings: 2000 training instances x 120 epochs through BlmTrainer.

    python benchmarks/bench_train.py [--dim 384] [--instances 2000] [--epochs 120] [--bf16]

Embeddings are a random table of the encoder's size (d=384 for all-MiniLM-L6-v2; timing does not depend on
their values), instances have 7 context sentences and 8 candidates, batch 100, lr 1e-3 as in the papers.
`pure` times training alone; `with_selection` adds train.py's per-epoch validation on 20% more
instances and best-checkpoint saving. Target: pure training under 30 s on the 2-core CI machine.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from transformers import BertConfig, TrainingArguments  # noqa: E402

from blm_models import BlmConfig, BlmModel  # noqa: E402
from blm_models.arguments import TRAINING_DEFAULTS  # noqa: E402
from blm_models.collator import CachedEmbeddingCollator  # noqa: E402
from blm_models.data import IndexedBlmDataset  # noqa: E402
from blm_models.trainer import BlmTrainer  # noqa: E402


def random_instances(count: int, n_sentences: int, generator: torch.Generator) -> IndexedBlmDataset:
    """Instances of 7 context and 8 candidate sentences drawn from the table."""
    rows = []
    for _ in range(count):
        rows.append({
            "context_ids": torch.randint(0, n_sentences, (7,), generator=generator),
            "answer_ids": torch.randint(0, n_sentences, (8,), generator=generator),
            "labels": torch.randint(0, 8, (), generator=generator),
            "answer_label_ids": torch.arange(8),
            "answer_class_ids": torch.tensor([0, 1, 1, 1, 1, 2, 2, 2]),
        })
    return IndexedBlmDataset(rows)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def time_training(args: argparse.Namespace, with_selection: bool) -> dict:
    """Wall and CPU seconds of one BlmTrainer.train() run."""
    generator = torch.Generator().manual_seed(0)
    table = torch.randn(6000, args.dim, generator=generator)
    train = random_instances(args.instances, len(table), generator)
    validation = random_instances(args.instances // 4, len(table), generator)
    encoder_config = BertConfig(hidden_size=args.dim, num_hidden_layers=1, num_attention_heads=1,
                                intermediate_size=8, vocab_size=8)
    torch.manual_seed(0)
    model = BlmModel(BlmConfig(encoder_config=encoder_config, head="ffnn", answer_label_names=[str(i) for i in range(8)]))
    with tempfile.TemporaryDirectory() as output:
        settings = {**TRAINING_DEFAULTS, "num_train_epochs": args.epochs, "bf16": args.bf16, "disable_tqdm": True,
                    "use_cpu": args.bf16 and not torch.cuda.is_available(),
                    "logging_strategy": "no"}
        if not with_selection:
            settings.update(eval_strategy="no", save_strategy="no", load_best_model_at_end=False)
        trainer = BlmTrainer(model=model, args=TrainingArguments(output_dir=output, **settings),
                             data_collator=CachedEmbeddingCollator(table), train_dataset=train,
                             eval_dataset=validation if with_selection else None)
        wall, cpu = time.perf_counter(), cpu_seconds()
        trainer.train()
        return {"wall_s": round(time.perf_counter() - wall, 1), "cpu_s": round(cpu_seconds() - cpu, 1),
                "steps": trainer.state.global_step}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dim", type=int, default=384, help="embedding size (384 = all-MiniLM-L6-v2, 768 = base)")
    parser.add_argument("--instances", type=int, default=2000)
    parser.add_argument("--epochs", type=int, default=120)
    parser.add_argument("--bf16", action="store_true", help="bfloat16 autocast (CPUs with avx512_bf16/AMX, GPUs)")
    parser.add_argument("--skip_selection", action="store_true", help="time pure training only")
    parser.add_argument("--threads", type=int, default=0, help="torch intra-op threads (0 = torch's default)")
    parser.add_argument("--output", default=None)
    args = parser.parse_args()
    torch.set_flush_denormal(True)
    if args.threads:
        torch.set_num_threads(args.threads)
    figures = {"dim": args.dim, "instances": args.instances, "epochs": args.epochs, "bf16": args.bf16,
               "torch_threads": torch.get_num_threads(), "pure": time_training(args, with_selection=False)}
    if not args.skip_selection:
        figures["with_selection"] = time_training(args, with_selection=True)
    figures["target_s"] = 30
    print(json.dumps(figures, indent=2))
    if args.output:
        Path(args.output).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
