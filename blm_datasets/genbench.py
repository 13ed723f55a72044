"""Export BLM configs as GenBench tasks (the GenBench CBT layout of its ``blm_tasks``).

A task is a folder ``<config>/`` holding:

- ``test.jsonl`` (and ``train.jsonl`` when the config has one): one object per instance,
  ``{"input": "<sentence 1> </s> … </s> <sentence 7>", "target": <gold index>, "target_options": [candidates]}``,
  the layout of GenBench's BLM tasks (genbench_cbt_2023 ``blm_tasks/agr_f``);
- ``config.jsonnet``: a ``multiple_choice`` task whose metrics are accuracy and F1 with
  ``compute_extra_kwargs: {average: 'macro'}``. GenBench's BLM configs name ``f1`` without it, so
  the HF metric falls back to binary F1; the papers report macro-F1 (001 Table 2).

``score`` computes a config's metrics on predictions as GenBench's ``evaluate_predictions`` does
for integer targets (the HF ``f1``/``accuracy`` metrics wrap these sklearn functions).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from blm_datasets.export_folder import replace_folder, staging_folder
from builders.atomic import atomic_write_text
from builders.errors import InputError

SEPARATOR = " </s> "   # GenBench's BLM tasks: "separated by the end of sentence marker (</s>)"
# the HF metric revisions GenBench's BLM tasks pin
METRICS = [
    {"hf_id": "accuracy", "git_commit_sha": "34d6add55811828baef83e0d7c6826e2193f7b6a", "best_score": 1.0},
    {"hf_id": "f1", "git_commit_sha": "3a4c40f7397dcd7d9dccf0659616dc6b14072dcb", "best_score": 1.0,
     "compute_extra_kwargs": {"average": "macro"}},
]


def to_genbench(row: Mapping[str, Any]) -> dict[str, Any]:
    """One BLM record as a GenBench multiple-choice example."""
    return {"input": SEPARATOR.join(row["context"]), "target": int(row["label"]),
            "target_options": list(row["answers"])}


def task_config(name: str, splits: Sequence[str], description: str) -> dict[str, Any]:
    """The GenBench ``config.jsonnet`` content of one exported config (data files named relative to it)."""
    return {
        "name": f"BLM ({name})",
        "description": description,
        "keywords": ["Blackbird Language Matrices", "rule-like generalization", "underlying problem structure"],
        "authors": ["BLM toolkit export"],
        "data_source": {"type": "manual", **{s: f"{s}.jsonl" for s in splits}},
        "has_validation_set": "validation" in splits,
        "has_train_set": "train" in splits,
        "task_type": "multiple_choice",
        "field_mapping": {"input": "input", "target": "target", "target_options": "target_options"},
        "evaluation_metrics": METRICS,
        "preparation_strategies": {"finetuning": {"objective": "maximum_likelihood"},
                                   "prompt_based_testing": {"prompt_builder": {
                                       "instruction_zero_shot": "", "input_prefix": "", "output_prefix": "\n",
                                       "append_choices_to_input": True, "choices_prefix": "\n",
                                       "choice_item_prefix": "", "choice_item_postfix": "\n",
                                       "permute_choices": False}}},
    }


def write_task(name: str, splits: Mapping[str, Iterable[Mapping[str, Any]]], out: str | Path, description: str,
               overwrite: bool = False) -> Path:
    """Write one config as the GenBench task folder ``out/<name>`` (staged, then renamed into place)."""
    out = Path(out)
    target = out / name
    if target.exists() and not overwrite:
        raise InputError(f"--out {out}: {target} exists; pass --overwrite to replace it, or choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    staging = staging_folder(out, name)
    try:
        written = []
        for split, rows in splits.items():
            lines = [json.dumps(to_genbench(row), ensure_ascii=False) for row in rows]
            if lines:
                atomic_write_text(staging / f"{split}.jsonl", "\n".join(lines) + "\n", fsync=False)
                written.append(split)
        if "test" not in written:
            raise InputError(f"{name} has no test split to export as a GenBench task; it has: {', '.join(written)}")
        config = task_config(name, written, description)
        atomic_write_text(staging / "config.jsonnet", "// GenBench task config written by `blm export --format "
                          "genbench`; point data_source at the URLs where the .jsonl files are hosted\n"
                          + json.dumps(config, indent=2, ensure_ascii=False) + "\n", fsync=False)
        replace_folder(staging, target)   # the old task stays until the new one is in place
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def load_config(path: str | Path) -> dict[str, Any]:
    """A ``config.jsonnet`` this module wrote (JSON after its ``//`` comment lines)."""
    text = Path(path).read_text(encoding="utf-8")
    return json.loads("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")))


def score(config: Mapping[str, Any], gold: Sequence[Mapping[str, Any]], predictions: Sequence[int]) -> dict[str, float]:
    """Each metric of a GenBench ``config`` on integer predictions, keyed as GenBench keys them (``hf_f1__f1``)."""
    from sklearn.metrics import accuracy_score, f1_score

    functions = {"f1": f1_score, "accuracy": accuracy_score}
    refs = [int(g["target"]) for g in gold]
    out = {}
    for metric in config["evaluation_metrics"]:
        value = functions[metric["hf_id"]](refs, list(predictions), **(metric.get("compute_extra_kwargs") or {}))
        out[f"hf_{metric['hf_id']}__{metric['hf_id']}"] = float(value)
    return out
