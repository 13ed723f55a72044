"""From BLM records to training data: loading splits, carving a validation split, indexing unique sentences."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable, Sequence

import datasets
import torch

from blm_datasets.sources import load_source
from builders.record import ERROR_CLASSES

from .collator import IGNORE_INDEX
from .errors import DataError, UsageError



class MissingSplitError(DataError):
    """A dataset lacks a split training needs (train, test)."""


def load_splits(dataset_config: str | None = None, dataset_path: str | None = None, *, size: int | None = None,
                seed: int = 42, progress: bool = False) -> datasets.DatasetDict:
    """Train and test splits of a BLM config, through the toolkit's one loader (``load_source``).

    ``dataset_config`` alone: the registered config, generated; ``dataset_path`` alone: a save_to_disk
    folder (or a folder holding one config); both: that config of a `blm export` folder, a `blm generate
    --out` folder or a Hub dataset repo. Missing or empty splits are clear errors. ``size`` and ``seed`` size and
    seed a generated config (``progress``: say so on stderr while it is generated).
    """
    if dataset_config is None and dataset_path is None:
        raise UsageError("give --dataset_config NAME (generated, e.g. agr_en_typeI), --dataset_path FOLDER "
                         "(a save_to_disk DatasetDict), or both (a config of a `blm export` folder or Hub repo)")
    source = f"{dataset_path} ({dataset_config})" if dataset_path and dataset_config else dataset_config or dataset_path
    loaded = load_source(dataset_path, dataset_config, size=size, seed=seed, progress=progress)
    for split in ("train", "test"):
        if split not in loaded:
            raise MissingSplitError(
                f"{source} has splits {sorted(loaded)} but no {split!r} split; BLM training needs 'train' and 'test' "
                "(validation is carved from train). Regenerate the config with a test split, or pass "
                "--test_dataset_config / --test_dataset_path for the test data."
            )
        if len(loaded[split]) == 0:
            raise MissingSplitError(f"the {split!r} split of {source} is empty; generate a larger dataset")
    return loaded


def instance_key(row: dict) -> str:
    """Identity of an instance by content (context + answers), so duplicates never straddle two splits."""
    payload = json.dumps([row["context"], row["answers"]], ensure_ascii=False)
    return hashlib.blake2b(payload.encode("utf-8"), digest_size=12).hexdigest()


def subsample(dataset: datasets.Dataset, limit: int | None, seed: int) -> datasets.Dataset:
    """At most `limit` random instances (the papers sample 2000 training instances); None or <=0 keeps all."""
    if limit is None or limit <= 0 or len(dataset) <= limit:
        return dataset
    return dataset.shuffle(seed=seed).select(range(limit))


def carve_validation(
    train: datasets.Dataset, fraction: float = 0.2, seed: int = 42
) -> tuple[datasets.Dataset, datasets.Dataset]:
    """Split off `fraction` of train as validation, by distinct instances (identical instances stay together)."""
    if not 0 < fraction < 1:
        raise DataError(f"--validation_fraction {fraction:g}: must be between 0 and 1 (exclusive), e.g. 0.2")
    groups: dict[str, list[int]] = {}
    for position, row in enumerate(train.select_columns(["context", "answers"])):
        groups.setdefault(instance_key(row), []).append(position)
    keys = sorted(groups)
    random.Random(seed).shuffle(keys)
    target = max(1, round(fraction * len(train)))
    validation: list[int] = []
    for key in keys:
        if len(validation) >= target:
            break
        validation.extend(groups[key])
    chosen = set(validation)
    remaining = [position for position in range(len(train)) if position not in chosen]
    if not remaining:
        raise DataError(f"train has {len(train)} instances ({len(groups)} distinct): too few to carve a validation "
                        f"split of {fraction:g} and keep some to train on; use more data (--max_train_instances 0 "
                        "takes all of train) or a smaller --validation_fraction")
    return train.select(remaining), train.select(sorted(validation))


def context_length_of(splits: Iterable[datasets.Dataset]) -> int:
    """The one context length of the data (7 for most phenomena, 4 for COS+); mixed lengths are an error."""
    lengths: set[int] = set()
    for split in splits:
        lengths.update(len(context) for context in split["context"])
    if len(lengths) != 1:
        raise DataError(f"contexts of different lengths {sorted(lengths)} in one run; train one phenomenon at a time")
    return lengths.pop()


def answer_label_vocabulary(splits: Iterable[datasets.Dataset]) -> list[str]:
    """Every answer label of the data, gold first, then sorted."""
    names: set[str] = set()
    for split in splits:
        for labels in split["answer_labels"]:
            names.update(labels)
    return sorted(names, key=lambda name: (name != "Correct", name))


class IndexedBlmDataset(torch.utils.data.Dataset):
    """Instances as indices into one table of unique sentences, plus gold index and per-candidate label ids."""

    def __init__(self, rows: list[dict[str, torch.Tensor]]) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        return self.rows[index]


class SentenceIndex:
    """Unique sentences of all splits, each stored once; instances refer to them by position."""

    def __init__(self, label_names: Sequence[str], class_names: Sequence[str] = ERROR_CLASSES) -> None:
        self.sentences: list[str] = []
        self.positions: dict[str, int] = {}
        self.label_ids = {name: i for i, name in enumerate(label_names)}
        self.class_ids = {name: i for i, name in enumerate(class_names)}
        self.occurrences = 0

    def position(self, sentence: str) -> int:
        """Position of a sentence in the table, adding it on first sight."""
        self.occurrences += 1
        found = self.positions.get(sentence)
        if found is None:
            found = self.positions[sentence] = len(self.sentences)
            self.sentences.append(sentence)
        return found

    def index(self, split: datasets.Dataset) -> IndexedBlmDataset:
        """A split as tensors of sentence positions and label ids."""
        columns = split.select_columns(["context", "answers", "answer_labels", "answer_error_classes", "label"])
        rows = []
        for row in columns:
            rows.append(
                {
                    "context_ids": torch.tensor([self.position(s) for s in row["context"]], dtype=torch.long),
                    "answer_ids": torch.tensor([self.position(s) for s in row["answers"]], dtype=torch.long),
                    "labels": torch.tensor(row["label"], dtype=torch.long),
                    "answer_label_ids": torch.tensor([self.label_ids.get(n, IGNORE_INDEX) for n in row["answer_labels"]]),
                    "answer_class_ids": torch.tensor(
                        [self.class_ids.get(n, IGNORE_INDEX) for n in row["answer_error_classes"]]
                    ),
                }
            )
        return IndexedBlmDataset(rows)
