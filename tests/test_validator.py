"""The validator passes every agreement config and catches each kind of defect."""

import copy

import pytest

from blm_datasets.validate import check_record, validate_rows
from builders import registry
from builders.generate import Options, generate

AGR = [n for n in registry.config_names() if n.startswith("agr_")]


@pytest.mark.parametrize("name", AGR)
def test_every_agreement_config_is_valid(name):
    spec = registry.get_spec(name)
    out = generate(spec, Options(size=240), progress=False)
    for split in out.values():
        assert not split.rejected
        report = validate_rows(split.records, spec)
        assert report["rows"] == len(split.records) > 0
        assert not any(report["failures"].values()), report


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
    return r


@pytest.mark.parametrize("how", ["distinct_answers", "answer_not_in_context", "one_gold", "gold_is_next_step",
                                 "lengths", "chunks_match", "lexical_type"])
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
