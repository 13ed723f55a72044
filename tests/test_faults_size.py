"""The up-front size bound: a --size whose generation would not fit in memory is refused before planning, with
the largest size that fits, for every lexical type; sizes the combinatorics cannot fill keep their own error."""

from __future__ import annotations

import time

import pytest

from blm_cli.main import main
from builders import memory_bound, registry
from builders.base import ImpossibleSize
from builders.generate import Options, plan_splits


@pytest.mark.parametrize("name", ["agr_en_typeI", "agr_en_typeII", "agr_en_typeIII", "cosplus_en_t2i_typeIII"])
def test_a_size_beyond_memory_is_refused_before_planning(monkeypatch, name):
    monkeypatch.setattr(memory_bound, "available_bytes", lambda: memory_bound.RESERVE + 1000 * memory_bound.PER_INSTANCE)
    gen = registry.generator(registry.get_spec(name).phenomenon, registry.get_spec(name).language)
    monkeypatch.setattr(type(gen), "plan", lambda *a, **k: pytest.fail("planned a size that cannot fit"))
    with pytest.raises(ImpossibleSize, match=r"--size 5000 needs about .* ask for at most 1000 \(--size 1000\)"):
        plan_splits(registry.get_spec(name), Options(size=5000))


def test_the_cli_refuses_ten_million_at_once(capsys):
    start = time.perf_counter()
    assert main(["generate", "agr_en_typeII", "--size", "10000000", "--out", "/nonexistent/never-written"]) == 2
    err = capsys.readouterr().err
    assert time.perf_counter() - start < 30
    assert err.count("\n") == 1 and "ask for at most" in err and "--size 10000000 needs about" in err
    fit = int(err.split("(--size ")[1].split(")")[0])
    assert fit == memory_bound.largest_size() or abs(fit - memory_bound.largest_size()) < 10_000


def test_limits_are_read_from_meminfo_cgroup_and_rlimit(monkeypatch):
    import resource

    real = memory_bound.available_bytes()
    assert 0 < real < 1 << 50
    monkeypatch.setattr(resource, "getrlimit", lambda which: (2 * 1024 ** 3, resource.RLIM_INFINITY))
    assert memory_bound.available_bytes() == min(real, 2 * 1024 ** 3)
    assert memory_bound.largest_size(2 * 1024 ** 3) == 1024 ** 3 // memory_bound.PER_INSTANCE


def test_a_size_the_lexicon_cannot_fill_still_names_the_largest_that_fits():
    with pytest.raises(ImpossibleSize, match=r"--size 100000"):
        plan_splits(registry.get_spec("agr_en_typeI"), Options(size=100_000))


# --- the combinatorial bound (builders.size_bound): memory made plentiful, so only the lexicon's count refuses --

TYPE_II_III = ["agr_en_typeII", "agr_it_typeIII", "cos_en_typeII", "od_it_typeIII", "sprayload_en_altatl_typeII",
               "sprayload_en_atlalt_typeIII", "cosplus_demix_t2i_typeIII", "caush_he_synthetic_typeIII"]


def _bound(name: str, split_lemmas=None) -> tuple:
    spec = registry.get_spec(name)
    gen = registry.generator(spec.phenomenon, spec.language)
    return spec, gen, gen.plan_bound(spec, gen.lemmas(spec) if split_lemmas is None else split_lemmas)


@pytest.mark.parametrize("name", TYPE_II_III)
def test_a_size_beyond_the_lexicon_is_refused_before_any_draw(monkeypatch, name):
    monkeypatch.setattr(memory_bound, "available_bytes", lambda: 1 << 200)
    spec, gen, whole = _bound(name)
    assert whole is not None and whole > 0
    monkeypatch.setattr(type(gen), "plan", lambda *a, **k: pytest.fail("drew plans for a size beyond the lexicon"))
    asked = whole * 1000
    start = time.perf_counter()
    with pytest.raises(ImpossibleSize) as caught:
        plan_splits(spec, Options(size=asked, split="random"))
    assert time.perf_counter() - start < 5
    assert caught.value.upper_bound and caught.value.possible == whole
    assert f"at most {whole} (an upper bound counted before drawing)" in str(caught.value)
    with pytest.raises(ImpossibleSize) as caught:          # lemma split: the split that cannot hold its share
        plan_splits(spec, Options(size=asked))
    message = str(caught.value)
    assert "upper bound counted from the lexicon" in message and f"--size {caught.value.possible})" in message
    assert 2 <= caught.value.possible < asked


def test_the_bound_grows_with_the_lexicon_and_counts_each_sentences_choices():
    """agr type II: per clause and seed, the product over the 8 sentences of the alternatives their slots offer
    (what the planner chooses among); one seed less is exactly that seed's share less."""
    spec, gen, whole = _bound("agr_en_typeII")
    seeds = gen.lemmas(spec)
    _, _, without_one = _bound("agr_en_typeII", seeds[1:])
    import math

    share = len(gen.sequence_variants) * sum(
        math.prod(sum(len(gen._pool(seeds[0], slot)) for slot in gen._visible_slots(i, clause)) for i in range(8))
        for clause in gen.clauses)
    assert whole - without_one == share > 0


