"""load_source: every kind of data source gives the generated rows back, and every broken one a clear error."""

from __future__ import annotations

import shutil

import datasets
import pytest

from blm_datasets.export import export
from blm_datasets.features import FEATURES
from blm_datasets.sources import (
    CacheCorrupt,
    SourceError,
    load_source,
    require_split,
    source_configs,
    source_kind,
)
from blm_eval.lm_eval_tasks.utils import TaskDataError, load_task_data
from blm_models.arguments import DataArguments
from blm_models.data import MissingSplitError, load_splits
from builders.generate import Options

SIZE = 40
A, B = "agr_en_typeI", "agr_fr_typeII"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    return {name: load_source(None, name, size=SIZE, cache_dir=cache) for name in (A, B)}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("src") / "export"
    export([A, B], out, Options(size=SIZE), audit=False, report=None, progress=False)
    return out


def rows(dd):
    return {split: ds.to_list() for split, ds in dd.items()}


def test_generated_config_has_train_and_test_of_the_asked_size(generated):
    dd = generated[A]
    assert set(dd) == {"train", "test"} and len(dd["train"]) + len(dd["test"]) == SIZE
    assert dd["train"].features == FEATURES


def test_unknown_config_suggests_the_close_name():
    with pytest.raises(ValueError, match="Did you mean: agr_en_typeI"):
        load_source(None, "agr_en_typei", size=SIZE)


def test_export_folder_gives_back_the_generated_rows_and_features(exported, generated):
    for name in (A, B):
        dd = load_source(exported, name)
        assert rows(dd) == rows(generated[name])
        assert dd["test"].features == FEATURES
    assert source_kind(exported) == "export" and source_configs(exported) == [A, B]


def test_export_folder_reads_like_datasets_load_dataset(exported, tmp_path):
    reference = datasets.load_dataset(str(exported), B, cache_dir=str(tmp_path))
    assert rows(load_source(exported, B)) == rows(reference)


def test_export_folder_unknown_or_missing_config_lists_the_folders_configs(exported):
    with pytest.raises(SourceError, match=f"has no config 'agr_it_typeI'; it has: {A}, {B}"):
        load_source(exported, "agr_it_typeI")
    with pytest.raises(SourceError, match=f"holds 2 configs; name one of: {A}, {B}"):
        load_source(exported, None)


def test_save_to_disk_folder_with_or_without_the_config_name(generated, tmp_path):
    generated[A].save_to_disk(str(tmp_path / "saved"))
    assert rows(load_source(tmp_path / "saved")) == rows(generated[A])
    assert rows(load_source(tmp_path / "saved", A)) == rows(generated[A])
    with pytest.raises(SourceError, match=f"holds config {A}, not {B}"):
        load_source(tmp_path / "saved", B)
    generated[A]["train"].save_to_disk(str(tmp_path / "single"))
    with pytest.raises(SourceError, match="single Dataset, not a DatasetDict"):
        load_source(tmp_path / "single")


@pytest.mark.parametrize("fmt", ["parquet", "json", "arrow"])
def test_blm_generate_out_folder(generated, tmp_path, fmt):
    from blm_cli.main import main

    assert main(["generate", A, "--size", str(SIZE), "--out", str(tmp_path), "--format", fmt]) == 0
    assert rows(load_source(tmp_path, A)) == rows(generated[A])
    with pytest.raises(SourceError, match=f"has no config {B!r}; it has: {A}"):
        load_source(tmp_path, B)


