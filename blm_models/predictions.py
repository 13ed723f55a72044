"""The per-instance test predictions of a run (``predictions_test.jsonl``): what `blm browse` overlays on a config.

One JSON line per test instance: id, the picked candidate index, the score of every candidate, the gold index.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from builders.atomic import atomic_write_text

PREDICTIONS_FILE = "predictions_test.jsonl"


def candidate_scores(logits, labels=None):
    """Keep the candidate scores (Trainer's preprocess_logits_for_metrics; the default reduces them to picks)."""
    return logits[0] if isinstance(logits, (tuple, list)) else logits


def write_test_predictions(trainer, indexed_test, test_split, output_dir: str | Path, write: bool = True) -> Path:
    """Score `indexed_test` with the trained `trainer` and write one line per instance of `test_split` (same order).
    Every rank scores (predict gathers across processes); only the one with `write` writes."""
    reduce, metrics = trainer.preprocess_logits_for_metrics, trainer.compute_metrics
    trainer.preprocess_logits_for_metrics, trainer.compute_metrics = candidate_scores, None
    try:
        scores = np.asarray(trainer.predict(indexed_test, metric_key_prefix="test").predictions, dtype=float)
    finally:
        trainer.preprocess_logits_for_metrics, trainer.compute_metrics = reduce, metrics
    path = Path(output_dir) / PREDICTIONS_FILE
    if not write:
        return path
    lines = []
    for row, row_scores in zip(test_split, scores):
        own = row_scores[:len(row["answers"])]  # batches are padded to the longest answer set
        lines.append(json.dumps({"id": row["id"], "pick": int(np.argmax(own)), "gold": int(row["label"]),
                                 "scores": [round(float(s), 5) for s in own]}))
    return atomic_write_text(path, "\n".join(lines) + "\n")
