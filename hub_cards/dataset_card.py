"""The dataset card of an export: YAML header (configs, dataset_info, licence …) and a Jinja-rendered body."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from builders import registry
from hub_cards.import_card import IMPORT_COLUMN_DOCS, import_context
from hub_cards.render import render
from hub_cards.schema import SIZE_CATEGORIES, check_dataset_card_data, require_valid
from hub_cards.sections import join_card

PRETTY_NAME = "Blackbird Language Matrices (BLM)"
BASE_TAGS = ("blackbird-language-matrices", "blm", "linguistics", "syntax", "rule-learning", "synthetic")
# SPEC §2; a column of FEATURES missing here is rendered with an empty meaning (and fails a test).
COLUMN_DOCS = {
    "id": "stable id, unique across the toolkit (config, split, index)",
    "phenomenon": "the linguistic phenomenon (`agr`, `cos`, `od`, `sprayload`, …)",
    "language": "ISO 639-1 language code",
    "lexical_type": "`I`, `II` or `III` (how much the words vary inside an instance)",
    "template": "the template variant the instance was built from",
    "lemma": "the verb lemma (or agreement seed) the instance is built on; lemma splits keep test lemmas out of train",
    "context": "the context sentences, in order",
    "context_patterns": "the abstract pattern of each context sentence",
    "context_chunks": "each context sentence split into its phrases",
    "answers": "the candidate answers, shuffled so the gold position is uniform",
    "answer_labels": "the label of each candidate: `Correct`, or the rule it corrupts",
    "answer_error_classes": "`CORRECT`, `SEQUENCE` or `GRAMMAR` for each candidate",
    "answer_patterns": "the abstract pattern of each candidate",
    "label": "index of the gold answer in `answers`",
}
_CLASS_PREFIX = {"SEQUENCE": "S", "GRAMMAR": "G"}
_BASELINE_SHORT = {"medoid": "medoid", "classifier": "clf", "gold_position": "pos"}


def size_category(n: int) -> str:
    """The Hub's size bucket for ``n`` rows."""
    bounds = [10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6, 10 ** 7, 10 ** 8, 10 ** 9, 10 ** 10, 10 ** 11, 10 ** 12]
    for bound, category in zip(bounds, SIZE_CATEGORIES):
        if n < bound:
            return category
    return SIZE_CATEGORIES[-1]


def feature_type(feature: Any) -> str:
    """``string``, ``list[string]``, ``int32`` … for a datasets feature."""
    inner = getattr(feature, "feature", None)
    if inner is not None:
        return f"list[{feature_type(inner)}]"
    return getattr(feature, "dtype", type(feature).__name__)


def taxonomy_cell(labels: list[tuple[str, str]]) -> str:
    """``Correct; S: Coord, WNA; G: AEV`` from (label, error class) pairs."""
    groups: dict[str, list[str]] = {}
    for label, cls in labels:
        groups.setdefault(cls, []).append(label)
    parts = [", ".join(groups.pop("CORRECT", []))]
    parts += [f"{_CLASS_PREFIX.get(cls, cls)}: {', '.join(names)}" for cls, names in groups.items()]
    return "; ".join(p for p in parts if p)


def audit_cell(audit: dict[str, Any] | None) -> str:
    """``medoid 1.00▲ · clf 0.15 · pos 0.13 / chance 0.20`` (``—`` when the audit was skipped)."""
    if not audit:
        return "—"
    star = "*" if audit.get("sampled") else ""
    parts = [f"{_BASELINE_SHORT.get(name, name)} {b['accuracy']:.2f}{'▲' if b['above_chance'] else ''}"
             for name, b in audit["baselines"].items()]
    return " · ".join(parts) + f" / chance {audit['chance_wellformed']:.2f}{star}"


def card_licence(configs: list, license_id: str, licences: Mapping[str, Any] | None) -> str | list[str]:
    """The header's licence: the one licence of every config, or the list of them (`license_id` without
    per-config licences)."""
    ids = list(dict.fromkeys(i for c in configs for i in (licences[c.name].ids if licences and c.name in licences
                                                           else (license_id,))))
    return ids[0] if len(ids) == 1 else ids


