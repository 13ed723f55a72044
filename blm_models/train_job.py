"""One training run, as `train.py` starts it: data -> sentence table -> model -> BlmTrainer -> metrics.json.

`main` is the command line: an expected failure (bad flag, missing data, unusable checkpoint, diverging loss)
is one line on stderr and exit status 2 (`BLM_DEBUG=1` shows the traceback); `run_training` raises instead.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import platform
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import datasets
import torch
from accelerate import PartialState
from transformers import EarlyStoppingCallback, PreTrainedTokenizerBase, TrainerCallback, TrainingArguments, set_seed
from transformers.trainer_callback import PrinterCallback, ProgressCallback

from hub_cards.model_card import write_model_card

from .argument_checks import check_hidden_layer, resume_request
from .arguments import DataArguments, EncoderArguments, HeadArguments, parse_arguments
from .checkpoints import check_resume_compatible, choose_checkpoint
from .collator import CachedEmbeddingCollator, FrozenStateCollator, TokenizingCollator
from .data import (
    ERROR_CLASSES,
    IndexedBlmDataset,
    SentenceIndex,
    answer_label_vocabulary,
    carve_validation,
    context_length_of,
    load_splits,
    subsample,
)
from .console import QuietProgress, console, is_verbose, summary
from .embedding_cache import EmbeddingCache, EncoderKey, SentenceEmbedder
from .encoders import encoder_revision_id, load_encoder, resolve_encoder_name
from .errors import BlmError, DataError, UsageError, report_errors
from .finetune import cached_path_agrees, check_train_top_layers, frozen_state_table
from .metrics import nest_metrics
from .modeling import BlmModel
from .precision import cpu_description
from .push import check_hub_access, push_checkpoint
from builders.atomic import atomic_write_text
from builders.locks import LockedError, locked

from .run_identity import check_same_run, data_digest, run_identity
from .predictions import write_test_predictions
from .run_folder import check_output_dir, discard_previous_run, set_aside_previous_run, share_run_files
from .trainer import BlmTrainer, parameter_digest

logger = logging.getLogger(__name__)
METRICS_FILE = "metrics.json"


def _data_flag(config: str | None, path: str | None) -> str:
    """The flags that named some data, as the user gave them."""
    parts = [f"--dataset_path {path}" if path else "", f"--dataset_config {config}" if config else ""]
    return " ".join(part for part in parts if part) or "--dataset_config/--dataset_path"


def load_checked_splits(config: str | None, path: str | None, flag_prefix: str = "", size: int | None = None,
                        seed: int = 42, progress: bool = False) -> datasets.DatasetDict:
    """`load_splits`, with any failure to load as a DataError naming the flags; empty train/test splits are errors."""
    flag = _data_flag(config, path).replace("--", f"--{flag_prefix}")
    try:
        loaded = load_splits(config, path, size=size, seed=seed, progress=progress)
    except BlmError:
        raise
    except (ValueError, OSError, KeyError) as error:  # the loader's own message says what is wrong
        message = " ".join(str(error).split()) or type(error).__name__
        message = message.replace("--size ", "--dataset_size ")  # train.py's name for it
        if isinstance(error, OSError) and error.errno == errno.EROFS:
            message += ("; the datasets cache is read-only: point HF_DATASETS_CACHE (or HF_HOME) at a writable "
                        "folder, or read the data from an export with --dataset_path")
        raise DataError(f"{flag}: {message}" if config or path else message) from error
    except IndexError as error:  # datasets fails this way on a saved split with no rows (0 shards)
        raise DataError(f"{flag}: cannot be loaded (IndexError: {error}); check that it holds 'train' and 'test' "
                        "splits with rows, and save or generate it again") from error
    for split in ("train", "test"):
        if split in loaded and len(loaded[split]) == 0:
            raise DataError(f"{flag}: the {split!r} split is empty; generate or export the data again")
    return loaded


def prepare_splits(data_args: DataArguments, seed: int, progress: bool = False) -> datasets.DatasetDict:
    """train (sampled), validation (carved from train) and test splits."""
    generation = {"size": data_args.dataset_size, "seed": data_args.dataset_seed, "progress": progress}
    loaded = load_checked_splits(data_args.dataset_config, data_args.dataset_path, **generation)
    test = loaded["test"]
    if data_args.test_dataset_config or data_args.test_dataset_path:
        test = load_checked_splits(data_args.test_dataset_config, data_args.test_dataset_path, "test_",
                                   **generation)["test"]
    train, validation = sample_train_validation(loaded["train"], data_args, seed)
    return datasets.DatasetDict({"train": train, "validation": validation, "test": test})


def sample_train_validation(
    train: datasets.Dataset, data_args: DataArguments, seed: int
) -> tuple[datasets.Dataset, datasets.Dataset]:
    """At most --max_train_instances of train, with --validation_fraction of them carved off for selection."""
    train = subsample(train, data_args.max_train_instances, seed)
    return carve_validation(train, data_args.validation_fraction, seed)


def resolve_resume(training_args: TrainingArguments, world_size: int = 1) -> str | None:
    """The checkpoint to resume from, checked: a path, or the newest good one in output_dir for `last`/`true`
    (incomplete or corrupt ones skipped with a notice); a CheckpointError when there is none."""
    return choose_checkpoint(training_args.output_dir, resume_request(training_args), world_size,
                             bool(getattr(training_args, "reset_optimizer_state", False)))


def gather_parameter_digests(model: torch.nn.Module) -> list[str]:
    """Each rank's parameter digest, in rank order (one entry without torch.distributed)."""
    digest = parameter_digest(model)
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        gathered: list[str | None] = [None] * torch.distributed.get_world_size()
        torch.distributed.all_gather_object(gathered, digest)
        return [str(item) for item in gathered]
    return [digest]


