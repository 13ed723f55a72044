"""The validator catches each kind of defect (every config passing it is tests/test_configs.py)."""

import copy

import pytest

from blm_datasets.validate import validate_rows
from builders.checks import check_record
from builders import registry
from builders.generate import Options, generate

@pytest.fixture(scope="module")
def good():
    spec = registry.get_spec("agr_en_typeI")
    return spec, generate(spec, Options(size=60), progress=False)["test"].records[0]


def _broken(record, how):
    r = copy.deepcopy(record)
    gold = r["label"]
    other = (gold + 1) % len(r["answers"])
    if how == "distinct_answers":
        r["answers"][other] = r["answers"][gold]
    elif how == "answer_not_in_context":
        r["answers"][other] = r["context"][2]
    elif how == "one_gold":
        r["answer_labels"][other] = "Correct"
    elif how == "gold_is_next_step":
        r["label"] = other
        r["answer_labels"][gold], r["answer_labels"][other] = r["answer_labels"][other], "Correct"
        r["answer_error_classes"][gold], r["answer_error_classes"][other] = r["answer_error_classes"][other], "CORRECT"
    elif how == "lengths":
        r["answer_patterns"].pop()
    elif how == "chunks_match":
        r["context_chunks"][0] = r["context_chunks"][0][:-1]
    elif how == "lexical_type":
        r["context"][3] = "Unrelated words describe a purple elephant sleeping."
        r["context_chunks"][3] = [r["context"][3][:-1]]
    elif how == "schema":
        r["extra_column"] = 1
    return r


@pytest.mark.parametrize("how", ["distinct_answers", "answer_not_in_context", "one_gold", "gold_is_next_step",
                                 "lengths", "chunks_match", "lexical_type", "schema"])
def test_validator_catches(good, how):
    spec, record = good
    assert check_record(record, spec) == []
    assert how in check_record(_broken(record, how), spec)


def test_type_iii_sentences_share_no_content_word():
    spec = registry.get_spec("agr_fr_typeIII")
    rec = generate(spec, Options(size=40), progress=False)["test"].records[0]
    assert check_record(rec, spec) == []
    rec = copy.deepcopy(rec)
    rec["context"][1] = rec["context"][0]
    assert "lexical_type" in check_record(rec, spec)


def test_skewed_gold_positions_fail_the_uniformity_check(good):
    spec, record = good
    rows = []
    for i in range(200):
        r = copy.deepcopy(record)
        r["id"] = f"x{i}"
        rows.append(r)
    assert validate_rows(rows, spec)["failures"]["gold_position_uniform"] == 1


def test_a_missing_column_fails_the_schema_check(good):
    spec, record = good
    broken = {k: v for k, v in record.items() if k != "template"}
    assert check_record(broken, spec) == ["schema"]


def test_type_ii_needs_overlap_between_sentences_but_not_identity():
    spec = registry.get_spec("agr_en_typeII")
    rec = generate(spec, Options(size=40), progress=False)["test"].records[0]
    assert check_record(rec, spec) == []
    unrelated = copy.deepcopy(rec)
    pairs = [("apple", "fell"), ("river", "froze"), ("violin", "broke"), ("castle", "burned"), ("pepper", "spilled"),
             ("glacier", "melted"), ("saddle", "tore")]
    unrelated["context"] = [f"The {noun} {verb}." for noun, verb in pairs]
    unrelated["context_chunks"] = [[s[:-1]] for s in unrelated["context"]]
    assert "lexical_type" in check_record(unrelated, spec)
    identical = copy.deepcopy(rec)
    identical["context"] = [rec["context"][0]] * 7
    identical["context_chunks"] = [rec["context_chunks"][0]] * 7
    assert "lexical_type" in check_record(identical, spec)


