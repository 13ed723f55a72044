"""Functions the BLM task YAMLs of lm-evaluation-harness call (``!function utils.…``).

Data source of every task, first found: ``--metadata '{"blm_path": DIR_OR_REPO}'``, the environment
variable ``BLM_DATASET_PATH``, the ``default_path`` baked into the YAMLs by ``generate.py
--dataset-path``, else the toolkit's own generator (``load_dataset("blm", config)``, offline).
A path is an exported folder (``blm export NAME --out DIR``), a save_to_disk folder or a Hub dataset repo
(``blm_datasets.sources.load_source``: clear errors for an unknown config, a damaged file, the Hub offline).
"""

from __future__ import annotations

import os
from typing import Any

from blm_datasets.sources import load_source
from blm_eval.prompts import letters, render_prompt

ENV_VAR = "BLM_DATASET_PATH"


def load_blm(blm_config: str, default_path: str | None = None, blm_path: str | None = None, **_metadata: Any):
    """The DatasetDict (train, test) of one config from the first data source that is set."""
    return load_source(blm_path or os.environ.get(ENV_VAR) or default_path or "blm", blm_config)


def doc_to_text_en(doc: dict) -> str:
    """The zero-shot English prompt (001 Fig. 8)."""
    return render_prompt(doc, "en")


def doc_to_text_it(doc: dict) -> str:
    """The zero-shot Italian prompt (Fig. 9's wording without the example)."""
    return render_prompt(doc, "it")


def doc_to_letters(doc: dict) -> list[str]:
    """The option letters A, B, … of the instance's answer set."""
    return letters(len(doc["answers"]))


def doc_to_context(doc: dict) -> str:
    """The context sentences, one per line: the answer sentence is scored as the next line."""
    return "\n".join(doc["context"])


def _picks(doc: dict, results: list) -> tuple[int, int, int]:
    """(gold, argmax log-likelihood, argmax log-likelihood per character) of one instance."""
    import numpy as np

    lls = np.array([ll for ll, _ in results])
    lengths = np.array([max(len(a), 1) for a in doc["answers"]], dtype=float)
    return int(doc["label"]), int(np.argmax(lls)), int(np.argmax(lls / lengths))


def process_results_letter(doc: dict, results: list) -> dict[str, Any]:
    """acc and the (gold, predicted) letter pair that macro-F1 aggregates over."""
    gold, pred, _ = _picks(doc, results)
    choices = letters(len(doc["answers"]))
    return {"acc": float(pred == gold), "f1_macro": (choices[gold], choices[pred])}


def process_results_sentence(doc: dict, results: list) -> dict[str, Any]:
    """acc, acc_norm (log-likelihood per character of the candidate) and the macro-F1 pair."""
    gold, pred, pred_norm = _picks(doc, results)
    choices = letters(len(doc["answers"]))
    return {"acc": float(pred == gold), "acc_norm": float(pred_norm == gold),
            "f1_macro": (choices[gold], choices[pred])}


def macro_f1(items: list[tuple[str, str]]) -> float:
    """Macro-F1 over option letters (001 Table 2's measure)."""
    from sklearn.metrics import f1_score

    gold, pred = zip(*items)
    return float(f1_score(gold, pred, labels=sorted(set(gold) | set(pred)), average="macro", zero_division=0))
