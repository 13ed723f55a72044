"""Every registered config, through the framework: exact size, validator clean, shuffled answers,
lemma-disjoint splits, and `_balanced` twins that share their paper config's contexts."""

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from blm_datasets.validate import validate_rows
from builders.checks import check_record
from builders import registry
from builders.generate import Options, generate, generate_with_twin

SAMPLE = Path(registry.generator_class("caush").directory()) / "data" / "sample.conllu"
SIZE = 80


def options(name: str, size: int = SIZE) -> Options:
    return Options(size=size, sources=(str(SAMPLE),) if "natural" in name else None)


@pytest.mark.parametrize("name", registry.config_names())
def test_config_has_exactly_the_size_asked_and_every_row_validates(name):
    spec = registry.get_spec(name)
    out = generate(spec, options(name), progress=False, check=check_record)
    rows = [r for split in out.values() for r in split.records]
    assert len(rows) == SIZE
    report = validate_rows(rows, spec)
    assert {k: v for k, v in report["failures"].items() if v and k != "gold_position_uniform"} == {}
    assert len({r["label"] for r in rows}) > 1, "gold answers are not shuffled"
    assert not {r["lemma"] for r in out["train"].records} & {r["lemma"] for r in out["test"].records}
    assert Counter(c for r in rows for c in r["answer_error_classes"])["CORRECT"] == SIZE


@pytest.mark.parametrize("name", [n for n in registry.config_names() if n.endswith("_balanced")])
def test_balanced_twin_shares_the_paper_contexts(name):
    twin = registry.get_spec(name)
    paper, balanced = generate_with_twin(replace(twin, balanced=False), options(name), progress=False,
                                         check=check_record)
    alone = generate(twin, options(name), progress=False, check=check_record)
    for split in ("train", "test"):
        assert [r["context"] for r in paper[split].records] == [r["context"] for r in balanced[split].records]
        assert balanced[split].records == alone[split].records
