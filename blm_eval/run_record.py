"""What a `blm llm-eval` results file records so that two runs can be compared, and the comparison.

``provenance`` describes the code, prompts, data, model and environment of a run; ``compare`` refuses two
results whose protocol or data differ (one line naming the first difference) and otherwise lays their
macro-F1 side by side.
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.metadata
import json
import platform
from pathlib import Path
from typing import Any, Sequence

from builders.digest import code_digest
from builders.errors import InputError

# Fields of a results file that must be equal for two runs to be comparable: what is measured and how.
PROTOCOL_FIELDS = ("protocol", "prompt_hash", "extraction_hash", "scoring", "chat_template", "split",
                   "shot_split", "samples", "runs", "seed", "temperature", "max_new_tokens")
LIBRARIES = ("blm-toolkit", "torch", "transformers", "tokenizers", "datasets", "accelerate")


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def data_digest(rows_by_config: dict[str, Sequence[Any]]) -> str:
    """Digest of the evaluated rows (and one-shot pools) of every config: ids, sentences, labels, gold."""
    sha = hashlib.sha256()
    for config in sorted(rows_by_config):
        sha.update(config.encode())
        for rows in rows_by_config[config]:
            for row in rows or []:
                fields = {k: row[k] for k in ("id", "context", "answers", "answer_labels", "label") if k in row}
                sha.update(json.dumps(fields, sort_keys=True, ensure_ascii=False).encode())
    return sha.hexdigest()[:16]


def provenance(model, *, model_name: str, protocol: str, rows_by_config: dict[str, Sequence[Any]]) -> dict:
    """Toolkit and library versions, prompt and answer-reading code digests, data digest, model id, revision,
    dtype and device, and a UTC timestamp."""
    from blm_eval import answer_extraction, prompts

    config = getattr(model, "config", None)
    return {
        "protocol": protocol,
        "toolkit_version": _version("blm-toolkit"),
        "prompt_hash": code_digest(prompts),
        "extraction_hash": code_digest(answer_extraction),
        "data_digest": data_digest(rows_by_config),
        "model_id": model_name,
        "model_revision": getattr(config, "_commit_hash", None),
        "dtype": str(getattr(model, "dtype", None)).removeprefix("torch."),
        "device": str(getattr(model, "device", None)),
        "libraries": {name: _version(name) for name in LIBRARIES},
        "python": platform.python_version(),
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def load_result(path: str) -> dict:
    try:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"--compare {path}: cannot read it ({exc.strerror}); pass a `blm llm-eval --out` file")
    except json.JSONDecodeError as exc:
        raise InputError(f"--compare {path}:{exc.lineno}: not JSON ({exc.msg}); pass a `blm llm-eval --out` file")
    if not isinstance(report, dict) or "results" not in report or "data_digest" not in report:
        raise InputError(f"--compare {path}: not a self-describing `blm llm-eval --out` file (no results or "
                         "data_digest); rerun it with this version")
    return report


def compare(a: dict, b: dict, names: tuple[str, str] = ("A", "B")) -> str:
    """Side-by-side macro-F1 of two results files; ValueError naming the first protocol or data difference."""
    for field in ("data_digest",) + PROTOCOL_FIELDS:
        if a.get(field) != b.get(field):
            what = "data" if field == "data_digest" else "protocol"
            raise InputError(f"--compare: the runs differ in {what}: {field} is {a.get(field)!r} in {names[0]} "
                             f"but {b.get(field)!r} in {names[1]}; only runs on the same data and protocol compare")

    def key(r: dict) -> tuple:
        return r["config"], r["prompt_lang"], r["shots"]

    left, right = {key(r): r for r in a["results"]}, {key(r): r for r in b["results"]}
    lines = [f"protocol {a.get('protocol')}  data {a.get('data_digest')}",
             f"A: {a.get('model_id', a.get('model'))} @ {a.get('model_revision')} ({a.get('dtype')}, {a.get('device')})",
             f"B: {b.get('model_id', b.get('model'))} @ {b.get('model_revision')} ({b.get('dtype')}, {b.get('device')})",
             f"{'config':<22}{'prompt':>7}{'shots':>6}{'A macro-F1 %':>18}{'B macro-F1 %':>18}{'B-A':>8}"]

    def cell(r: dict | None) -> str:
        return "—" if r is None else f"{100 * r['macro_f1']['mean']:.2f} ± {100 * r['macro_f1']['std']:.2f}"

    for k in sorted(set(left) | set(right)):
        ra, rb = left.get(k), right.get(k)
        delta = f"{100 * (rb['macro_f1']['mean'] - ra['macro_f1']['mean']):+.2f}" if ra and rb else "—"
        lines.append(f"{k[0]:<22}{k[1]:>7}{k[2]:>6}{cell(ra):>18}{cell(rb):>18}{delta:>8}")
    return "\n".join(lines)
