"""One training run, as `train.py` starts it: data -> sentence table -> model -> BlmTrainer -> metrics.json."""

from __future__ import annotations

import json
import logging
import platform
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import datasets
import torch
from accelerate import PartialState
from transformers import PreTrainedTokenizerBase, TrainerCallback, TrainingArguments, set_seed
from transformers.trainer_utils import get_last_checkpoint

from hub_cards.model_card import push_checkpoint, write_model_card

from .arguments import DataArguments, EncoderArguments, HeadArguments, parse_arguments
from .collator import CachedEmbeddingCollator, TokenizingCollator
from .data import (
    ERROR_CLASS_NAMES,
    IndexedBlmDataset,
    SentenceIndex,
    answer_label_vocabulary,
    carve_validation,
    context_length_of,
    load_splits,
    subsample,
)
from .embedding_cache import EmbeddingCache, EncoderKey, SentenceEmbedder
from .encoders import encoder_revision_id, load_encoder, resolve_encoder_name
from .metrics import nest_metrics
from .modeling import BlmModel
from .trainer import BlmTrainer, parameter_digest

logger = logging.getLogger(__name__)
METRICS_FILE = "metrics.json"


def prepare_splits(data_args: DataArguments, seed: int) -> datasets.DatasetDict:
    """train (sampled), validation (carved from train) and test splits."""
    loaded = load_splits(data_args.dataset_config, data_args.dataset_path)
    test = loaded["test"]
    if data_args.test_dataset_config or data_args.test_dataset_path:
        test = load_splits(data_args.test_dataset_config, data_args.test_dataset_path)["test"]
    train, validation = sample_train_validation(loaded["train"], data_args, seed)
    return datasets.DatasetDict({"train": train, "validation": validation, "test": test})


def sample_train_validation(
    train: datasets.Dataset, data_args: DataArguments, seed: int
) -> tuple[datasets.Dataset, datasets.Dataset]:
    """At most --max_train_instances of train, with --validation_fraction of them carved off for selection."""
    train = subsample(train, data_args.max_train_instances, seed)
    return carve_validation(train, data_args.validation_fraction, seed)


def resolve_resume(training_args: TrainingArguments) -> str | None:
    """The checkpoint to resume from: a path, or the last one in output_dir for `last`/`true`."""
    value = training_args.resume_from_checkpoint
    if value is None or str(value).lower() in ("false", "no", "none"):
        return None
    if str(value).lower() in ("last", "true", "yes", "1"):
        found = get_last_checkpoint(training_args.output_dir) if Path(training_args.output_dir).is_dir() else None
        if found is None:
            raise FileNotFoundError(
                f"--resume_from_checkpoint: no checkpoint-* folder in {training_args.output_dir}; "
                "drop the flag to start afresh, or give a checkpoint path"
            )
        return found
    return str(value)


def gather_parameter_digests(model: torch.nn.Module) -> list[str]:
    """Each rank's parameter digest, in rank order (one entry without torch.distributed)."""
    digest = parameter_digest(model)
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        gathered: list[str | None] = [None] * torch.distributed.get_world_size()
        torch.distributed.all_gather_object(gathered, digest)
        return [str(item) for item in gathered]
    return [digest]


