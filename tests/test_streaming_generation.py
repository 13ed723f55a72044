"""Generation that streams: the builder realises instances into pickled chunks and yields them shard by shard, with
exactly the rows of in-memory generation for the same seed, and leaves no spill files behind."""

from __future__ import annotations

import os
import signal

import datasets
import pytest

import blm_datasets  # noqa: F401 - the load_dataset("blm") hook
from builders import generate as generation
from builders import registry
from builders.base import GeneratorBug
from builders.generate import Options, WorkerDied, generate, plan_splits, read_shard, spill_split


@pytest.mark.parametrize("name, size", [("agr_fr_typeII", 300), ("cos_it_typeIII", 120), ("sprayload_en_altatl_typeI", 90)])
def test_spilled_shards_hold_the_rows_generate_returns(tmp_path, name, size):
    spec = registry.get_spec(name)
    opts = Options(seed=7, size=size)
    expected = generate(spec, opts, progress=False)
    for split, plans in plan_splits(spec, opts).items():
        shards = spill_split((spec,), split, plans, opts, 1, tmp_path)[0]
        assert len(shards) >= 1
        rows = [record for shard in shards for record in read_shard(shard)]
        assert rows == expected[split].records


def test_the_builder_gives_the_in_memory_rows_and_cleans_its_spill_folder(tmp_path):
    spec = registry.get_spec("agr_it_typeIII")
    expected = generate(spec, Options(seed=3, size=250), progress=False)
    cache = tmp_path / "cache"
    loaded = datasets.load_dataset("blm", "agr_it_typeIII", size=250, seed=3, num_proc=2, cache_dir=str(cache))
    for split in ("train", "test"):
        assert loaded[split].to_list() == expected[split].records
    leftovers = [path for path in cache.rglob("*") if path.name.startswith(".blm-spill-") or path.suffix == ".pickle"]
    assert leftovers == []


def test_streaming_without_prepare_gives_the_same_rows(tmp_path):
    expected = generate(registry.get_spec("agr_en_typeI"), Options(size=60), progress=False)["test"].records
    stream = datasets.load_dataset("blm", "agr_en_typeI", size=60, split="test", streaming=True,
                                   cache_dir=str(tmp_path))
    assert list(stream) == expected


def test_a_bad_instance_in_a_spilled_chunk_names_the_record(tmp_path):
    spec = registry.get_spec("agr_en_typeI")
    opts = Options(size=40)
    plans = plan_splits(spec, opts)["train"]

    def failing_check(record, spec):
        return ["planted failure"] if record["id"].endswith("000005") else []

    with pytest.raises(GeneratorBug, match="planted failure") as raised:
        spill_split((spec,), "train", plans, opts, 1, tmp_path, check=failing_check)
    assert "agr_en_typeI-train-000005" in str(raised.value)


def test_a_duplicate_across_spilled_chunks_is_a_generator_bug(tmp_path, monkeypatch):
    spec = registry.get_spec("agr_en_typeII")
    opts = Options(size=300)
    plans = plan_splits(spec, opts)["train"]
    plans = plans[:100] + [plans[0]] + plans[101:]  # instance 100 repeats instance 0, in another chunk
    with pytest.raises(GeneratorBug, match="duplicate of agr_en_typeII-train-000000"):
        spill_split((spec,), "train", plans, opts, 1, tmp_path)


def _die_in_worker(job):
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_killed_spilling_worker_fails_naming_the_config(tmp_path, monkeypatch):
    monkeypatch.setattr(generation, "_realise_chunk", _die_in_worker)
    spec = registry.get_spec("agr_en_typeII")
    opts = Options(size=600)
    with pytest.raises(WorkerDied, match="agr_en_typeII train: a generation worker died"):
        spill_split((spec,), "train", plan_splits(spec, opts)["train"], opts, 2, tmp_path)


def test_first_duplicate_names_the_earliest_repeat_and_its_first_occurrence():
    def key(n):
        return bytes([n]) * 16

    assert generation.first_duplicate(b"".join(key(n) for n in (1, 2, 3, 4))) is None
    # position 3 repeats position 1 before position 5 repeats position 2; position 4 repeats 1 again
    keys = b"".join(key(n) for n in (0, 7, 9, 7, 7, 9))
    assert generation.first_duplicate(keys) == (1, 3)
    # keys that differ only in trailing zero bytes are different keys
    assert generation.first_duplicate(b"a" + bytes(15) + b"a" + bytes(14) + b"\x01") is None