def test_the_cli_refuses_a_size_beyond_the_lexicon_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(memory_bound, "available_bytes", lambda: 1 << 200)
    asked = 10 ** 30
    assert main(["generate", "agr_en_typeII", "--size", str(asked), "--out", "/nonexistent/never-written"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "upper bound counted from the lexicon" in err and f"--size {asked}" in err


def test_a_size_within_the_bound_still_plans_as_before():
    spec, gen, whole = _bound("cos_en_typeII")
    plans = plan_splits(spec, Options(size=40, seed=7))
    assert sum(map(len, plans.values())) == 40


def test_the_datasets_builder_refuses_a_size_beyond_the_lexicon_before_any_draw(monkeypatch, tmp_path):
    import datasets

    import blm_datasets  # noqa: F401  (registers the "blm" name)

    monkeypatch.setattr(memory_bound, "available_bytes", lambda: 1 << 200)
    spec, gen, whole = _bound("sprayload_en_altatl_typeIII")
    monkeypatch.setattr(type(gen), "plan", lambda *a, **k: pytest.fail("drew plans for a size beyond the lexicon"))
    with pytest.raises(ImpossibleSize, match="upper bound counted from the lexicon"):
        datasets.load_dataset("blm", spec.name, size=whole * 10, cache_dir=str(tmp_path))


def test_no_size_fitting_in_memory_says_so_instead_of_offering_size_zero(monkeypatch):
    monkeypatch.setattr(memory_bound, "available_bytes", lambda: memory_bound.RESERVE // 2)
    with pytest.raises(ImpossibleSize) as caught:
        plan_splits(registry.get_spec("agr_en_typeII"), Options(size=100))
    assert "--size 0" not in str(caught.value) and "free memory, or generate on a machine" in str(caught.value)


def test_a_full_disk_while_generate_writes_leaves_no_half_written_files(tmp_path, monkeypatch, capsys):
    import errno

    import datasets

    def full(self, path, *args, **kwargs):
        with open(path, "wb") as handle:
            handle.write(b"x" * 4096)            # what the disk took before it was full
        raise OSError(errno.ENOSPC, "No space left on device", path)
    monkeypatch.setattr(datasets.Dataset, "to_parquet", full)
    out = tmp_path / "out"
    assert main(["generate", "agr_en_typeI", "--size", "40", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left" in err
    assert [p.name for p in out.iterdir()] == []


def test_the_split_that_allows_the_smaller_total_is_the_one_named(monkeypatch):
    from builders.generate import SplitShares

    monkeypatch.setattr(memory_bound, "available_bytes", lambda: 1 << 200)
    spec, gen, _ = _bound("agr_en_typeII")
    monkeypatch.setattr(type(gen), "plan_bound", lambda self, spec, lemmas: 10 * len(lemmas) ** 2)
    monkeypatch.setattr(type(gen), "plan", lambda *a, **k: pytest.fail("drew plans for a size beyond the lexicon"))
    with pytest.raises(ImpossibleSize) as caught:
        plan_splits(spec, Options(size=100_000))
    assert "the test split" in str(caught.value)
    fit = caught.value.possible
    n_lemmas = len(gen.lemmas(spec))
    n_test = int(str(caught.value).split("the test split (")[1].split(" lemmas")[0])
    sizes = SplitShares(n_lemmas, n_test, 0).sizes(fit)
    assert sizes["test"] <= 10 * n_test ** 2 and sizes["train"] <= 10 * (n_lemmas - n_test) ** 2
    assert SplitShares(n_lemmas, n_test, 0).sizes(fit + 1)["test"] > 10 * n_test ** 2


def test_train_py_names_its_own_size_flag_and_takes_blm_s(monkeypatch):
    """train.py's refusal names --dataset_size (its flag), and it takes `blm generate`'s --size too."""
    from blm_models.arguments import parse_arguments
    from blm_models.errors import DataError
    from blm_models.train_job import load_checked_splits

    monkeypatch.setattr(memory_bound, "available_bytes", lambda: memory_bound.RESERVE + 1000 * memory_bound.PER_INSTANCE)
    with pytest.raises(DataError, match=r"--dataset_config agr_en_typeII: .*--dataset_size 5000 needs about .*"
                                        r"\(--dataset_size 1000\)") as error:
        load_checked_splits("agr_en_typeII", None, size=5000)
    assert "--size" not in str(error.value)
    data_args = parse_arguments(["--dataset_config", "agr_en_typeI", "--size", "40", "--output_dir", "x"])[0]
    assert data_args.dataset_size == 40
