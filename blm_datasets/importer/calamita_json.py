"""The CALAMITA JSON layout (BLM-It, Jiang et al. 2024 Fig. 10; what ``blm export --format calamita`` writes).

A list of objects ``{ID, Context, Answer_set, Answer_set_annotation: [{label, value, option}],
Correct_option, Correct_answer, Verb, …}``; JSON lines are read too. The gold is the candidate
whose annotation ``value`` is true; ``Correct_option`` and ``Correct_answer`` must agree with it.
Annotations are matched to candidates by their option letter (A = the first candidate).

The task files CALAMITA's harness reads have no ``Answer_set_annotation`` (its prompt needs only
``Context_concatenated``, ``Answer_concatenated`` and ``Correct_option``). Such an item is read with
the gold from ``Correct_option`` (else ``Correct_answer``) and no distractor labels
(``ReleasedRow.labels_known`` False); the lists come from ``Context``/``Answer_set``, else from the
``1\tsentence`` / ``A\tsentence`` lines of the concatenated fields.
"""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

from blm_datasets.importer.cells import parse_bool, read_text
from blm_datasets.importer.rows import Problem, ReleasedRow, ReleaseError, SourceFile

# (list field, its concatenated form): either gives the sentences
SENTENCES = (("Context", "Context_concatenated"), ("Answer_set", "Answer_concatenated"))


def load_json(path: Path, encoding: str = "utf-8") -> Any:
    """A JSON document or JSON lines (a list of their values); a syntax error names line and column."""
    text = read_text(path, encoding)
    try:
        return json.loads(text)
    except RecursionError:
        raise ReleaseError(f"{path}: the JSON is nested deeper than a reader can follow (a release is a list of "
                           "flat objects); check that this is a BLM release file") from None
    except json.JSONDecodeError as err:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1 and lines[0].lstrip().startswith("{"):
            try:
                return [json.loads(line) for line in lines]
            except (json.JSONDecodeError, RecursionError):
                pass
        raise ReleaseError(f"{path}:{err.lineno}: not valid JSON ({err.msg} at column {err.colno}); "
                           "fix the file or re-export it") from None


def looks_like(data: Any) -> bool:
    """A list of objects with a context and an answer set (as lists or as concatenated lines)."""
    return (isinstance(data, list) and bool(data) and isinstance(data[0], dict)
            and all(any(k in data[0] for k in keys) for keys in SENTENCES))


def read(path: Path, encoding: str = "utf-8", data: Any = None) -> SourceFile:
    """Read a CALAMITA JSON file (``data``: its already parsed content)."""
    data = load_json(path, encoding) if data is None else data
    if not looks_like(data):
        raise ReleaseError(f"{path}: not the CALAMITA layout (a JSON list of objects with Context and Answer_set, "
                           "or Context_concatenated and Answer_concatenated)")
    source = SourceFile(path, "calamita", [])
    for number, item in enumerate(data, 1):
        source.rows.append(_row(path, number, item))
    unlabelled = sum(not r.labels_known for r in source.rows if r.problem is None)
    if unlabelled:
        source.notes.append(
            f"{unlabelled} of {len(source.rows)} items have no Answer_set_annotation (as in CALAMITA's task files): "
            "the gold comes from Correct_option, but which error each distractor makes is not in the file, so "
            "their labels and error classes are UNKNOWN; macro-F1 and accuracy can be scored, per-label and "
            "per-class results cannot")
    sizes = {len(r.answers) for r in source.rows if r.problem is None}
    source.answer_columns = max(sizes, default=0)
    source.label_columns = [f"Answer_set_annotation[{i}].label" for i in range(source.answer_columns)]
    return source


