"""Generation runs with the cyclic garbage collector paused (builders.gc_pause): safe only while it makes no
reference cycles, which is checked here for a config of every phenomenon and lexical type."""

from __future__ import annotations

import gc

import pytest

from builders import registry
from builders.gc_pause import paused_gc
from builders.generate import Options, generate, generate_with_twin

# one paper config per phenomenon and lexical type, taken from the registry (natural CausH needs a corpus)
CONFIGS = sorted({(s.phenomenon, s.lexical_type): s.name for s in registry.all_specs()
                  if not s.balanced and "natural" not in s.name}.values())


def test_paused_gc_restores_the_collector_and_nests():
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # off before: stays off
    finally:
        gc.enable()
    with pytest.raises(KeyError), paused_gc():
        raise KeyError("x")
    assert gc.isenabled()


def test_what_a_pause_keeps_leaves_the_young_generation_and_stays_collectable():
    """The first collection after a pause would walk everything the pause allocated and kept; it is moved to the
    oldest generation instead, where a full collection still frees its cycles."""
    gc.collect()
    with paused_gc():
        kept = [[i] for i in range(1000)]
        cycle = [[]]
        cycle[0].append(cycle)
    assert not any(o is kept for o in gc.get_objects(generation=0))
    assert any(o is kept for o in gc.get_objects(generation=2)) and gc.get_freeze_count() == 0
    gc.collect()
    del cycle
    assert gc.collect() >= 2  # the dropped cycle (a list holding a list holding it) is still found


def test_generation_pauses_the_collector_and_leaves_it_on():
    seen = []
    spec = registry.get_spec(CONFIGS[0])
    gen = registry.generator(spec.phenomenon, spec.language)
    original = type(gen).realise

    def realise(self, *args):
        seen.append(gc.isenabled())
        return original(self, *args)

    type(gen).realise = realise
    try:
        generate(spec, Options(size=20), progress=False)
    finally:
        type(gen).realise = original
    assert seen and not any(seen)
    assert gc.isenabled()


@pytest.mark.parametrize("name", CONFIGS)
def test_generation_makes_no_reference_cycles(name):
    spec = registry.get_spec(name)
    run = generate_with_twin if registry.generator_class(spec.phenomenon).has_balanced else generate
    run(spec, Options(size=40), progress=False)  # lexicons and caches loaded
    gc.collect()
    gc.disable()
    try:
        out = run(spec, Options(size=60, seed=7), progress=False)
        del out
        assert gc.collect() == 0, f"{name}: generation left cyclic garbage, which a paused collector keeps"
    finally:
        gc.enable()
