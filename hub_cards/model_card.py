"""Model cards generated from a training run (metrics.json + run config); `blm_models.push` uploads them.

``write_model_card`` reads what ``train.py`` records (test accuracy, picks per label and per error
class, data/encoder/head/training config, versions) tolerantly: missing pieces are left out of the
card, never invented. ``run_config`` entries override what is found in ``metrics``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from builders.atomic import atomic_write_text
from builders.base import ConfigSpec
from builders.errors import InputError
from hub_cards.render import render
from hub_cards.schema import check_model_card_data, require_valid
from hub_cards.sections import PLACEHOLDER_REPO, dump_yaml

METRICS_FILE = "metrics.json"
CARD_FILE = "README.md"
TRAINING_KEYS = ("learning_rate", "num_train_epochs", "max_steps", "per_device_train_batch_size",
                 "gradient_accumulation_steps", "weight_decay", "warmup_steps", "lr_scheduler_type", "optim", "seed")
ENCODER_KEYS = ("pooling", "hidden_layer", "max_length", "train_encoder", "encoder_revision")
DATA_KEYS = ("max_train_instances", "validation_fraction")
VERSION_ORDER = ("blm-toolkit", "transformers", "torch", "datasets", "accelerate", "safetensors", "tokenizers", "python")


def _get(mapping: Any, *path: str) -> Any:
    """``mapping[path[0]][path[1]]…`` or None when any step is missing."""
    for key in path:
        if not isinstance(mapping, Mapping) or key not in mapping:
            return None
        mapping = mapping[key]
    return mapping


def _first(*values: Any) -> Any:
    return next((v for v in values if v not in (None, "", {}, [])), None)


def _flat_counts(metrics: Mapping[str, Any], marker: str) -> dict[str, int]:
    """Counts from flat Trainer keys such as ``test_picks_label_AEV``."""
    return {k.split(marker, 1)[1]: int(v) for k, v in metrics.items() if marker in k and isinstance(v, (int, float))}


def _test_results(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """Accuracy, instance count and pick counts of the test split, from nested or flat metrics."""
    test = metrics.get("test") if isinstance(metrics.get("test"), Mapping) else {}
    return {
        "accuracy": _first(test.get("accuracy"), metrics.get("test_accuracy"), metrics.get("accuracy")),
        "instances": _first(test.get("instances"), metrics.get("test_instances")),
        "labels": dict(_first(test.get("picks_per_label"), _flat_counts(metrics, "picks_label_")) or {}),
        "classes": dict(_first(test.get("picks_per_class"), _flat_counts(metrics, "picks_class_")) or {}),
        "validation_accuracy": _first(_get(metrics, "validation", "accuracy"), metrics.get("validation_accuracy")),
    }


def _rows(counts: Mapping[str, int], total: int | None, classes: Mapping[str, str]) -> list[dict[str, Any]]:
    denominator = total or sum(counts.values()) or 1
    ordered = sorted(counts.items(), key=lambda kv: (kv[0] not in ("Correct", "CORRECT"), -kv[1], kv[0]))
    return [{"name": name, "count": count, "share": f"{count / denominator:.1%}",
             "error_class": classes.get(name, "CORRECT" if name == "Correct" else "")}
            for name, count in ordered]


def _hyperparameters(metrics: Mapping[str, Any], run_config: Mapping[str, Any]) -> list[tuple[str, Any]]:
    config = metrics.get("config") if isinstance(metrics.get("config"), Mapping) else {}
    found: dict[str, Any] = {}
    for section, keys in (("training", TRAINING_KEYS), ("encoder", ENCODER_KEYS), ("data", DATA_KEYS)):
        for key in keys:
            value = _get(config, section, key)
            if value is not None and not (key == "max_steps" and value in (-1, 0)):
                found[key] = value
    head = config.get("head") if isinstance(config.get("head"), Mapping) else {}
    found.update({k: v for k, v in head.items() if k != "head" and v is not None})
    found.update(run_config.get("hyperparameters") or {})
    return sorted(found.items())


def _versions(metrics: Mapping[str, Any], run_config: Mapping[str, Any]) -> list[tuple[str, str]]:
    versions = {**(metrics.get("versions") or {}), **(run_config.get("versions") or {})}
    if not versions:
        from importlib import metadata

        for name in VERSION_ORDER[:-1]:
            try:
                versions[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                continue
    rank = {name: i for i, name in enumerate(VERSION_ORDER)}
    return sorted(((k, str(v)) for k, v in versions.items()), key=lambda kv: (rank.get(kv[0], 99), kv[0]))


def _language(dataset_config: str | None) -> list[str] | None:
    if not dataset_config:
        return None
    try:
        from builders import registry

        return [registry.get_spec(dataset_config).language.split("-")[0]]
    except (ImportError, ValueError):
        return None


def _is_hub_id(name: str | None) -> bool:
    """True for an ORG/NAME that is not a local folder (a Hub repo id)."""
    return (bool(name) and name.count("/") == 1 and not Path(name).exists() and not name.startswith((".", "/", "~"))
            and all(name.split("/")))


def _public_encoder(name: str | None) -> tuple[str | None, bool]:
    """(what the card calls the encoder, whether it is a Hub id): a Hub id as it is, a local folder by its name only
    (no local paths in a card)."""
    if not name:
        return None, False
    if _is_hub_id(name):
        return name, True
    return (Path(name).name or name, False) if (Path(name).is_absolute() or Path(name).exists()) else (name, False)


def model_card_context(metrics: Mapping[str, Any], run_config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Everything the model card shows, taken from the run's metrics and config (run_config wins)."""
    run = dict(run_config or {})
    config = metrics.get("config") if isinstance(metrics.get("config"), Mapping) else {}
    data = metrics.get("data") if isinstance(metrics.get("data"), Mapping) else {}
    dataset_config = _first(run.get("dataset_config"), data.get("dataset_config"),
                            _get(config, "data", "dataset_config"))
    dataset_path = _first(run.get("dataset_path"), data.get("dataset_path"), _get(config, "data", "dataset_path"))
    # a dataset id only for data that came from the Hub; a local folder is named, never given as a path
    dataset_repo = _first(run.get("dataset_repo"), dataset_path if _is_hub_id(dataset_path) else None)
    # the model config names the encoder as others load it (the MiniLM alias as its Hub id)
    encoder, encoder_on_hub = _public_encoder(_first(run.get("encoder"), _get(config, "model", "encoder_name_or_path"),
                                                     _get(config, "encoder", "encoder")))
    digest = _first(run.get("dataset_digest"), data.get("digest"), data.get("dataset_digest"))
    if digest is None and dataset_config and not dataset_path:
        from builders.digest import source_digest

        digest = source_digest()  # data generated by this very toolkit at the end of training
    results = _test_results(metrics)
    label_classes = dict(_first(run.get("label_error_classes"), data.get("label_error_classes")) or {})
    accuracy = results["accuracy"]
    return {
        "model_name": _first(run.get("model_name"), f"BLM solver for {dataset_config}" if dataset_config else None,
                             "BLM solver"),
        "repo_id": _first(run.get("repo_id"), PLACEHOLDER_REPO),
        "dataset_config": dataset_config, "dataset_digest": digest, "dataset_repo": dataset_repo,
        "dataset_folder": None if dataset_repo or not dataset_path else Path(dataset_path).name,
        "test_dataset_config": _first(run.get("test_dataset_config"), data.get("test_dataset_config")),
        "encoder": encoder, "encoder_on_hub": encoder_on_hub,
        "train_encoder": bool(_first(_get(config, "model", "train_encoder"), _get(config, "encoder", "train_encoder"))),
        "example": (json.dumps(dict(run["example"]), ensure_ascii=False, indent=4)
                    if isinstance(run.get("example"), Mapping) else None),
        "head": _first(run.get("head"), _get(config, "head", "head"), _get(config, "model", "head")),
        "accuracy": accuracy,
        "accuracy_text": f"{accuracy:.4f}" if isinstance(accuracy, (int, float)) else "not recorded",
        "test_instances": results["instances"],
        "label_rows": _rows(results["labels"], results["instances"], label_classes),
        "show_label_classes": bool(label_classes),
        "class_rows": _rows(results["classes"], results["instances"], {}),
        "other_metrics": [(k, v) for k, v in (("validation accuracy", results["validation_accuracy"]),) if v is not None],
        "hyperparameters": _hyperparameters(metrics, run),
        "versions": _versions(metrics, run),
        "license": run.get("license", "apache-2.0"),
    }


