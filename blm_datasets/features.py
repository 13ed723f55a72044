"""The BLM record (SPEC §2), declared once and shared by every config."""

from __future__ import annotations

import datasets

ERROR_CLASSES = ("CORRECT", "SEQUENCE", "GRAMMAR")
GOLD_LABEL = "Correct"

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

COLUMNS = tuple(FEATURES)