def versions() -> dict[str, str]:
    """Versions of Python and the libraries a result depends on."""
    found = {"python": platform.python_version(), "platform": platform.platform()}
    for package in ("blm-toolkit", "torch", "transformers", "datasets", "accelerate", "safetensors", "tokenizers"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def build_collator(sentences, encoder, tokenizer, encoder_args, data_args, state, device):
    """Cached-embedding collator (frozen encoder, every unique sentence embedded once) or tokenizing one."""
    if encoder_args.train_encoder:
        return TokenizingCollator(sentences, tokenizer, encoder_args.max_length), {}
    key = EncoderKey(
        name=encoder_args.encoder,
        revision=encoder_revision_id(resolve_encoder_name(encoder_args.encoder), encoder_args.encoder_revision, encoder),
        pooling=encoder_args.pooling,
        max_length=encoder_args.max_length,
        layer=encoder_args.hidden_layer,
    )
    embedder = SentenceEmbedder(encoder.to(device), tokenizer, encoder_args.pooling, encoder_args.max_length,
                                encoder_args.embedding_batch_size, encoder_args.hidden_layer)
    cache = EmbeddingCache(data_args.embedding_cache_dir, key)
    table, stats = cache.embed(sentences, embedder, state.process_index, state.num_processes,
                               barrier=state.wait_for_everyone, progress=state.is_local_main_process)
    encoder.to("cpu")
    return CachedEmbeddingCollator(table), {**stats, "cache_dir": str(cache.directory)}


@dataclass
class PreparedRun:
    """A trainer ready to train, with the data it was built from (`main` and `blm grid` share it)."""

    trainer: BlmTrainer
    tokenizer: PreTrainedTokenizerBase
    model: BlmModel
    indexed: dict[str, IndexedBlmDataset]
    index: SentenceIndex
    label_names: list[str]
    context_length: int
    cache_stats: dict


def prepare_run(
    splits: Mapping[str, datasets.Dataset],
    data_args: DataArguments,
    encoder_args: EncoderArguments,
    head_args: HeadArguments,
    training_args: TrainingArguments,
    state: PartialState,
    callbacks: list[TrainerCallback] | None = None,
) -> PreparedRun:
    """Sentence table, embeddings (cached), model and trainer for `splits` ("train" and "validation" plus any
    number of test splits, whose sentences are embedded with the rest)."""
    label_names = answer_label_vocabulary(splits.values())
    context_length = context_length_of(splits.values())
    index = SentenceIndex(label_names, ERROR_CLASS_NAMES)
    indexed = {name: index.index(split) for name, split in splits.items()}

    encoder, tokenizer = load_encoder(encoder_args.encoder, encoder_args.encoder_revision)
    collator, cache_stats = build_collator(index.sentences, encoder, tokenizer, encoder_args, data_args, state,
                                           training_args.device)
    set_seed(training_args.seed)  # the head's initialisation does not depend on what ran before
    model = BlmModel.from_encoder(
        encoder,
        tokenizer=tokenizer,
        encoder_name_or_path=encoder_args.encoder,
        revision=encoder_args.encoder_revision,
        pooling=encoder_args.pooling,
        hidden_layer=encoder_args.hidden_layer,
        max_length=encoder_args.max_length,
        train_encoder=encoder_args.train_encoder,
        context_length=context_length,
        answer_label_names=label_names,
        error_class_names=list(ERROR_CLASS_NAMES),
        **head_args.config_kwargs(),
    )
    trainer = BlmTrainer(
        model=model,
        args=training_args,
        data_collator=collator,
        train_dataset=indexed["train"],
        eval_dataset=indexed["validation"],
        processing_class=tokenizer if encoder_args.train_encoder else None,
        callbacks=callbacks,
        encoder_learning_rate=encoder_args.encoder_learning_rate if encoder_args.train_encoder else None,
    )
    return PreparedRun(trainer, tokenizer, model, indexed, index, label_names, context_length, cache_stats)


def main(argv: list[str] | None = None, callbacks: list[TrainerCallback] | None = None) -> dict:
    """Train, select on validation, test, and write metrics.json; returns what it wrote."""
    data_args, encoder_args, head_args, training_args = parse_arguments(argv)
    # --push_to_hub uploads checkpoint + card in one commit at the end (hub_cards), not the
    # Trainer's per-save pushes
    push_to_hub, training_args.push_to_hub = training_args.push_to_hub, False
    torch.set_flush_denormal(True)  # tiny gradients late in training otherwise slow CPU training several-fold
    state = PartialState()
    set_seed(training_args.seed)
    splits = prepare_splits(data_args, training_args.seed)
    run = prepare_run(splits, data_args, encoder_args, head_args, training_args, state, callbacks)
    trainer, indexed, index = run.trainer, run.indexed, run.index
    train_result = trainer.train(resume_from_checkpoint=resolve_resume(training_args))
    trainer.save_model(training_args.output_dir)
    if state.is_main_process:
        run.tokenizer.save_pretrained(training_args.output_dir)
    validation_metrics = trainer.evaluate(indexed["validation"], metric_key_prefix="validation")
    test_metrics = trainer.evaluate(indexed["test"], metric_key_prefix="test")
    digests = gather_parameter_digests(trainer.model)

    report = {
        "test": {**nest_metrics(test_metrics, "test_"), "instances": len(indexed["test"])},
        "validation": {**nest_metrics(validation_metrics, "validation_"), "instances": len(indexed["validation"])},
        "training": {**train_result.metrics, "instances": len(indexed["train"]),
                     "best_checkpoint": trainer.state.best_model_checkpoint},
        "data": {
            "dataset_config": data_args.dataset_config, "dataset_path": data_args.dataset_path,
            "test_dataset_config": data_args.test_dataset_config, "test_dataset_path": data_args.test_dataset_path,
            "context_length": run.context_length, "answer_labels": run.label_names,
            "sentences": {"occurrences": index.occurrences, "unique": len(index.sentences), **run.cache_stats},
        },
        "config": {
            "data": vars(data_args), "encoder": vars(encoder_args), "head": vars(head_args),
            "model": run.model.config.to_diff_dict(), "training": json.loads(training_args.to_json_string()),
        },
        "distributed": {"world_size": state.num_processes, "parameter_digests": digests},
        "versions": versions(),
    }
    if state.is_main_process:
        path = Path(training_args.output_dir) / METRICS_FILE
        path.write_text(json.dumps(report, indent=2, default=str))
        logger.info("test accuracy %.4f, written to %s", report["test"]["accuracy"], path)
        card = write_model_card(training_args.output_dir, report)
        logger.info("model card written to %s", card)
        if push_to_hub:
            repo_id = training_args.hub_model_id or Path(training_args.output_dir).name
            push_checkpoint(training_args.output_dir, repo_id, private=bool(training_args.hub_private_repo))
    state.wait_for_everyone()
    return report