def test_a_template_allowing_several_continuations_fails_gold_is_next_step(good, monkeypatch):
    spec, record = good
    gen = registry.generator(spec.phenomenon, spec.language)
    gold_pattern = record["answer_patterns"][record["label"]]
    monkeypatch.setattr(gen, "next_patterns", lambda *a: {gold_pattern, "NP-sg PP1-sg VP-sg"})
    assert "gold_is_next_step" in check_record(record, spec)
    monkeypatch.setattr(gen, "next_patterns", lambda *a: set())
    assert "gold_is_next_step" in check_record(record, spec)


def _t2i_record(name):
    spec = registry.get_spec(name)
    rec = generate(spec, Options(size=40, seed=7), progress=False)["train"].records[0]
    assert check_record(rec, spec) == []
    return spec, rec


def _with_candidate(rec, text, label, cls, pattern):
    r = copy.deepcopy(rec)
    r["answers"].append(text)
    r["answer_labels"].append(label)
    r["answer_error_classes"].append(cls)
    r["answer_patterns"].append(pattern)
    return r


def test_a_same_frame_sequence_candidate_is_a_second_answer_in_type_iii_only():
    """Type II/III: a SEQUENCE candidate whose pattern is the gold's frame with other fillers (a person
    undergoing the change: 'The boy softened.') fails second_answer; GRAMMAR, another frame, or type I pass."""
    spec, rec = _t2i_record("cosplus_en_t2i_typeIII")
    gold_pattern = rec["answer_patterns"][rec["label"]]          # NP-Patient V-past / V-pres
    person = gold_pattern.replace("NP-Patient", "NP-Agent")
    assert "second_answer" in check_record(_with_candidate(rec, "The boy softened.", "I-INT", "SEQUENCE", person), spec)
    assert "second_answer" not in check_record(_with_candidate(rec, "The boy softened.", "I-INT", "GRAMMAR", person),
                                               spec)
    other_frame = f"{person} NP-Patient"
    assert "second_answer" not in check_record(
        _with_candidate(rec, "The boy softened it.", "X", "SEQUENCE", other_frame), spec)
    spec_i, rec_i = _t2i_record("cosplus_en_t2i_typeI")
    person_i = rec_i["answer_patterns"][rec_i["label"]].replace("NP-Patient", "NP-Agent")
    assert "second_answer" not in check_record(
        _with_candidate(rec_i, "The boy softened.", "I-INT", "SEQUENCE", person_i), spec_i)


def test_another_preposition_of_the_same_pp_is_the_same_frame_unless_the_template_declares_it():
    spec, rec = _t2i_record("sprayload_en_altatl_typeIII")
    gold_pattern = rec["answer_patterns"][rec["label"]]          # NP-Agent Verb-x NP-Theme PP-Loc
    lexprep = gold_pattern.replace("PP-Loc", "*PP-Loc")
    assert "second_answer" in check_record(_with_candidate(rec, "The girl smeared the jam under the wall.",
                                                           "LEXPREP", "SEQUENCE", lexprep), spec)
    spec, rec = _t2i_record("sprayload_en_atlalt_typeIII")       # declared: the theme becomes a place
    lexprep = rec["answer_patterns"][rec["label"]].replace("PP-Theme", "*PP-Theme")
    assert "second_answer" not in check_record(_with_candidate(rec, "The tenant seeded the paddock beside the rye.",
                                                               "LEXPREP", "SEQUENCE", lexprep), spec)


def test_a_lemma_in_both_train_and_test_fails_the_lemma_split_check():
    from blm_datasets.validate import validate_splits

    spec = registry.get_spec("agr_en_typeI")
    out = generate(spec, Options(size=60), progress=False)
    splits = {split: out[split].records for split in ("train", "test")}
    assert validate_splits(splits, spec)["test"]["failures"]["lemma_disjoint"] == 0
    leaked = {**splits, "train": splits["train"] + [copy.deepcopy(splits["test"][0])]}
    assert validate_splits(leaked, spec)["test"]["failures"]["lemma_disjoint"] == 1
    assert "lemma_disjoint" not in validate_splits(leaked, spec, lemma_split=False)["test"]["failures"]