def model_card_metadata(ctx: Mapping[str, Any]) -> dict[str, Any]:
    """The YAML header: licence, library, tags, metrics, base model, model-index with the test accuracy."""
    spec = ConfigSpec.parse(ctx["dataset_config"]) if ctx["dataset_config"] else None
    phenomenon = spec.phenomenon if spec else None
    data: dict[str, Any] = {
        "license": ctx["license"],
        "library_name": "transformers",
        "tags": [t for t in ("blm", "blackbird-language-matrices", "multiple-choice", phenomenon, ctx["head"]) if t],
        "metrics": ["accuracy"],
    }
    language = _language(ctx["dataset_config"])
    if language:
        data["language"] = language
    if ctx["dataset_repo"]:
        data["datasets"] = [ctx["dataset_repo"]]
    if ctx["encoder_on_hub"]:
        data["base_model"] = ctx["encoder"]
    if ctx["dataset_repo"] and isinstance(ctx["accuracy"], (int, float)):
        data["model-index"] = [{"name": ctx["model_name"], "results": [{
            "task": {"type": "multiple-choice", "name": "Blackbird Language Matrices"},
            "dataset": {"type": ctx["dataset_repo"], "name": f"BLM {ctx['dataset_config'] or ''}".strip(),
                        **({"config": ctx["dataset_config"]} if ctx["dataset_config"] else {}), "split": "test"},
            "metrics": [{"type": "accuracy", "value": round(float(ctx["accuracy"]), 6), "name": "Accuracy"}],
        }]}]
    return data


def render_model_card(metrics: Mapping[str, Any], run_config: Mapping[str, Any] | None = None) -> str:
    """The README.md text of a checkpoint."""
    ctx = model_card_context(metrics, run_config)
    metadata = model_card_metadata(ctx)
    require_valid(check_model_card_data(metadata), "the generated model card")
    return render("model_card.md.j2", yaml_header=dump_yaml(metadata), **ctx)


def write_model_card(output_dir: str | Path, metrics: Mapping[str, Any] | None = None,
                     run_config: Mapping[str, Any] | None = None) -> Path:
    """Render the card into ``output_dir/README.md`` (metrics default to ``output_dir/metrics.json``)."""
    output_dir = Path(output_dir)
    if metrics is None:
        metrics_path = output_dir / METRICS_FILE
        if not metrics_path.is_file():
            raise InputError(f"no {METRICS_FILE} in {output_dir}: train first, or pass the metrics")
        metrics = json.loads(metrics_path.read_text(encoding="utf-8"))
    output_dir.mkdir(parents=True, exist_ok=True)
    path = output_dir / CARD_FILE
    text = render_model_card(metrics, run_config)
    return atomic_write_text(path, text)
