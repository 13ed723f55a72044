"""load_dataset("blm", ...) through the hook: splits, features, num_proc, streaming, cache keys."""

import shutil

import datasets
import pytest

import blm_datasets
from blm_datasets import digest
from blm_datasets.features import FEATURES


def test_load_dataset_returns_train_and_test(tmp_path):
    dd = datasets.load_dataset("blm", "agr_en_typeIII", size=200, cache_dir=str(tmp_path))
    assert set(dd) == {"train", "test"}
    assert dd["train"].features == FEATURES
    assert dd["test"][0]["id"].startswith("agr_en_typeIII-test-")


def test_num_proc_gives_the_same_rows(tmp_path):
    one = datasets.load_dataset("blm", "agr_it_typeII", size=300, cache_dir=str(tmp_path / "a"))
    two = datasets.load_dataset("blm", "agr_it_typeII", size=300, num_proc=2, cache_dir=str(tmp_path / "b"))
    assert one["train"].to_list() == two["train"].to_list()


def test_streaming_and_config_names(tmp_path):
    stream = datasets.load_dataset("blm", "agr_ro_typeI", size=100, split="test", streaming=True,
                                   cache_dir=str(tmp_path))
    assert next(iter(stream))["language"] == "ro"
    assert "agr_fr_typeIII_balanced" in datasets.get_dataset_config_names("blm")
    assert blm_datasets.config_names() == datasets.get_dataset_config_names("blm")


def test_unknown_config_error_lists_valid_names(tmp_path):
    with pytest.raises(ValueError, match="unknown BLM config 'agr_xx_typeI'"):
        datasets.load_dataset("blm", "agr_xx_typeI", cache_dir=str(tmp_path))


def test_cache_key_changes_with_lexicon_content(tmp_path):
    """The digest of a copy of the tree changes when a lexicon of the copy is edited (the shipped
    files are never touched: other processes may be reading them)."""
    for root in ("builders", "blm_datasets"):
        shutil.copytree(digest.BASE / root, tmp_path / root, ignore=shutil.ignore_patterns("__pycache__"))
    before = digest.source_digest(tmp_path)
    assert before == digest.source_digest()
    lexicon = tmp_path / "builders" / "agr" / "lexicons" / "en.yaml"
    lexicon.write_bytes(lexicon.read_bytes() + b"\n# edited\n")
    digest.source_digest.cache_clear()
    assert digest.source_digest(tmp_path) != before


def test_other_paths_still_reach_datasets(tmp_path):
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    ds = datasets.load_dataset(str(tmp_path), split="train", cache_dir=str(tmp_path / "c"))
    assert ds[0] == {"a": 1, "b": 2}
