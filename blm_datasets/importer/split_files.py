"""The release's own train/test split: ``datasets/{train,test}/sentences/{x,y,labels,truth_bool}.json``
folders and ``split_info.json``, and split names in file names.

The split folders hold, per instance and in the same order, the context sentences (``x``), the
candidates (``y``), their labels and their truth values; ``split_info.json`` lists row indices (the
index column of the files beside it) per split. Either assigns the rows of the release files next
to it to splits; split folders with no release file beside them are imported on their own.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from blm_datasets.importer.calamita_json import load_json
from blm_datasets.importer.cells import parse_bool
from blm_datasets.importer.rows import Problem, ReleasedRow, ReleaseError, SourceFile

PARTS = ("x", "y", "labels", "truth_bool")
_SPLIT_NAMES = {"train": "train", "training": "train", "fewshot": "train", "few_shot": "train",
                "test": "test", "testing": "test",
                "dev": "validation", "valid": "validation", "validation": "validation", "val": "validation"}


def split_name(name: str) -> str | None:
    """The split a file or folder name stands for (``BLM_agr_train.tsv`` → train); ``4dev`` is no split."""
    tokens = re.split(r"[^a-z0-9]+", name.lower())
    found = {_SPLIT_NAMES[t] for t in tokens if t in _SPLIT_NAMES}
    joined = re.sub(r"[^a-z]", "", name.lower())
    if "fewshot" in joined:
        found.add("train")
    return found.pop() if len(found) == 1 else None


def is_split_part(path: Path) -> bool:
    """``…/sentences/x.json`` and its siblings."""
    return path.suffix == ".json" and path.stem in PARTS and path.parent.name == "sentences"


def split_of_part(path: Path) -> str | None:
    """The split of ``datasets/<split>/sentences/x.json``."""
    return split_name(path.parent.parent.name)


def read_split_folder(folder: Path, encoding: str = "utf-8") -> SourceFile:
    """One ``<split>/sentences`` folder as rows (no patterns, no chunks)."""
    split = split_of_part(folder / "x.json")
    missing = [f"{p}.json" for p in PARTS if not (folder / f"{p}.json").is_file()]
    if missing:
        raise ReleaseError(f"{folder}: split folder without {', '.join(missing)}; it needs "
                           f"{', '.join(p + '.json' for p in PARTS)}")
    parts = {p: load_json(folder / f"{p}.json", encoding) for p in PARTS}
    sizes = {p: len(v) if isinstance(v, list) else -1 for p, v in parts.items()}
    if min(sizes.values()) < 0 or len(set(sizes.values())) != 1:
        raise ReleaseError(f"{folder}: x, y, labels and truth_bool must be JSON lists of the same length, found "
                           + ", ".join(f"{p} {'not a list' if n < 0 else n}" for p, n in sizes.items()))
    source = SourceFile(folder / "x.json", "split-json", [], split=split)
    for i in range(sizes["x"]):
        source.rows.append(_row(folder, i + 1, {p: parts[p][i] for p in PARTS}, split))
    source.answer_columns = max((len(r.answers) for r in source.rows), default=0)
    source.label_columns = [f"labels.json[{i}]" for i in range(source.answer_columns)]
    return source


def _row(folder: Path, number: int, item: dict[str, Any], split: str | None) -> ReleasedRow:
    row = ReleasedRow(folder / "x.json", number, "", item=True, split=split)
    lists = {p: item[p] for p in PARTS}
    if not all(isinstance(v, list) for v in lists.values()) or not all(
            isinstance(s, str) for p in ("x", "y") for s in lists[p]):
        row.problem = Problem("bad_value", f"{row.where}: x and y must hold lists of sentences, labels and "
                                           "truth_bool lists; fix the split files or pass --repair")
        return row
    row.context, row.answers = [s.strip() for s in lists["x"]], [s.strip() for s in lists["y"]]
    row.labels = [str(v).strip() for v in lists["labels"]]
    row.gold = [v if isinstance(v, bool) else parse_bool(str(v)) for v in lists["truth_bool"]]
    if len(row.labels) != len(row.answers) or len(row.gold) != len(row.answers) or None in row.gold:
        row.problem = Problem("missing_cells", f"{row.where}: {len(row.answers)} candidates, {len(row.labels)} "
                                               f"labels and {len(row.gold)} truth values; fix the split files or "
                                               "pass --repair to drop the instance")
    return row


def read_split_info(path: Path, encoding: str = "utf-8") -> tuple[dict[str, set[str]], str]:
    """({split: row indices}, a note) from split_info.json; a file without index lists gives ({}, note)."""
    data = load_json(path, encoding)
    found: dict[str, set[str]] = {}
    if isinstance(data, dict):
        for key, value in data.items():
            split = split_name(str(key).replace("_ids", "").replace("_idx", "").replace("_index", ""))
            if split and isinstance(value, list) and all(isinstance(v, (int, str)) for v in value):
                found.setdefault(split, set()).update(str(v).strip() for v in value)
    if found:
        return found, f"{path.name}: " + ", ".join(f"{s} {len(v)} rows" for s, v in sorted(found.items()))
    shown = ", ".join(f"{k}" for k in data) if isinstance(data, dict) else type(data).__name__
    return {}, f"{path.name} holds no row lists per split (keys: {shown}); not used to split"
