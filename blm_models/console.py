"""What train.py shows: one progress bar while training, one-line notices, and a short summary at the end.

The Trainer's own console output (a dictionary per logging step and per evaluation, a bar per evaluation,
library warnings and weight-writing bars) is shown only with `--log_level info` (or debug); metrics.json
records everything either way.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator, Mapping

from tqdm.auto import tqdm
from transformers import TrainerCallback
from transformers.utils import logging as hf_logging

VERBOSE_LEVELS = ("info", "debug", "detail")


def is_verbose(training_args) -> bool:
    """True when --log_level asks for the Trainer's detail."""
    return str(getattr(training_args, "log_level", "passive")).lower() in VERBOSE_LEVELS


class _NoticeFormatter(logging.Formatter):
    """`warning: ...` for warnings and errors, the bare message for information."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        return message if record.levelno < logging.WARNING else f"{record.levelname.lower()}: {message}"


@contextlib.contextmanager
def console(training_args, is_main_process: bool = True) -> Iterator[None]:
    """Route the toolkit's notices to stderr (warnings; information too when verbose) and quieten the libraries
    unless --log_level asks for detail; everything is restored on exit."""
    verbose = is_verbose(training_args)
    package = logging.getLogger("blm_models")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_NoticeFormatter())
    level = (logging.INFO if verbose else logging.WARNING) if is_main_process else logging.ERROR
    handler.setLevel(level)
    previous_level = package.level
    package.setLevel(level)
    package.addHandler(handler)
    hf_verbosity = hf_logging.get_verbosity()
    bars_on = hf_logging.is_progress_bar_enabled()
    if not verbose:
        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()  # "Writing model shards" at every save
    try:
        yield
    finally:
        package.removeHandler(handler)
        package.setLevel(previous_level)
        if not verbose:
            hf_logging.set_verbosity(hf_verbosity)
            if bars_on:
                hf_logging.enable_progress_bar()


class QuietProgress(TrainerCallback):
    """One progress bar over the training steps, with the last loss and validation accuracy beside it; the
    Trainer's log dictionaries are written only when verbose."""

    def __init__(self, verbose: bool = False) -> None:
        self.verbose = verbose
        self.bar = None
        self.postfix: dict[str, str] = {}

    def on_train_begin(self, args, state, control, **kwargs):
        if state.is_world_process_zero and not args.disable_tqdm:
            self.bar = tqdm(total=state.max_steps, initial=state.global_step, desc="training", unit="step",
                            dynamic_ncols=True)

    def on_step_end(self, args, state, control, **kwargs):
        if self.bar is not None:
            self.bar.update(state.global_step - self.bar.n)

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not state.is_world_process_zero or not logs:
            return
        if "loss" in logs:
            self.postfix["loss"] = f"{logs['loss']:.4g}"
        if "eval_accuracy" in logs:
            self.postfix["val acc"] = f"{logs['eval_accuracy']:.3f}"
        if self.bar is not None:
            self.bar.set_postfix(self.postfix, refresh=False)
        if self.verbose:
            shown = {key: value for key, value in logs.items() if key != "total_flos"}
            (self.bar.write if self.bar is not None else print)(str(shown))

    def on_train_end(self, args, state, control, **kwargs):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def precision_line(precision: Mapping | None) -> str:
    """`fp32 (--bf16 auto: CPU has no native bfloat16 ...)`, from metrics.json's training.precision."""
    if not precision:
        return "unknown"
    return f"{'bfloat16' if precision['bf16'] else 'fp32'} (--bf16 {precision['requested']}: {precision['reason']})"


def summary(report: Mapping, metrics_path, card_path) -> str:
    """The few lines train.py ends with: test accuracy, picks per error class, where the results are."""
    test, validation = report["test"], report["validation"]
    classes = " ".join(f"{name} {count}" for name, count in test.get("picks_per_class", {}).items())
    lines = [
        f"test accuracy {test['accuracy']:.4f} on {test['instances']} instances "
        f"(validation {validation['accuracy']:.4f} on {validation['instances']})",
        f"picks per error class: {classes}",
        f"precision: {precision_line(report['training'].get('precision'))}",
        f"metrics: {metrics_path}",
        f"model card: {card_path}",
    ]
    return "\n".join(lines)