def _row(path: Path, number: int, item: Any) -> ReleasedRow:
    index = str(item.get("ID", "")) if isinstance(item, dict) else ""
    row = ReleasedRow(path, number, index, item=True)
    if not isinstance(item, dict):
        row.problem = Problem("missing_cells", f"{row.where}: not a JSON object; fix the item or pass --repair")
        return row
    lists = [item[k] if k in item else _lines(item.get(joined)) for k, joined in SENTENCES]
    if any(v is None for v in lists):
        missing = [" or ".join(keys) for keys, v in zip(SENTENCES, lists) if v is None]
        row.problem = Problem("missing_cells", f"{row.where}: no {', '.join(missing)}; fix the item or pass "
                                               "--repair to drop it")
        return row
    (context, answers), notes = lists, item.get("Answer_set_annotation")
    if not (_strings(context) and _strings(answers) and (notes is None or isinstance(notes, list)
            and all(isinstance(n, dict) for n in notes))):
        row.problem = Problem("bad_value", f"{row.where}: Context and Answer_set must be lists of strings and "
                                           "Answer_set_annotation a list of objects; fix the item or pass --repair")
        return row
    row.context, row.answers = [s.strip() for s in context], [s.strip() for s in answers]
    row.lemma = str(item.get("Verb", "") or "")
    if notes is None:
        return _gold_only(row, item)
    if len(notes) != len(answers):
        row.problem = Problem("missing_cells", f"{row.where}: {len(answers)} candidates but {len(notes)} "
                                               "annotations; fix the item or pass --repair to drop it")
        return row
    letters = [str(n.get("option", "")).strip().upper() for n in notes]
    expected = list(string.ascii_uppercase[:len(answers)])
    order = [expected.index(x) for x in letters] if sorted(letters) == expected else list(range(len(notes)))
    labels, gold = [""] * len(answers), [False] * len(answers)
    for note, position in zip(notes, order):
        labels[position] = str(note.get("label", "")).strip()
        value = note.get("value")
        value = value if isinstance(value, bool) else parse_bool(str(value))
        if value is None:
            row.problem = Problem("bad_value", f"{row.where}: annotation {expected[position]}: value "
                                               f"{note.get('value')!r} is not true/false; fix it or pass --repair")
            return row
        gold[position] = value
    row.labels, row.gold = labels, gold
    if sum(gold) == 1:
        at = gold.index(True)
        option, answer = item.get("Correct_option"), item.get("Correct_answer")
        if option is not None and str(option).strip().upper() != expected[at]:
            row.problem = Problem("gold_label_conflict", f"{row.where}: Correct_option is {option!r} but the "
                                  f"annotation marks {expected[at]} as the answer; fix the item or pass --repair")
        elif answer is not None and str(answer).strip() != row.answers[at]:
            row.problem = Problem("gold_label_conflict", f"{row.where}: Correct_answer {str(answer)!r:.50} is not "
                                  f"candidate {expected[at]}, which the annotation marks; fix it or pass --repair")
    return row


def _gold_only(row: ReleasedRow, item: dict) -> ReleasedRow:
    """An item without annotations: the gold from Correct_option, else Correct_answer; distractor labels unknown."""
    expected = list(string.ascii_uppercase[:len(row.answers)])
    option, answer = item.get("Correct_option"), item.get("Correct_answer")
    option = str(option).strip().upper() if option is not None else None
    if option is not None and option not in expected:
        row.problem = Problem("bad_value", f"{row.where}: Correct_option {option!r} is not one of the "
                              f"{len(expected)} options A-{expected[-1]}; fix the item or pass --repair")
        return row
    at = expected.index(option) if option is not None else (
        row.answers.index(str(answer).strip()) if answer is not None and str(answer).strip() in row.answers else None)
    if at is None:
        row.problem = Problem("no_gold", f"{row.where}: no Answer_set_annotation and no Correct_option or "
                              "Correct_answer among the candidates; fix the item or pass --repair to drop it")
        return row
    if answer is not None and str(answer).strip() != row.answers[at]:
        row.problem = Problem("gold_label_conflict", f"{row.where}: Correct_answer {str(answer)!r:.50} is not "
                              f"candidate {expected[at]}, which Correct_option names; fix it or pass --repair")
        return row
    row.labels, row.gold, row.labels_known = [""] * len(row.answers), [i == at for i in range(len(row.answers))], False
    return row


def _lines(text: Any) -> list[str] | None:
    """The sentences of a concatenated field (``1\tsentence`` or ``A\tsentence`` per line), None if absent."""
    if not isinstance(text, str):
        return None
    return [line.split("\t", 1)[1] if "\t" in line else line for line in text.split("\n") if line.strip()]


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)
