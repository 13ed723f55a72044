"""The BLM record's Hugging Face features (SPEC §2), shared by every config; its fields and answer values are
``builders.record``'s."""

from __future__ import annotations

import datasets

from builders.record import COLUMNS, ERROR_CLASSES, GOLD_LABEL  # noqa: F401 - re-exported with FEATURES

FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "phenomenon": datasets.Value("string"),
        "language": datasets.Value("string"),
        "lexical_type": datasets.Value("string"),
        "template": datasets.Value("string"),
        "lemma": datasets.Value("string"),
        "context": datasets.List(datasets.Value("string")),
        "context_patterns": datasets.List(datasets.Value("string")),
        "context_chunks": datasets.List(datasets.List(datasets.Value("string"))),
        "answers": datasets.List(datasets.Value("string")),
        "answer_labels": datasets.List(datasets.Value("string")),
        "answer_error_classes": datasets.List(datasets.Value("string")),
        "answer_patterns": datasets.List(datasets.Value("string")),
        "label": datasets.Value("int32"),
    }
)

if tuple(FEATURES) != COLUMNS:
    raise ImportError(f"blm_datasets.features and builders.record list other fields: {tuple(FEATURES)} vs {COLUMNS}")
