"""lm-evaluation-harness tasks for every BLM config: `blm llm-eval`'s letter protocol (log-likelihood and
generation, zero- and one-shot, fixed items) and a full-sentence variant.

    lm_eval --model hf --model_args pretrained=MODEL --include_path "$(python -m blm_eval.lm_eval_tasks)" \
        --tasks blm_agr_en_typeI_letter

The per-config YAMLs are generated from the registry and ``blm_eval.protocols`` by
``python -m blm_eval.lm_eval_tasks.generate`` (``--dataset-path`` binds them to a dataset's digest).
"""

from __future__ import annotations

from pathlib import Path

TASK_DIR = Path(__file__).resolve().parent


def include_path() -> str:
    """The folder to give ``lm_eval --include_path`` (or ``TaskManager(include_path=...)``)."""
    return str(TASK_DIR)
