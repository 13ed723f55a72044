"""The shared type II / III planner (builders.planning) on a toy phenomenon with three slots and known stems."""

from __future__ import annotations

import itertools
import random
import time

import pytest

from builders import sampling
from builders.base import ConfigSpec, ImpossibleSize
from builders.lexical_types import TYPE_II_PLANNED_MEAN, pair_scores
from builders.planning import ContextPlanner

SLOTS = ("subject", "verb", "object")
POOLS = {"subject": ("girl", "boy", "cook", "nurse", "farmer", "pilot", "dogs"),
         "verb": ("see", "meet", "call", "help", "greet", "visit", "thank", "follow"),
         "object": ("dog", "cat", "horse", "goat", "lamb", "duck", "hen")}


def stem(word: str) -> str:
    """The toy's stemmer: a plural is its singular (*dogs* -> *dog*)."""
    return word.removesuffix("s")


class Toy(ContextPlanner):
    """Three sentences (two context + answer) of a subject, a verb (the lemma) and an object. Its type III
    masks are by word, not by stem, so *dogs* and *dog* pass them: only the planner's check on the context's
    stems (``context_stems``) keeps such a context out."""

    phenomenon = "toy"
    lemma_unit = "verbs"
    sentences = 3
    type_i_min_jaccard = 0.5   # a template's type I threshold

    def __init__(self, pools=POOLS):   # no template: the hooks below are all the planner reads
        self.pools, self.masks, self.starts, self.finished = pools, sampling.StemMasks(), 0, 0

    def draw_start(self, spec, lemmas, rng):
        self.starts += 1
        if spec.lexical_type == "II":
            return {"subject": rng.choice(self.pools["subject"]), "verb": rng.choice(lemmas),
                    "object": rng.choice(self.pools["object"])}
        return rng.sample(list(lemmas), len(lemmas))

    def draw_slots(self, state, i):
        return SLOTS

    def draw_swap(self, state, i, slot, rng):
        words = dict(state, **{slot: rng.choice([w for w in self.pools[slot] if w != state[slot]])})
        return tuple(words[s] for s in SLOTS)

    def draw_options(self, state, i, used, rng):
        for verb in state:
            words = (rng.choice(self.pools["subject"]), verb, rng.choice(self.pools["object"]))
            yield words, self.masks.mask(words)

    def draw_finish(self, spec, state, choices, rng):
        self.finished += 1
        return tuple(choices)

    def context_stems(self, spec, plan):
        return [frozenset(map(stem, words)) for words in plan]   # the toy checks the answer's words too


def spec(lexical_type: str) -> ConfigSpec:
    return ConfigSpec("toy", "en", lexical_type)


def test_type_iii_plans_share_no_stem_between_sentences():
    toy = Toy()
    plans = toy.plan_contexts(spec("III"), POOLS["verb"], 40, random.Random(3))
    assert len(set(plans)) == 40 and all(len(plan) == 3 for plan in plans)
    for plan in plans:
        assert len({words[1] for words in plan}) == 3                      # a verb per sentence
        for a, b in itertools.combinations(plan, 2):
            assert not {stem(w) for w in a} & {stem(w) for w in b}, plan
    # dogs/dog pass the word masks: contexts holding both were drawn and redrawn
    assert toy.finished > len(plans)


def test_type_ii_plans_meet_the_overlap_threshold_and_failing_draws_are_redrawn():
    toy = Toy()
    plans = toy.plan_contexts(spec("II"), POOLS["verb"], 60, random.Random(5))
    assert len(set(plans)) == 60
    for plan in plans:
        assert len({words[1] for words in plan} | {words[0] for words in plan}) > 1   # words change ...
        scores = pair_scores(toy.context_stems(spec("II"), plan))
        assert sum(scores) / len(scores) >= TYPE_II_PLANNED_MEAN and min(scores) < 1, plan   # ... but overlap
        base = [set(words) for words in plan]
        assert all(len(a & b) >= 1 for a, b in itertools.combinations(base, 2))  # one word changed per sentence
    # three sentences changing three different slots share 1/5 per pair: such draws were redrawn
    assert toy.finished > len(plans)


def test_accepted_applies_each_lexical_type():
    toy = Toy()
    same = (("girl", "see", "dog"),) * 3
    one_change = (("girl", "see", "dog"), ("boy", "see", "dog"), ("girl", "see", "cat"))
    disjoint = (("girl", "see", "dog"), ("boy", "meet", "cat"), ("cook", "call", "horse"))
    plural = (("girl", "see", "dog"), ("dogs", "meet", "cat"), ("cook", "call", "horse"))
    assert [toy.accepted(spec("I"), p) for p in (same, one_change, disjoint)] == [same, None, None]
    assert [toy.accepted(spec("II"), p) for p in (same, one_change, disjoint)] == [None, one_change, None]
    assert [toy.accepted(spec("III"), p) for p in (one_change, disjoint, plural)] == [None, disjoint, None]
    assert toy.accepted(spec("II"), None) is None


def test_the_same_seed_draws_the_same_plans():
    one = Toy().plan_contexts(spec("II"), POOLS["verb"], 20, random.Random(9))
    assert one == Toy().plan_contexts(spec("II"), POOLS["verb"], 20, random.Random(9))
    assert one != Toy().plan_contexts(spec("II"), POOLS["verb"], 20, random.Random(10))


def test_type_iii_with_fewer_lemmas_than_sentences_is_impossible_at_once():
    toy = Toy()
    with pytest.raises(ImpossibleSize, match=r"toy_en_typeIII: type III needs 3 verbs .* this split has 2"):
        toy.plan_contexts(spec("III"), POOLS["verb"][:2], 1, random.Random(0))
    assert toy.starts == 0


def test_an_unfillable_request_stops_after_the_miss_budget():
    # two subjects for three sentences: no type III context exists, every draw fails
    toy = Toy(dict(POOLS, subject=("girl", "boy")))
    start = time.perf_counter()
    with pytest.raises(ImpossibleSize) as err:
        toy.plan_contexts(spec("III"), POOLS["verb"], 5, random.Random(0))
    assert err.value.asked == 5 and err.value.possible == 0 and err.value.exhausted
    assert toy.starts == sampling.MAX_MISSES + 1 and toy.finished == 0
    assert time.perf_counter() - start < 30


def test_a_request_beyond_the_distinct_plans_finds_them_all_then_says_how_many():
    # two words per slot: a sentence's change is fixed by its slot, so the type II plans can be counted
    pools = {slot: words[:2] for slot, words in POOLS.items()}
    toy = Toy(pools)
    possible = set()
    for s, v, o in itertools.product(*pools.values()):
        base = {"subject": s, "verb": v, "object": o}
        for slots in itertools.product(SLOTS, repeat=3):
            plan = tuple(toy.draw_swap(base, i, slot, random.Random(0)) for i, slot in enumerate(slots))
            scores = pair_scores(toy.context_stems(spec("II"), plan))
            possible.add(plan) if sum(scores) / len(scores) >= TYPE_II_PLANNED_MEAN and min(scores) < 1 else None
    assert 0 < len(possible) < 8 * 3 ** 3
    assert set(toy.plan_contexts(spec("II"), pools["verb"], len(possible), random.Random(1))) == possible
    with pytest.raises(ImpossibleSize) as err:
        Toy(pools).plan_contexts(spec("II"), pools["verb"], len(possible) + 1, random.Random(1))
    assert err.value.exhausted and err.value.possible == len(possible) and err.value.asked == len(possible) + 1
