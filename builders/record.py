"""The BLM record's fields and the values its answer columns take (SPEC §2). `blm_datasets.features` declares the
Hugging Face `Features` of the same fields; the checks in `builders.checks` read these."""

from __future__ import annotations

COLUMNS = ("id", "phenomenon", "language", "lexical_type", "template", "lemma", "context", "context_patterns",
           "context_chunks", "answers", "answer_labels", "answer_error_classes", "answer_patterns", "label")
ERROR_CLASSES = ("CORRECT", "SEQUENCE", "GRAMMAR")
GOLD_LABEL, GOLD_CLASS = "Correct", "CORRECT"
WRONG_CLASSES = tuple(c for c in ERROR_CLASSES if c != GOLD_CLASS)  # what a distractor can be
# label and class of an imported distractor whose release does not say which error it makes (CALAMITA task files)
UNKNOWN = "UNKNOWN"
