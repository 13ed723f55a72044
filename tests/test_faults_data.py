"""Foreign or damaged datasets and failed writes, as one line: a folder without the BLM columns, a gold label
outside the answer set, a full disk during a checkpoint save (SafetensorError), a read-only embedding cache."""

from __future__ import annotations

import errno

import datasets
import pytest
import torch

from blm_datasets.sources import SourceError, check_blm_splits, load_source
from blm_models.errors import report_errors


def _blm_rows(n: int = 4, label: int = 0) -> dict:
    return {"id": [f"x-{i}" for i in range(n)], "context": [["a b c", "d e f"]] * n,
            "answers": [["g h", "i j", "k l"]] * n, "label": [label] * n,
            "answer_labels": [["Correct", "WN1", "WN2"]] * n, "answer_error_classes": [["CORRECT", "GRAMMAR", "GRAMMAR"]] * n}


def _saved(tmp_path, train: dict, test: dict):
    folder = tmp_path / "data"
    datasets.DatasetDict({"train": datasets.Dataset.from_dict(train),
                          "test": datasets.Dataset.from_dict(test)}).save_to_disk(str(folder))
    return folder


def test_a_foreign_dataset_is_one_line_naming_the_missing_columns(tmp_path, capsys):
    folder = _saved(tmp_path, {"text": ["x"], "label": [0]}, {"text": ["y"], "label": [1]})
    with pytest.raises(SourceError, match=r"split 'train' has no 'context', 'answers', .* this is not a BLM dataset"):
        load_source(folder)
    from blm_models.train_job import load_checked_splits

    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:   # train.py's path: load_splits under report_errors
        report_errors(load_checked_splits, None, str(folder))
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "not a BLM dataset" in err


def test_a_label_outside_the_answer_set_names_the_row(tmp_path):
    test = _blm_rows()
    test["label"][2] = 99
    folder = _saved(tmp_path, _blm_rows(), test)
    with pytest.raises(SourceError, match=r"split 'test' row 2 \(id x-2\) has label 99 but 3 answers"):
        load_source(folder)
    assert check_blm_splits(datasets.DatasetDict({"t": datasets.Dataset.from_dict(_blm_rows(label=2))}), "ok")


def test_a_full_disk_in_safetensors_is_one_line(capsys):
    from safetensors import SafetensorError

    def save():
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError:
            raise SafetensorError("Error while serializing: IoError(Os { code: 28, kind: StorageFull, message: "
                                  "\"No space left on device\" })") from None

    def full_write():
        raise OSError(errno.ENOSPC, "No space left on device", "/out/checkpoint-4/model.safetensors")
    for function in (save, full_write):
        with pytest.raises(SystemExit) as stop:
            report_errors(function)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("train.py: error: cannot write") and err.count("\n") == 1
    assert "/out/checkpoint-4/model.safetensors" in err


def test_a_read_only_embedding_cache_embeds_in_memory(tmp_path, monkeypatch):
    from blm_models import embedding_cache

    class Embedder:
        def embed(self, sentences, progress=True):
            return torch.ones(len(sentences), 4)

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(tmp_path))
    monkeypatch.setattr(embedding_cache.EmbeddingCache, "_write_shard", refuse)
    cache = embedding_cache.EmbeddingCache.__new__(embedding_cache.EmbeddingCache)
    cache.key, cache.directory = None, tmp_path / "cache"
    table, stats = cache.embed(["a", "b", "a"], Embedder(), progress=False)
    assert table.shape == (3, 4) and stats["computed"] == 2
    assert not (tmp_path / "cache").exists()


def test_a_full_disk_without_a_file_name_names_the_commands_output(tmp_path, monkeypatch, capsys):
    from blm_cli import export_cmds
    from blm_cli.main import main

    def full(args):
        raise OSError(errno.ENOSPC, "No space left on device")   # what a failed write() raises: no file name
    monkeypatch.setattr(export_cmds, "cmd_export", full)
    out = tmp_path / "export"
    assert main(["export", "agr_en_typeI", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left" in err and f"writing {out}" in err and ": ?" not in err


def test_a_read_only_datasets_cache_says_what_to_point_elsewhere(monkeypatch):
    from blm_models import train_job
    from blm_models.errors import DataError

    def read_only(*_args, **_kwargs):
        raise OSError(errno.EROFS, "Read-only file system", "/ro/ds")
    monkeypatch.setattr(train_job, "load_splits", read_only)
    with pytest.raises(DataError, match=r"--dataset_config agr_en_typeI: .*Read-only.*HF_DATASETS_CACHE"):
        train_job.load_checked_splits("agr_en_typeI", None, size=40)
