"""What a training run computes, recorded in every checkpoint, so that a resume that would continue another run
is refused instead of silently mixing two.

The identity holds the data (a digest of every split's instances and sentences), the encoder (name and the
revision of its weights), every model field of `BlmConfig`, the training settings that change results, the
number of processes, and a digest of the training code. `--resume_from_checkpoint` compares the checkpoint's
`run_identity.json` with this run's and names each difference.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import logging
import pkgutil
from collections.abc import Mapping
from pathlib import Path

import torch

from builders.digest import code_digest

from .errors import CheckpointError

logger = logging.getLogger(__name__)
RUN_IDENTITY = "run_identity.json"

# TrainingArguments that change what a run computes (the rest say where, how often and how verbosely it writes)
TRAINING_KEYS = (
    "learning_rate", "weight_decay", "adam_beta1", "adam_beta2", "adam_epsilon", "max_grad_norm", "optim",
    "optim_args", "num_train_epochs", "max_steps", "lr_scheduler_type", "lr_scheduler_kwargs", "warmup_ratio",
    "warmup_steps", "seed", "data_seed", "per_device_train_batch_size", "gradient_accumulation_steps",
    "label_smoothing_factor", "bf16", "fp16", "eval_strategy", "eval_steps", "metric_for_best_model",
    "greater_is_better", "load_best_model_at_end", "group_by_lemma", "early_stopping_patience",
)
# argument fields that do not change results: where caches live and how many sentences one encoder pass takes
NEUTRAL_ARGUMENTS = {"embedding_cache_dir", "embedding_batch_size", "dataset_config", "dataset_path",
                     "test_dataset_config", "test_dataset_path", "encoder", "encoder_revision"}
# BlmConfig fields that the encoder's revision already stands for (or that only say where it came from)
ENCODER_FIELDS = {"encoder_config", "encoder_name_or_path", "encoder_revision"}


def model_fields() -> list[str]:
    """The fields of BlmConfig that define a model (its declared attributes, not class constants)."""
    from .configuration import BlmConfig

    return [name for name, kind in BlmConfig.__annotations__.items()
            if not str(kind).startswith("ClassVar") and name not in ENCODER_FIELDS]


@functools.cache
def training_code_digest() -> str:
    """Digest of the code a training run executes: model, heads, losses, collators, trainer, data indexing and the
    embedding code."""
    from . import collator, configuration, data, finetune, heads, losses, metrics, modeling, trainer
    from .embedding_cache import embedding_code_digest

    head_modules = [importlib.import_module(f"{heads.__name__}.{info.name}") for info in pkgutil.iter_modules(
        heads.__path__)]
    return code_digest(configuration, modeling, losses, collator, trainer, data, finetune, metrics, heads,
                       *head_modules) + embedding_code_digest()[:8]


def data_digest(indexed: Mapping[str, torch.utils.data.Dataset], sentences: list[str]) -> str:
    """Digest of the instances of every split (sentence positions, gold, labels) and the sentences they point to."""
    digest = hashlib.blake2b(digest_size=12)
    digest.update(json.dumps(sentences, ensure_ascii=False).encode())
    for name in sorted(indexed):
        digest.update(name.encode())
        for row in indexed[name]:
            for key in sorted(row):
                value = row[key]
                digest.update(key.encode())
                if isinstance(value, torch.Tensor):
                    digest.update(value.contiguous().view(-1).to(torch.int64 if not value.is_floating_point()
                                                                 else torch.float64).numpy().tobytes())
                else:
                    digest.update(repr(value).encode())
    return digest.hexdigest()


def run_identity(*, data: str, encoder_revision: str, model_config, arguments: Mapping[str, Mapping],
                 training_args, world_size: int) -> dict:
    """This run's identity: what `--resume_from_checkpoint` requires to be the same."""
    config = model_config.to_dict()
    training = {key: getattr(training_args, key, None) for key in TRAINING_KEYS}
    training["lr_scheduler_type"] = str(training["lr_scheduler_type"])
    training["eval_strategy"] = str(training["eval_strategy"])
    training["optim"] = str(training["optim"])
    return {
        "data": data,
        "encoder_revision": encoder_revision,
        "model": {key: config.get(key) for key in model_fields()},
        "arguments": {group: {k: v for k, v in sorted(values.items()) if k not in NEUTRAL_ARGUMENTS}
                      for group, values in arguments.items()},
        "training": training,
        "processes": world_size,
        "code": training_code_digest(),
    }


def _flatten(value, prefix: str = "") -> dict[str, object]:
    if isinstance(value, Mapping):
        flat = {}
        for key, item in value.items():
            flat.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    return {prefix: list(value) if isinstance(value, tuple) else value}


def differences(saved: Mapping, current: Mapping) -> list[str]:
    """'what: saved -> now' for each compared entry that differs (entries only one side has are not compared:
    a newer toolkit may record more)."""
    old = _flatten(json.loads(json.dumps(saved, default=str)))
    new = _flatten(json.loads(json.dumps(current, default=str)))
    labels = {"data": "the data (a digest of its instances)", "code": "the training code (a digest)",
              "encoder_revision": "the encoder's weights", "processes": "the number of processes"}
    found = []
    for key in sorted(old.keys() & new.keys()):
        if old[key] != new[key]:
            name = labels.get(key, "--" + key.rsplit(".", 1)[-1])
            found.append(f"{name} {old[key]!r} -> {new[key]!r}")
    return list(dict.fromkeys(found))  # a flag both a model field and an argument is named once


def write_identity(folder: str | Path, identity: Mapping) -> Path:
    """`folder/run_identity.json`, written atomically."""
    from builders.atomic import atomic_write_text

    return atomic_write_text(Path(folder) / RUN_IDENTITY, json.dumps(identity, indent=1, sort_keys=True,
                                                                     default=str) + "\n")


def check_same_run(checkpoint: str | Path, identity: Mapping) -> bool:
    """A CheckpointError naming every difference when `checkpoint` was written by another run; False (and a
    notice) when it records no identity (written by an older version); True when it is this run."""
    path = Path(checkpoint) / RUN_IDENTITY
    if not path.is_file():
        logger.warning("%s records no run identity (written by an older version): only its model and batch size are "
                       "checked against this run", checkpoint)
        return False
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CheckpointError(f"--resume_from_checkpoint {checkpoint}: {RUN_IDENTITY} is unreadable ({error}); "
                              "resume from another checkpoint or start afresh with --overwrite_output_dir") from None
    found = differences(saved, identity)
    if found:
        shown = "; ".join(found[:6]) + (f"; and {len(found) - 6} more" if len(found) > 6 else "")
        raise CheckpointError(f"--resume_from_checkpoint {checkpoint}: this would be a different run ({shown}); "
                              "resume with the data and flags of that run, or start afresh with "
                              "--overwrite_output_dir or another --output_dir")
    return True