def card_metadata(configs: list, default: str, license_id: str, features: Any,
                  licences: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The YAML header: configs with their data files, dataset_info, licence, languages, tasks, sizes, tags."""
    languages = sorted({c.language.split("-")[0] for c in configs})
    total = sum(c.num_examples for c in configs)
    return {
        "pretty_name": PRETTY_NAME,
        "license": card_licence(configs, license_id, licences),
        "language": languages,
        "multilinguality": "multilingual" if len(languages) > 1 else "monolingual",
        "annotations_creators": ["machine-generated"],
        "language_creators": ["machine-generated"],
        "source_datasets": ["original"],
        "task_categories": ["multiple-choice"],
        "task_ids": ["multiple-choice-qa"],
        "size_categories": [size_category(total)],
        "tags": list(dict.fromkeys([*BASE_TAGS, *(c.phenomenon for c in configs)])),
        "configs": [
            {"config_name": c.name,
             "data_files": [{"split": s.name, "path": f"{c.name}/{s.name}-*"} for s in c.splits],
             **({"default": True} if c.name == default else {})}
            for c in configs
        ],
        "dataset_info": [
            {"config_name": c.name, "features": features._to_yaml_list(),
             "splits": [{"name": s.name, "num_bytes": s.num_bytes, "num_examples": s.num_examples} for s in c.splits],
             "download_size": sum(s.file_bytes for s in c.splits),
             "dataset_size": sum(s.num_bytes for s in c.splits)}
            for c in configs
        ],
    }


def reproduce_command(names: list[str], generation: dict[str, Any], all_names: list[str]) -> str:
    """The ``blm export`` command line that regenerates these files."""
    args = ["blm", "export", *(["--all"] if names == all_names else names), "--seed", str(generation["seed"])]
    if generation.get("size"):
        args += ["--size", str(generation["size"])]
    args += ["--split-mode", generation["split_mode"]]
    if generation.get("test_size"):
        args += ["--test-size", str(generation["test_size"])]
    if generation.get("sources"):
        args += ["--sources", *generation["sources"]]
    return shlex.join(args + ["--out", "DIR"])


def _config_row(c) -> dict[str, Any]:
    templates = ", ".join(c.templates)
    return {
        "name": c.name, "phenomenon": c.phenomenon, "language": c.language, "lexical_type": c.lexical_type,
        "balanced": c.balanced, "template_cell": f"{c.variant}: {templates}" if c.variant else templates,
        "split_sizes": {s.name: s.num_examples for s in c.splits},
        "taxonomy_cell": taxonomy_cell(c.labels), "audit_cell": audit_cell(c.audit),
    }


def _phenomena(configs: list) -> list[dict[str, Any]]:
    out = []
    for phenomenon in dict.fromkeys(c.phenomenon for c in configs):
        labels = list(dict.fromkeys(pair for c in configs if c.phenomenon == phenomenon for pair in c.labels))
        labels.sort(key=lambda lc: {"CORRECT": 0, "SEQUENCE": 1, "GRAMMAR": 2}.get(lc[1], 3))
        try:
            description = registry.generator_class(phenomenon).description or ""
        except ValueError:  # imported data of a phenomenon this installation does not generate
            description = ""
        out.append({"name": phenomenon, "description": description, "labels": labels})
    return out


def render_dataset_card(configs: list, generation: dict[str, Any], features: Any, default: str | None = None,
                        preferred_default: str | None = None, audit_sample: tuple[int, int] = (0, 0),
                        license_id: str = "apache-2.0", skipped: list[str] | None = None,
                        licences: Mapping[str, Any] | None = None) -> str:
    """The README.md text for exported config summaries (see blm_datasets.export.ConfigSummary).

    ``features`` are the records' datasets Features; without ``default``, ``preferred_default``
    is the default config when exported, else the first; ``audit_sample`` = (test, train) rows.
    """
    return join_card(*dataset_card(configs, generation, features, default, preferred_default, audit_sample,
                                   license_id, skipped, licences))


def dataset_card(configs: list, generation: dict[str, Any], features: Any, default: str | None = None,
                 preferred_default: str | None = None, audit_sample: tuple[int, int] = (0, 0),
                 license_id: str = "apache-2.0", skipped: list[str] | None = None,
                 licences: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], str]:
    """``render_dataset_card``'s YAML header (as a dict) and markdown body, not yet joined (``join_card``)."""
    names = [c.name for c in configs]
    if default is None:
        default = preferred_default if preferred_default in names else names[0]
    metadata = card_metadata(configs, default, license_id, features, licences)
    require_valid(check_dataset_card_data(metadata), "the generated dataset card")
    split_description = ("so that test instances use lemmas (verbs or agreement seeds) never seen in train"
                         if generation["split_mode"] == "lemma" else "at random, instance by instance")
    imported = generation.get("import")
    docs = COLUMN_DOCS
    if imported:
        imported, docs = import_context(imported), {**COLUMN_DOCS, **IMPORT_COLUMN_DOCS}
        split_description = {"release": "as the release splits them", "random": "at random by instance (seed "
                             f"{generation['seed']}, test share {generation['test_size']})"}.get(
            generation["split_mode"], "as the release splits them where it does, else at random by instance")
    return metadata, render(
        "dataset_card.md.j2", imported=imported,
        pretty_name=PRETTY_NAME, default_config=default,
        configs=[_config_row(c) for c in configs], total_rows=sum(c.num_examples for c in configs),
        phenomena=_phenomena(configs), generation=generation, split_description=split_description,
        columns=[{"name": n, "type": feature_type(f), "doc": docs.get(n, "")} for n, f in features.items()],
        audit_sampled=any(c.audit and c.audit.get("sampled") for c in configs),
        audit_test_sample=audit_sample[0], audit_train_sample=audit_sample[1],
        command="" if imported else reproduce_command(names, generation, registry.config_names()),
        skipped=skipped or [],
        licences=_licence_rows(configs, licences),
    )


def _licence_rows(configs: list, licences: Mapping[str, Any] | None) -> list[dict[str, str]]:
    """One row per licence and reason: the configs under it (shown when the configs' licences differ or come
    from a corpus)."""
    if not licences:
        return []
    rows: dict[tuple, list[str]] = {}
    for c in configs:
        if c.name in licences:
            rows.setdefault((licences[c.name].ids, licences[c.name].reason), []).append(c.name)
    if len(rows) == 1 and next(iter(rows))[1].startswith("generated"):
        return []
    return [{"licence": " and ".join(ids), "reason": reason, "configs": ", ".join(names)}
            for (ids, reason), names in rows.items()]
