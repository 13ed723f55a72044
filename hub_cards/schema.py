"""The project's own check of card YAML headers: allowed keys, required keys and value types.

The Hub accepts almost any YAML, so a misspelt key (``lisence``, ``task_category``) passes silently
and the dataset simply loses its licence or its task filter. These checks catch that before upload.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from typing import Any

from builders.errors import InputError

SIZE_CATEGORIES = (
    "n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M", "10M<n<100M", "100M<n<1B",
    "1B<n<10B", "10B<n<100B", "100B<n<1T", "n>1T",
)
_LANGUAGE = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]+)*$")
_SPDX_LIKE = re.compile(r"^[a-z0-9][a-z0-9.+-]*$")
_CONFIG_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def _str(v: Any) -> bool:
    return isinstance(v, str) and bool(v.strip())


def _str_list(v: Any) -> bool:
    return isinstance(v, list) and all(_str(x) for x in v)


def _str_or_list(v: Any) -> bool:
    return _str(v) or _str_list(v)


def _languages(v: Any) -> bool:
    values = [v] if isinstance(v, str) else v
    return isinstance(values, list) and bool(values) and all(isinstance(x, str) and _LANGUAGE.match(x)
                                                             for x in values)


def _licenses(v: Any) -> bool:
    values = [v] if isinstance(v, str) else v
    return isinstance(values, list) and bool(values) and all(isinstance(x, str) and _SPDX_LIKE.match(x)
                                                             for x in values)


def _size_categories(v: Any) -> bool:
    values = [v] if isinstance(v, str) else v
    return isinstance(values, list) and bool(values) and all(x in SIZE_CATEGORIES for x in values)


def _bool(v: Any) -> bool:
    return isinstance(v, bool)


def _anything(v: Any) -> bool:
    return True


Check = Callable[[Any], bool]

# Keys of the Hub dataset card metadata (huggingface_hub's datasetcard template and the Hub docs).
DATASET_KEYS: dict[str, tuple[Check, str]] = {
    "annotations_creators": (_str_or_list, "a string or list of strings"),
    "language_creators": (_str_or_list, "a string or list of strings"),
    "language": (_languages, "ISO 639-1/639-3 codes (a string or a list)"),
    "language_details": (_str_or_list, "a string or list of strings"),
    "license": (_licenses, "lower-case Hub licence ids such as apache-2.0 (a string or a list)"),
    "license_name": (_str, "a string"),
    "license_link": (_str, "a string"),
    "license_details": (_str, "a string"),
    "multilinguality": (_str_or_list, "a string or list of strings"),
    "pretty_name": (_str, "a non-empty string"),
    "size_categories": (_size_categories, f"values among {', '.join(SIZE_CATEGORIES)}"),
    "source_datasets": (_str_or_list, "a string or list of strings"),
    "task_categories": (_str_list, "a list of strings"),
    "task_ids": (_str_list, "a list of strings"),
    "paperswithcode_id": (_str, "a string"),
    "tags": (_str_list, "a list of strings"),
    "configs": (lambda v: isinstance(v, list) and bool(v), "a non-empty list of configs"),
    "dataset_info": (lambda v: isinstance(v, (dict, list)), "a mapping or list of mappings"),
    "train-eval-index": (lambda v: isinstance(v, list), "a list"),
    "viewer": (_bool, "true or false"),
    "thumbnail": (_str, "a string"),
    "extra_gated_prompt": (_str, "a string"),
    "extra_gated_fields": (lambda v: isinstance(v, dict), "a mapping"),
    "extra_gated_heading": (_str, "a string"),
    "extra_gated_description": (_str, "a string"),
    "extra_gated_button_content": (_str, "a string"),
}
DATASET_REQUIRED = ("configs", "dataset_info", "license", "language", "task_categories", "pretty_name",
                    "size_categories", "tags")

MODEL_KEYS: dict[str, tuple[Check, str]] = {
    "language": (_languages, "ISO 639-1/639-3 codes (a string or a list)"),
    "license": (_licenses, "lower-case Hub licence ids such as apache-2.0"),
    "license_name": (_str, "a string"),
    "license_link": (_str, "a string"),
    "library_name": (_str, "a string"),
    "tags": (_str_list, "a list of strings"),
    "datasets": (_str_or_list, "a string or list of Hub dataset ids"),
    "metrics": (_str_list, "a list of strings"),
    "base_model": (_str_or_list, "a Hub model id or a list of them"),
    "base_model_relation": (_str, "a string"),
    "pipeline_tag": (_str, "a string"),
    "model-index": (lambda v: isinstance(v, list) and bool(v), "a non-empty list"),
    "model_name": (_str, "a string"),
    "inference": (_anything, "anything"),
    "widget": (lambda v: isinstance(v, list), "a list"),
    "co2_eq_emissions": (_anything, "anything"),
    "thumbnail": (_str, "a string"),
    "new_version": (_str, "a string"),
}
MODEL_REQUIRED = ("license", "library_name", "tags", "metrics")

_CONFIG_KEYS = {"config_name", "data_files", "data_dir", "default", "sep", "drop_labels", "drop_metadata",
                "features", "field", "encoding"}
_INFO_KEYS = {"config_name", "features", "splits", "download_size", "dataset_size"}


def _unknown_key(key: str, allowed: Mapping[str, Any] | set[str], where: str) -> str:
    anagrams = [k for k in allowed if sorted(k) == sorted(key)]  # swapped letters: lisence → license
    close = anagrams or difflib.get_close_matches(key, list(allowed), n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{where}: unknown key {key!r}{hint}"


def _check_keys(data: Mapping[str, Any], keys: Mapping[str, tuple[Check, str]], required: tuple[str, ...],
                where: str, strict: bool) -> list[str]:
    errors = [f"{where}: missing required key {k!r}" for k in required if k not in data]
    for key, value in data.items():
        if key not in keys:
            if strict:
                errors.append(_unknown_key(key, keys, where))
            continue
        check, expected = keys[key]
        if not check(value):
            errors.append(f"{where}: {key!r} must be {expected}, got {value!r:.80}")
    return errors


def _check_data_files(name: str, data_files: Any) -> list[str]:
    if _str_or_list(data_files):
        return []
    if not isinstance(data_files, list) or not data_files:
        return [f"configs[{name}].data_files must be a path, a list of paths or a list of {{split, path}}"]
    errors, splits = [], set()
    for entry in data_files:
        if not isinstance(entry, dict) or set(entry) != {"split", "path"}:
            errors.append(f"configs[{name}].data_files entries need exactly the keys split and path, got {entry!r}")
            continue
        if not _str(entry["split"]) or not _str_or_list(entry["path"]):
            errors.append(f"configs[{name}].data_files: split must be a string, path a string or list")
        if entry["split"] in splits:
            errors.append(f"configs[{name}].data_files: split {entry['split']!r} listed twice")
        splits.add(entry["split"])
    return errors


def _check_configs(configs: list) -> list[str]:
    errors, names, defaults = [], set(), []
    for config in configs:
        if not isinstance(config, dict):
            errors.append(f"configs: every entry must be a mapping, got {config!r:.60}")
            continue
        name = config.get("config_name")
        if not isinstance(name, str) or not _CONFIG_NAME.match(name):
            errors.append(f"configs: config_name must be a name of [A-Za-z0-9_.-], got {name!r}")
            continue
        if name in names:
            errors.append(f"configs: {name!r} listed twice")
        names.add(name)
        errors += [_unknown_key(k, _CONFIG_KEYS, f"configs[{name}]") for k in config if k not in _CONFIG_KEYS]
        if "data_files" not in config and "data_dir" not in config:
            errors.append(f"configs[{name}]: needs data_files")
        else:
            errors += _check_data_files(name, config.get("data_files", []))
        if "default" in config:
            if not isinstance(config["default"], bool):
                errors.append(f"configs[{name}].default must be true or false")
            elif config["default"]:
                defaults.append(name)
    if len(configs) > 1 and len(defaults) != 1:
        errors.append(f"configs: exactly one config must have default: true, found {defaults or 'none'}")
    return errors


def _check_dataset_info(info: Any, config_names: set[str]) -> list[str]:
    entries = [info] if isinstance(info, dict) else info
    errors, seen = [], set()
    for entry in entries:
        if not isinstance(entry, dict):
            errors.append(f"dataset_info: every entry must be a mapping, got {entry!r:.60}")
            continue
        name = entry.get("config_name", "default")
        seen.add(name)
        errors += [_unknown_key(k, _INFO_KEYS, f"dataset_info[{name}]") for k in entry if k not in _INFO_KEYS]
        if not isinstance(entry.get("features"), list):
            errors.append(f"dataset_info[{name}]: features must be a list")
        for split in entry.get("splits") or []:
            if not (isinstance(split, dict) and _str(split.get("name"))
                    and isinstance(split.get("num_examples"), int) and isinstance(split.get("num_bytes"), int)):
                errors.append(f"dataset_info[{name}]: every split needs name, num_bytes and num_examples")
        for size_key in ("download_size", "dataset_size"):
            if size_key in entry and not isinstance(entry[size_key], int):
                errors.append(f"dataset_info[{name}].{size_key} must be an integer")
    unknown = seen - config_names if isinstance(info, list) and config_names else set()
    if unknown:
        errors.append(f"dataset_info: entries for configs not in configs: {sorted(unknown)}")
    return errors


def check_dataset_card_data(data: Any, strict: bool = True) -> list[str]:
    """Every problem of a dataset card's YAML header; ``strict`` also rejects keys the Hub does not know."""
    if not isinstance(data, dict):
        return ["the card has no YAML header (a mapping between --- lines)"]
    errors = _check_keys(data, DATASET_KEYS, DATASET_REQUIRED, "dataset card", strict)
    configs = data.get("configs")
    if isinstance(configs, list):
        errors += _check_configs(configs)
    if isinstance(data.get("dataset_info"), (dict, list)):
        names = {c.get("config_name") for c in configs or [] if isinstance(c, dict)}
        errors += _check_dataset_info(data["dataset_info"], names)
    return errors


def check_model_card_data(data: Any, strict: bool = True) -> list[str]:
    """Every problem of a model card's YAML header; ``strict`` also rejects keys the Hub does not know."""
    if not isinstance(data, dict):
        return ["the card has no YAML header (a mapping between --- lines)"]
    errors = _check_keys(data, MODEL_KEYS, MODEL_REQUIRED, "model card", strict)
    for entry in data.get("model-index") or []:
        if not isinstance(entry, dict) or "name" not in entry or not isinstance(entry.get("results"), list):
            errors.append("model card: every model-index entry needs a name and a list of results")
    return errors


def require_valid(errors: list[str], what: str) -> None:
    """Raise a ValueError listing ``errors`` (no-op when there are none)."""
    if errors:
        raise InputError(f"{what} fails the card schema check:\n  " + "\n  ".join(errors))
