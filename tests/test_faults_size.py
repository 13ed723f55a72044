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
