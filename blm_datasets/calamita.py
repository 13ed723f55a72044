"""Export BLM rows in the CALAMITA layout (BLM-It, Jiang et al. 2024, Figs. 7 and 10).

Each instance becomes one JSON object::

    {"ID": 215,
     "Context": [7 sentences],
     "Context_concatenated": "1\\t<sentence 1>\\n2\\t<sentence 2>...",
     "Answer_set": [candidates],
     "Answer_concatenated": "A\\t<candidate A>\\nB\\t<candidate B>...",
     "Correct_option": "E",
     "Correct_answer": "<the gold candidate>",
     "Answer_set_annotation": [{"label": "IR-TRANS", "value": false, "option": "A"}, ...],
     "Verb": "disegnare"}

Candidates keep the order of the row (already shuffled, gold at ``label``) and are lettered A, B,
C … in that order; labels are the toolkit's (SPEC §4). CALAMITA's harness task (CALAMITA-AILC/
CALAMITA-harness, lm_eval/tasks/calamita/blm-IT/base.yaml) scores ``doc_to_choice: [A … H]`` against
``Correct_option`` on every item, so only configs whose items all have 8 candidates are written.
"""

from __future__ import annotations

import json
import string
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from builders.atomic import atomic_write_text
from builders.errors import InputError

LETTERS = string.ascii_uppercase
# CALAMITA's harness task for BLM-It scores a fixed choice set A-H on every item.
HARNESS_CHOICES = 8


def option_letter(position: int) -> str:
    """A, B, … Z for answer positions 0 … 25 (answer sets have at most 10 candidates)."""
    if not 0 <= position < len(LETTERS):
        raise InputError(f"answer position {position} has no option letter (at most {len(LETTERS)} candidates)")
    return LETTERS[position]


def to_calamita(row: Mapping[str, Any], index: int, verb_key: str = "lemma") -> dict[str, Any]:
    """One BLM row (the toolkit's record) as a CALAMITA instance with ``ID`` = ``index``."""
    if verb_key not in row:
        raise KeyError(f"row {row.get('id', index)!r} has no column {verb_key!r} for the Verb field; "
                       f"columns: {', '.join(row)}")
    context, answers, gold = list(row["context"]), list(row["answers"]), int(row["label"])
    letters = [option_letter(i) for i in range(len(answers))]
    return {
        "ID": index,
        "Context": context,
        "Context_concatenated": "\n".join(f"{i}\t{sentence}" for i, sentence in enumerate(context, 1)),
        "Answer_set": answers,
        "Answer_concatenated": "\n".join(f"{letter}\t{answer}" for letter, answer in zip(letters, answers)),
        "Correct_option": letters[gold],
        "Correct_answer": answers[gold],
        "Answer_set_annotation": [
            {"label": label, "value": i == gold, "option": letters[i]}
            for i, label in enumerate(row["answer_labels"])
        ],
        "Verb": row[verb_key],
    }


def check_harness_choices(rows: Iterable[Mapping[str, Any]], name: str) -> None:
    """ValueError naming ``name`` unless every row has exactly the harness's 8 candidates: with fewer, the
    harness would score options G/H the prompt never shows; with more, a gold I/J scores as -100."""
    sizes = Counter(len(row["answers"]) for row in rows)
    other = {k: v for k, v in sizes.items() if k != HARNESS_CHOICES}
    if other:
        found = ", ".join(f"{v} with {k} (A-{LETTERS[k - 1]})" for k, v in sorted(other.items()))
        raise InputError(f"{name} cannot be exported for CALAMITA: of {sum(sizes.values())} items, {found} candidates, "
                         f"but CALAMITA's harness scores the fixed choices A-H on every item (fewer candidates "
                         f"leave phantom options a model can pick, a gold beyond H cannot be scored); export a "
                         f"config whose items all have {HARNESS_CHOICES} candidates, or use --format hub or genbench")


def write_calamita(rows: Iterable[Mapping[str, Any]], path: str | Path, verb_key: str = "lemma",
                   name: str | None = None) -> int:
    """Write ``rows`` as one CALAMITA JSON list (UTF-8, IDs 0, 1, … in row order), atomically; return the count.
    Rows that do not all have the harness's 8 candidates (A-H) are refused: it would misscore them."""
    rows = list(rows)
    if name is None:  # the config, from the toolkit's row ids (CONFIG-SPLIT-NNNNNN)
        name = str(rows[0].get("id", "the export")).rsplit("-", 2)[0] if rows else "the export"
    check_harness_choices(rows, name)
    instances = [to_calamita(row, i, verb_key) for i, row in enumerate(rows)]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(instances, ensure_ascii=False, indent=1) + "\n")
    return len(instances)