def best_epoch(state) -> float | None:
    """The epoch of the best validation accuracy (the checkpoint kept), from the Trainer's log."""
    if state.best_metric is None:
        return None
    return next((entry.get("epoch") for entry in state.log_history
                 if entry.get("eval_accuracy") == state.best_metric), None)


def versions() -> dict[str, str]:
    """Versions of Python and the libraries a result depends on."""
    found = {"python": platform.python_version(), "platform": platform.platform()}
    for package in ("blm-toolkit", "torch", "transformers", "datasets", "accelerate", "safetensors", "tokenizers"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def precision_record(training_args: TrainingArguments) -> dict:
    """What --bf16 asked for, whether bfloat16 ran, and why (BlmTrainingArguments resolves `auto`)."""
    choice = getattr(training_args, "precision", None)
    if choice is not None:
        return choice.as_dict()
    return {"requested": str(training_args.bf16).lower(), "bf16": bool(training_args.bf16), "reason": "as passed"}


def hardware_record(training_args: TrainingArguments) -> dict:
    """The CPU (model, torch capability, native bfloat16 flags) and the GPU trained on, with its peak memory."""
    gpu = None
    if torch.cuda.is_available() and not training_args.use_cpu:
        gpu = {"name": torch.cuda.get_device_name(),
               "peak_memory_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2)}
    return {"cpu": cpu_description(), "gpu": gpu}


def build_collator(sentences, encoder, tokenizer, encoder_args, data_args, state, device, revision: str):
    """Cached-embedding collator for a frozen encoder: every unique sentence embedded once (through the embedding
    cache), the encoder computing no layer above the pooled one."""
    key = EncoderKey(
        name=encoder_args.encoder,
        revision=revision,
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


def build_finetuning_collator(sentences, model: BlmModel, tokenizer, encoder_args, device):
    """Collator for fine-tuning: with --train_top_layers, the frozen layers below the trained ones run once per
    sentence and batches carry their token states; otherwise batches carry token ids."""
    top_layers = encoder_args.train_top_layers
    if top_layers and cached_path_agrees(model.encoder.to(device), tokenizer, sentences, top_layers,
                                         encoder_args.max_length):
        table = frozen_state_table(model.encoder, tokenizer, sentences, top_layers, encoder_args.max_length,
                                   encoder_args.embedding_batch_size)
        return FrozenStateCollator(table), {"frozen_layers_cached": True}
    if top_layers:
        logger.warning("the layers below the top %d of %s run at every step (their cached states did not reproduce "
                       "its forward pass)", top_layers, type(model.encoder).__name__)
    return TokenizingCollator(sentences, tokenizer, encoder_args.max_length), {"frozen_layers_cached": False}


def training_callbacks(training_args, callbacks: list[TrainerCallback] | None) -> list[TrainerCallback]:
    """The caller's callbacks, plus early stopping on validation accuracy unless --early_stopping_patience 0."""
    chosen = list(callbacks or [])
    patience = int(getattr(training_args, "early_stopping_patience", 0) or 0)
    if patience:
        chosen += [EarlyStoppingCallback(early_stopping_patience=patience), StopAtPerfectValidation()]
    return chosen


class StopAtPerfectValidation(TrainerCallback):
    """With early stopping, training ends once validation accuracy is 1: no later epoch can be better, so the best
    checkpoint (the earliest best) and every result stay what they would have been."""

    def on_evaluate(self, args, state, control, metrics=None, **kwargs):
        if args.metric_for_best_model == "accuracy" and (metrics or {}).get("eval_accuracy", 0.0) >= 1.0:
            control.should_training_stop = True


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
    encoder_revision: str


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
    index = SentenceIndex(label_names, ERROR_CLASSES)
    indexed = {name: index.index(split) for name, split in splits.items()}

    encoder, tokenizer = load_encoder(encoder_args.encoder, encoder_args.encoder_revision)
    check_hidden_layer(encoder, encoder_args.hidden_layer)
    check_train_top_layers(encoder, encoder_args.hidden_layer, encoder_args.train_top_layers)
    revision = encoder_revision_id(resolve_encoder_name(encoder_args.encoder), encoder_args.encoder_revision, encoder)
    if not encoder_args.train_encoder:
        collator, cache_stats = build_collator(index.sentences, encoder, tokenizer, encoder_args, data_args, state,
                                               training_args.device, revision)
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
        train_top_layers=encoder_args.train_top_layers,
        context_length=context_length,
        answer_label_names=label_names,
        error_class_names=list(ERROR_CLASSES),
        **head_args.config_kwargs(),
    )
    if encoder_args.train_encoder:
        collator, cache_stats = build_finetuning_collator(index.sentences, model, tokenizer, encoder_args,
                                                          training_args.device)
    trainer = BlmTrainer(
        model=model,
        args=training_args,
        data_collator=collator,
        train_dataset=indexed["train"],
        eval_dataset=indexed["validation"],
        processing_class=tokenizer if encoder_args.train_encoder else None,
        callbacks=training_callbacks(training_args, callbacks),
        encoder_learning_rate=encoder_args.encoder_learning_rate if encoder_args.train_encoder else None,
        reset_optimizer_state=bool(getattr(training_args, "reset_optimizer_state", False)),
        train_groups=(list(splits["train"]["lemma"]) if getattr(training_args, "group_by_lemma", False) else None),
        input_hint=(f"the embedding cache {cache_stats['cache_dir']}" if "cache_dir" in cache_stats
                    else f"the data or the encoder {encoder_args.encoder}"),
    )
    return PreparedRun(trainer, tokenizer, model, indexed, index, label_names, context_length, cache_stats, revision)


def use_quiet_console(trainer: BlmTrainer, training_args: TrainingArguments) -> None:
    """One progress bar instead of the Trainer's bars and log dictionaries (those only with --log_level info)."""
    trainer.remove_callback(ProgressCallback)
    trainer.remove_callback(PrinterCallback)
    trainer.add_callback(QuietProgress(verbose=is_verbose(training_args)))


def run_training(argv: list[str] | None = None, callbacks: list[TrainerCallback] | None = None) -> dict:
    """Train, select on validation, test, and write the card and metrics.json; returns what it wrote.
    Expected failures raise a BlmError (`main` turns it into one line and exit status 2)."""
    data_args, encoder_args, head_args, training_args = parse_arguments(argv)
    # --push_to_hub uploads checkpoint + card in one commit at the end (hub_cards), not the
    # Trainer's per-save pushes
    push_to_hub, training_args.push_to_hub = training_args.push_to_hub, False
    if push_to_hub:  # before any work: an unreachable Hub or a missing token fails now, not after training
        check_hub_access(hub_repo_id(training_args), token=training_args.hub_token)
    state = PartialState()
    with console(training_args, state.is_main_process):
        return _train(data_args, encoder_args, head_args, training_args, state, callbacks, push_to_hub)


def hub_repo_id(training_args: TrainingArguments) -> str:
    """The repo --push_to_hub uploads to: --hub_model_id, else the --output_dir folder's name (in the user's
    namespace)."""
    return training_args.hub_model_id or Path(training_args.output_dir).name


def _train(data_args, encoder_args, head_args, training_args, state, callbacks, push_to_hub) -> dict:
    """The run, holding the --output_dir lock (the main process only: the ranks of one run share the folder)."""
    lock = locked(training_args.output_dir, "--output_dir") if state.is_main_process else contextlib.nullcontext()
    try:
        with lock:
            return _train_locked(data_args, encoder_args, head_args, training_args, state, callbacks, push_to_hub)
    except LockedError as error:
        raise UsageError(str(error)) from None


def _train_locked(data_args, encoder_args, head_args, training_args, state, callbacks, push_to_hub) -> dict:
    output_dir = Path(training_args.output_dir)
    check_output_dir(output_dir, training_args.overwrite_output_dir, resume_request(training_args))
    checkpoint = resolve_resume(training_args, state.num_processes)
    torch.set_flush_denormal(True)  # tiny gradients late in training otherwise slow CPU training several-fold
    set_seed(training_args.seed)
    splits = prepare_splits(data_args, training_args.seed, progress=state.is_local_main_process)
    run = prepare_run(splits, data_args, encoder_args, head_args, training_args, state, callbacks)
    trainer, indexed, index = run.trainer, run.indexed, run.index
    use_quiet_console(trainer, training_args)
    precision = precision_record(training_args)
    logger.info("precision: %s (%s)", "bfloat16" if precision["bf16"] else "fp32", precision["reason"])
    if precision["bf16"] and precision.get("native") is False:
        logger.warning("--bf16 true on hardware without native bfloat16 runs emulated and slower than fp32; "
                       "--bf16 auto (the default) picks fp32 here")
    trainer.run_identity = run_identity(
        data=data_digest(indexed, index.sentences), encoder_revision=run.encoder_revision,
        model_config=run.model.config, arguments={"data": vars(data_args), "encoder": vars(encoder_args),
                                                  "head": vars(head_args)},
        training_args=training_args, world_size=state.num_processes)
    if checkpoint is not None and not check_same_run(checkpoint, trainer.run_identity):
        check_resume_compatible(checkpoint, run.model.config, training_args.train_batch_size)
    if training_args.overwrite_output_dir and state.is_main_process:
        set_aside_previous_run(output_dir)  # only now: a failure before training leaves the folder as it was
    state.wait_for_everyone()
    train_result = trainer.train(resume_from_checkpoint=checkpoint)
    for stopper in (EarlyStoppingCallback, StopAtPerfectValidation):  # the final evaluations below are not
        trainer.remove_callback(stopper)                             # "eval_" ones: nothing left to stop
    trainer.save_model(training_args.output_dir)
    if state.is_main_process:
        run.tokenizer.save_pretrained(training_args.output_dir)
        share_run_files(output_dir)
    validation_metrics = trainer.evaluate(indexed["validation"], metric_key_prefix="validation")
    test_metrics = trainer.evaluate(indexed["test"], metric_key_prefix="test")
    write_test_predictions(trainer, indexed["test"], splits["test"], output_dir, write=state.is_main_process)
    digests = gather_parameter_digests(trainer.model)

    report = {
        "test": {**nest_metrics(test_metrics, "test_"), "instances": len(indexed["test"])},
        "validation": {**nest_metrics(validation_metrics, "validation_"), "instances": len(indexed["validation"])},
        "training": {**train_result.metrics, "instances": len(indexed["train"]),
                     "global_step": trainer.state.global_step,
                     "best_checkpoint": trainer.state.best_model_checkpoint, "best_epoch": best_epoch(trainer.state),
                     "early_stopping_patience": training_args.early_stopping_patience,
                     "precision": precision_record(training_args)},
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
        "hardware": hardware_record(training_args),
    }
    if state.is_main_process:
        example = splits["test"][0]
        card = write_model_card(training_args.output_dir, report,
                                {"example": {"context": example["context"], "answers": example["answers"]}})
        # metrics.json is written last: its presence marks a finished run
        path = atomic_write_text(output_dir / METRICS_FILE, json.dumps(report, indent=2, default=str))
        discard_previous_run(output_dir)
        print(summary(report, path, card), flush=True)
        if push_to_hub:
            repo_id = hub_repo_id(training_args)
            try:
                push_checkpoint(output_dir, repo_id, private=bool(training_args.hub_private_repo),
                                token=training_args.hub_token)
            except ValueError as error:
                raise UsageError(f"--push_to_hub: {' '.join(str(error).split())}; the trained model is in "
                                 f"{output_dir}: push it with `blm push-model {output_dir} --repo {repo_id}`") from None
    state.wait_for_everyone()
    return report


def main(argv: list[str] | None = None, callbacks: list[TrainerCallback] | None = None) -> dict:
    """`run_training`, with an expected failure reported as one line on stderr and exit status 2 (SystemExit);
    BLM_DEBUG=1 shows its traceback instead."""
    return report_errors(run_training, argv, callbacks)


def cli() -> None:
    """The `train.py` entry point: `main`, and a one-line message instead of a traceback on Ctrl-C."""
    try:
        main()
    except KeyboardInterrupt:
        print("train.py: interrupted; continue with --resume_from_checkpoint (the checkpoints are in --output_dir)",
              file=sys.stderr)
        raise SystemExit(130) from None
