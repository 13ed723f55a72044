"""Generation: determinism, splits, sizes, answer sets and the exact sentences of fixed seeds."""

import collections

import pytest

from builders import registry
from builders.base import ImpossibleSize
from builders.generate import Options, generate

SMALL = Options(size=300)


def gen(name, opts=SMALL):
    return generate(registry.get_spec(name), opts, progress=False)


def test_config_names_come_from_the_registry():
    names = registry.config_names()
    agr = [n for n in names if n.startswith("agr_")]
    assert len(agr) == 4 * 3 * 2
    assert "agr_fr_typeI" in names and "agr_ro_typeIII_balanced" in names
    assert all(n.replace("_", "").replace("type", "").isalnum() for n in names)


def test_unknown_config_lists_the_valid_ones():
    with pytest.raises(ValueError, match="agr_en_typeI") as err:
        registry.get_spec("agr_xx_typeI")
    assert "Valid configs" in str(err.value)


def test_same_seed_same_rows_other_seed_other_rows():
    a, b = gen("agr_en_typeII"), gen("agr_en_typeII")
    c = gen("agr_en_typeII", Options(size=300, seed=7))
    assert a["train"].records == b["train"].records
    assert a["train"].records != c["train"].records


def test_balanced_twin_shares_contexts():
    paper, balanced = gen("agr_it_typeIII"), gen("agr_it_typeIII_balanced")
    assert [r["context"] for r in paper["test"].records] == [r["context"] for r in balanced["test"].records]
    assert {len(r["answers"]) for r in paper["test"].records} == {8}
    assert {len(r["answers"]) for r in balanced["test"].records} == {4}


@pytest.mark.parametrize("name", ["agr_en_typeI", "agr_fr_typeII", "agr_ro_typeIII"])
def test_lemma_split_keeps_test_seeds_out_of_train(name):
    out = gen(name)
    train = {r["lemma"] for r in out["train"].records}
    test = {r["lemma"] for r in out["test"].records}
    assert test and not train & test


def test_random_split_mixes_lemmas():
    out = gen("agr_en_typeI", Options(size=600, split="random"))
    assert {r["lemma"] for r in out["train"].records} & {r["lemma"] for r in out["test"].records}
    assert len(out["test"].records) == 60


def test_default_sizes_are_the_papers():
    out = generate(registry.get_spec("agr_fr_typeI"), Options(), progress=False)
    assert sum(len(o.records) for o in out.values()) == 2304


def test_impossible_size_is_a_clear_error():
    with pytest.raises(ImpossibleSize, match="combinatorics allow only"):
        gen("agr_en_typeI", Options(size=100_000))


def test_paper_answer_set_labels_and_classes():
    rec = gen("agr_fr_typeI")["test"].records[0]
    by_label = dict(zip(rec["answer_labels"], rec["answer_error_classes"]))
    assert by_label == {"Correct": "CORRECT", "Coord": "SEQUENCE", "WNA": "SEQUENCE", "WN1": "SEQUENCE",
                        "WN2": "SEQUENCE", "AEV": "GRAMMAR", "AEN1": "GRAMMAR", "AEN2": "GRAMMAR"}


def test_gold_position_is_uniform():
    labels = collections.Counter(r["label"] for r in gen("agr_en_typeIII", Options(size=1600))["train"].records)
    assert max(labels.values()) - min(labels.values()) <= 1


def test_fixed_seed_instance_exact_sentences():
    rec = gen("agr_en_typeI")["test"].records[0]
    assert rec["template"] == "completive"
    assert rec["context"] == [
        "John confirms that the jackets with the badges are too small.",
        "John confirms that the jacket with the badge is too small.",
        "John confirms that the jackets with the badge are too small.",
        "John confirms that the jacket with the badges is too small.",
        "John confirms that the jackets with the badges of the team are too small.",
        "John confirms that the jacket with the badge of the teams is too small.",
        "John confirms that the jackets with the badge of the teams are too small.",
    ]
    # subject alternates every sentence, attractor 1 every two (b a a b), attractor 2 every two (a b b a)
    gold = rec["answers"][rec["label"]]
    assert gold == "John confirms that the jacket with the badges of the team is too small."
    assert rec["answer_patterns"][rec["label"]] == "COMP NP-sg PP1-pl PP2-sg VP-sg"
    labels = dict(zip(rec["answer_labels"], rec["answers"]))
    assert labels["WNA"] == "John confirms that the jacket of the team is too small."
    assert labels["AEV"] == "John confirms that the jacket with the badge of the team are too small."
