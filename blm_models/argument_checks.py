"""Checks of train.py's flag values before anything is loaded: each failure names the flag and the value asked for.

Kept apart from the dataclasses so the same checks apply to `train.py`, `blm grid` and any caller of
`parse_arguments`, whatever the dataclasses look like (DataArguments is read by attribute only).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from .errors import UsageError


def _shown(value: object) -> str:
    """A value as the user typed it: 1e-05 rather than 1.0000000000000001e-05, -1 rather than -1.0."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def resume_request(training_args) -> str | None:
    """What --resume_from_checkpoint asks for: None (start afresh), "last", or a checkpoint path."""
    value = training_args.resume_from_checkpoint
    if value is None or str(value).strip().lower() in ("", "false", "no", "none", "0"):
        return None
    if str(value).strip().lower() in ("last", "true", "yes", "1"):
        return "last"
    return str(value)


def _problems(data_args, encoder_args, head_args, training_args) -> Iterator[str]:
    """One message per flag whose value cannot work."""
    positive = [
        ("learning_rate", training_args.learning_rate),
        ("encoder_learning_rate", encoder_args.encoder_learning_rate),
        ("margin", head_args.margin),
    ]
    if training_args.max_steps is None or training_args.max_steps <= 0:  # --max_steps N overrides the epochs
        positive.insert(0, ("num_train_epochs", training_args.num_train_epochs))
    for flag, value in positive:
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            yield f"--{flag} {_shown(value)}: must be > 0"
    at_least_one = [
        ("per_device_train_batch_size", training_args.per_device_train_batch_size),
        ("per_device_eval_batch_size", training_args.per_device_eval_batch_size),
        ("gradient_accumulation_steps", training_args.gradient_accumulation_steps),
        ("embedding_batch_size", encoder_args.embedding_batch_size),
        ("max_length", encoder_args.max_length),
        ("latent_size", head_args.latent_size),
        ("task_latent_size", head_args.task_latent_size),
        ("task_hidden_size", head_args.task_hidden_size),
        ("vae_channels", head_args.vae_channels),
        ("vae_kernel_size", head_args.vae_kernel_size),
    ]
    for flag, value in at_least_one:
        if value is None or value < 1:
            yield f"--{flag} {_shown(value)}: must be >= 1"
    if any(channels < 1 for channels in head_args.cnn_channels) or not head_args.cnn_channels:
        yield f"--cnn_channels {' '.join(map(str, head_args.cnn_channels))}: each must be >= 1"
    for flag, value in (("kl_weight", head_args.kl_weight), ("weight_decay", training_args.weight_decay)):
        if not (math.isfinite(value) and value >= 0):
            yield f"--{flag} {_shown(value)}: must be >= 0"
    if training_args.dataloader_num_workers < 0:
        yield (f"--dataloader_num_workers {training_args.dataloader_num_workers}: must be >= 0 (0 loads in the main "
               "process)")
    fraction = getattr(data_args, "validation_fraction", None)
    if fraction is not None and not (0 < fraction < 1):
        yield f"--validation_fraction {_shown(fraction)}: must be between 0 and 1 (exclusive), e.g. 0.2"
    limit = getattr(data_args, "max_train_instances", None)
    if limit is not None and limit < 0:
        yield f"--max_train_instances {limit}: must be >= 0 (0 uses all of train)"
    elif limit == 1:
        yield "--max_train_instances 1: must be 0 (all) or at least 2 (one to train on, one to validate on)"
    if encoder_args.hidden_layer < -1:
        yield (f"--hidden_layer {encoder_args.hidden_layer}: must be -1 (the last layer), 0 (the input embeddings) "
               "or a layer number")
    if training_args.reset_optimizer_state and not resume_request(training_args):
        yield "--reset_optimizer_state only applies with --resume_from_checkpoint"
    if training_args.overwrite_output_dir and resume_request(training_args):
        yield ("--overwrite_output_dir and --resume_from_checkpoint contradict each other: resume continues the run "
               "in --output_dir, overwrite replaces it; give one")


def check_arguments(data_args, encoder_args, head_args, training_args) -> None:
    """Raise a UsageError listing every flag whose value cannot work (`--num_train_epochs -1: must be > 0`)."""
    problems = list(_problems(data_args, encoder_args, head_args, training_args))
    if problems:
        raise UsageError("; ".join(problems))


def check_hidden_layer(encoder, layer: int) -> None:
    """--hidden_layer against the encoder's depth (known only once it is loaded)."""
    config = encoder.config
    depth = next((getattr(config, name) for name in ("num_hidden_layers", "n_layer", "num_layers")
                  if isinstance(getattr(config, name, None), int)), None)
    if depth is not None and not -1 <= layer <= depth:
        raise UsageError(f"--hidden_layer {layer}: this encoder has layers 0 (the input embeddings) to {depth}; "
                         "-1 is the last")