def test_hub_repo_offline_says_so_and_how_to_use_a_folder(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(SourceError, match=r"Hub is offline \(HF_HUB_OFFLINE is set\).*--local-dir DIR.*pass the folder"):
        load_source("some-org/blm", A)
    assert source_kind("some-org/blm") == "hub"


@pytest.mark.parametrize("make, message", [
    (lambda p: p / "missing", "no such folder"),
    (lambda p: (p / "file.txt").write_text("x") and p / "file.txt", "is a file, not a data folder"),
    (lambda p: (p / "data.csv").write_text("a,b\n1,2\n") and p, "is not a BLM data folder"),
])
def test_paths_that_are_no_data_source(tmp_path, make, message):
    with pytest.raises(SourceError, match=message):
        load_source(make(tmp_path), A)


def test_truncated_parquet_names_the_file(exported, tmp_path):
    copy = shutil.copytree(exported, tmp_path / "copy")
    shard = next((copy / A).glob("test-*.parquet"))
    shard.write_bytes(shard.read_bytes()[:300])
    with pytest.raises(SourceError, match=rf"{shard.name} cannot be read .* truncated"):
        load_source(copy, A)
    assert len(load_source(copy, B)["test"]) > 0  # the other config still loads


def test_empty_config_folder_says_the_export_is_incomplete(exported, tmp_path):
    copy = shutil.copytree(exported, tmp_path / "copy")
    for shard in (copy / A).iterdir():
        shard.unlink()
    with pytest.raises(SourceError, match=f"config {A} lists split 'train'.*no file matches.*incomplete"):
        load_source(copy, A)


def test_unparsable_card_names_the_card(exported, tmp_path):
    copy = shutil.copytree(exported, tmp_path / "copy")
    (copy / "README.md").write_text("---\nconfigs: [\n---\n")
    with pytest.raises(SourceError, match=r"README.md: the YAML header does not parse"):
        load_source(copy, A)


def test_missing_and_empty_splits(generated):
    with pytest.raises(SourceError, match="has no 'validation' split; it has: train, test"):
        require_split(generated[A], "validation", A)
    empty = datasets.DatasetDict(test=generated[A]["test"].select([]))
    with pytest.raises(SourceError, match="'test' split of x is empty"):
        require_split(empty, "test", "x")


def test_truncated_datasets_cache_is_detected_and_named(tmp_path):
    cache = tmp_path / "cache"
    load_source(None, A, size=SIZE, cache_dir=cache)
    arrows = list(cache.rglob("*.arrow"))
    assert arrows
    for path in arrows:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 3])
    with pytest.raises(CacheCorrupt, match=r"the datasets cache at .* is corrupt.*delete it .* or pass --cache-dir"):
        load_source(None, A, size=SIZE, cache_dir=cache)
    assert len(load_source(None, A, size=SIZE, cache_dir=tmp_path / "fresh")["train"]) > 0


def test_train_py_reads_a_config_of_an_export_folder(exported, generated):
    assert rows(load_splits(A, str(exported))) == rows(generated[A])
    with pytest.raises(SourceError, match=f"name one of: {A}, {B}"):
        load_splits(None, str(exported))
    with pytest.raises(ValueError, match="give --dataset_config NAME"):
        load_splits(None, None)


def test_train_py_missing_test_split_is_a_missing_split_error(generated, tmp_path):
    datasets.DatasetDict(train=generated[A]["train"]).save_to_disk(str(tmp_path / "no_test"))
    with pytest.raises(MissingSplitError, match="no 'test' split"):
        load_splits(dataset_path=str(tmp_path / "no_test"))


def test_test_config_is_read_from_the_same_export_folder(exported):
    args = DataArguments(dataset_config=A, dataset_path=str(exported), test_dataset_config=B)
    assert args.test_dataset_path == str(exported)
    generated_test = DataArguments(dataset_config=A, test_dataset_config=B)
    assert generated_test.test_dataset_path is None


def test_lm_eval_task_loader_reads_folders_and_lists_configs(exported):
    assert len(load_task_data(A, blm_path=str(exported))["test"]) > 0
    with pytest.raises(TaskDataError, match=f"has no config 'agr_it_typeI'; it has: {A}, {B}"):
        load_task_data("agr_it_typeI", default_path=str(exported))


def test_saved_splits_without_rows_are_named(tmp_path):
    empty = {column: [] for column in FEATURES}
    datasets.DatasetDict({"train": datasets.Dataset.from_dict(empty, features=FEATURES),
                          "test": datasets.Dataset.from_dict(empty, features=FEATURES)}).save_to_disk(str(tmp_path))
    with pytest.raises(SourceError, match=r"the 'train', 'test' splits saved there hold no rows"):
        load_source(tmp_path)


def test_a_folder_named_blm_in_the_working_folder_does_not_hide_the_generator(tmp_path, monkeypatch):
    """`load_dataset("blm")` reads a local folder of that name (datasets' rule); the toolkit's loaders never do."""
    import blm_datasets

    (tmp_path / "blm" / "e5").mkdir(parents=True)   # e.g. BLM_CACHE=./blm, or `blm export --out blm`
    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "ds"
    assert len(load_source(None, A, size=SIZE, cache_dir=cache)["test"]) > 0
    assert len(blm_datasets.load_blm(A, size=SIZE, cache_dir=str(cache))["test"]) > 0
