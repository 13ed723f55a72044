"""Functions the BLM task YAMLs of lm-evaluation-harness call (``!function utils.…``).

Data source of every task, first found: ``--metadata '{"blm_path": DIR_OR_REPO}'``, the environment
variable ``BLM_DATASET_PATH``, the ``default_path`` baked into the YAMLs by ``generate.py
--dataset-path``, else the toolkit's own generator (``load_dataset("blm", config)``, offline).
A task generated for a dataset carries its ``data_digest`` and stops, in one line, on other data.
Each task scores a fixed item set with prompts made by ``blm_eval.protocols`` (the code `blm llm-eval`
runs), so both give the same numbers; macro-F1 is ``llm_eval.macro_f1`` (invalid answers count wrong).
"""

from __future__ import annotations

import os
from typing import Any

import datasets

from blm_datasets.sources import load_source
from blm_eval import protocols
from blm_eval.answer_extraction import extract_answer
from blm_eval.llm_eval import macro_f1 as _macro_f1
from blm_eval.prompts import letters

ENV_VAR = "BLM_DATASET_PATH"


class TaskDataError(SystemExit):
    """Stops the harness with one line (no traceback); a Python caller can catch it."""


def load_task_data(blm_config: str, prompt_lang: str = "en", shots: int = 0, samples: int = 100, item_seed: int = 0,
             data_digest: str | None = None, default_path: str | None = None, blm_path: str | None = None,
             **_metadata: Any) -> datasets.DatasetDict:
    """The task's fixed items (``test``), each with its ``prompt``, from the first data source that is set."""
    source = blm_path or os.environ.get(ENV_VAR) or default_path or "blm"
    where = f"BLM task data {source} ({blm_config})"
    try:
        splits = load_source(source, blm_config)
    except ValueError as err:
        raise TaskDataError(f"{where}: {err}") from None
    if data_digest is not None:
        found = protocols.data_digest(splits, blm_config)
        if found != data_digest:
            raise TaskDataError(
                f"{where}: data digest {found}, but the task was generated for {data_digest}; pass the data it was "
                f"generated from (--metadata '{{\"blm_path\": DIR}}'), or regenerate the tasks for this data: "
                f"python -m blm_eval.lm_eval_tasks.generate --dataset-path {source} --out DIR")
    if "test" not in splits or len(splits["test"]) == 0:
        raise TaskDataError(f"{where}: no test rows; export the config with a test split")
    if shots and len(splits.get("train", [])) < shots:
        raise TaskDataError(f"{where}: {shots}-shot prompts need a train split to draw examples from")
    variant = protocols.Variant(prompt_lang, shots)
    indices, texts = protocols.fixed_items(splits["test"], splits.get("train"), variant, samples=samples,
                                           item_seed=item_seed, config=blm_config)
    return datasets.DatasetDict({"test": splits["test"].select(indices).add_column("prompt", texts)})


def doc_to_prompt(doc: dict) -> str:
    """The prompt; loglik scores each letter after ``target_delimiter`` "\\n"."""
    return doc["prompt"]


def doc_to_prefix(doc: dict) -> str:
    """What generation continues: the prompt and a newline, as `blm llm-eval` without a chat template."""
    return doc["prompt"] + "\n"


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


def process_results_generation(doc: dict, results: list[str]) -> dict[str, Any]:
    """The letter read from the generated text (``answer_extraction``); none readable = invalid and wrong."""
    choices = letters(len(doc["answers"]))
    pred, _rule = extract_answer(results[0], choices, doc["answers"])
    gold = choices[doc["label"]]
    return {"acc": float(pred == gold), "f1_macro": (gold, pred), "invalid": float(pred is None)}


def process_results_sentence(doc: dict, results: list) -> dict[str, Any]:
    """acc, acc_norm (log-likelihood per character of the candidate) and the macro-F1 pair."""
    gold, pred, pred_norm = _picks(doc, results)
    choices = letters(len(doc["answers"]))
    return {"acc": float(pred == gold), "acc_norm": float(pred_norm == gold),
            "f1_macro": (choices[gold], choices[pred])}


def macro_f1(items: list[tuple[str, str | None]]) -> float:
    """Macro-F1 over option letters (001 Table 2's measure), `blm llm-eval`'s function."""
    gold, pred = zip(*items)
    return _macro_f1(gold, pred)
