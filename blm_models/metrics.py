"""Evaluation of BLM picks: accuracy (the papers' F1: one pick per instance) and what the wrong picks were."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from transformers import EvalPrediction

from .data import ERROR_CLASSES, IGNORE_INDEX

LABEL_PREFIX = "picks_label_"
CLASS_PREFIX = "picks_class_"


def pick_highest_score(logits: torch.Tensor | tuple, labels: object = None) -> torch.Tensor:
    """Reduce candidate scores to the picked index before gathering (Trainer's preprocess_logits_for_metrics)."""
    scores = logits[0] if isinstance(logits, (tuple, list)) else logits
    return scores.argmax(dim=-1)


def summarise_picks(
    picks: np.ndarray,
    gold: np.ndarray,
    answer_label_ids: np.ndarray | None,
    answer_class_ids: np.ndarray | None,
    label_names: Sequence[str],
    class_names: Sequence[str] = ERROR_CLASSES,
) -> dict[str, float]:
    """Accuracy, and the number of picks of each answer label and of each error class (flat, Trainer-loggable);
    counts are left out when their ids are not given."""
    picks = np.asarray(picks).reshape(-1).astype(np.int64)
    gold = np.asarray(gold).reshape(-1).astype(np.int64)
    rows = np.arange(len(picks))
    metrics: dict[str, float] = {"accuracy": float((picks == gold).mean()) if len(picks) else 0.0}
    if answer_label_ids is not None:
        picked_labels = np.asarray(answer_label_ids)[rows, picks]
        for i, name in enumerate(label_names):
            metrics[LABEL_PREFIX + name] = int((picked_labels == i).sum())
        unknown = int(((picked_labels == IGNORE_INDEX) | (picked_labels < 0)).sum())
        if unknown:
            metrics[LABEL_PREFIX + "UNKNOWN"] = unknown
    if answer_class_ids is not None:
        picked_classes = np.asarray(answer_class_ids)[rows, picks]
        for i, name in enumerate(class_names):
            metrics[CLASS_PREFIX + name] = int((picked_classes == i).sum())
    return metrics


def nest_metrics(flat: dict[str, float], prefix: str = "") -> dict[str, object]:
    """Turn `{prefix}picks_label_X` keys into `picks_per_label: {X: n}` (and the same for classes) for metrics.json."""
    nested: dict[str, object] = {"picks_per_label": {}, "picks_per_class": {}}
    for key, value in flat.items():
        name = key[len(prefix) :] if prefix and key.startswith(prefix) else key
        if name.startswith(LABEL_PREFIX):
            nested["picks_per_label"][name[len(LABEL_PREFIX) :]] = int(value)
        elif name.startswith(CLASS_PREFIX):
            nested["picks_per_class"][name[len(CLASS_PREFIX) :]] = int(value)
        else:
            nested[name] = value
    return nested


class BlmMetrics:
    """`compute_metrics` for `BlmTrainer` (or a plain `Trainer` with `pick_highest_score`): predictions are picked
    indices; label_ids are (gold, label ids, class ids) as `BlmTrainer` gathers them, or the gold indices and label
    ids a plain `Trainer` gathers (it takes the forward arguments whose names hold "label")."""

    def __init__(self, label_names: Sequence[str], class_names: Sequence[str] = ERROR_CLASSES) -> None:
        self.label_names = list(label_names)
        self.class_names = list(class_names)

    def __call__(self, prediction: EvalPrediction) -> dict[str, float]:
        label_ids = prediction.label_ids
        gold, answer_label_ids, answer_class_ids = ((label_ids, None, None) if not isinstance(label_ids, (tuple, list))
                                                    else (*label_ids, None, None)[:3])
        return summarise_picks(
            prediction.predictions, gold, answer_label_ids, answer_class_ids, self.label_names, self.class_names
        )
