"""builders/README.md's worked example is the shipped code: its template excerpt is agr's template
and validates, its rule blocks run and behave as the shipped rules, and its caching claim holds."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from builders import registry
from builders.agr import rules as agr_rules
from builders.agr.generator import AgrTemplate
from builders.base import Matrix
from builders.generator import Generator
from builders.seqtense import rules as seqtense_rules
from builders.template import check_rules

README = Path(registry.generator_class("agr").directory()).parent / "README.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def run(code: str) -> dict:
    namespace: dict = {"__name__": "readme_example"}
    exec(compile(code, str(README), "exec"), namespace)  # noqa: S102 - our own README
    return namespace


def test_the_template_example_is_the_shipped_agr_template_and_validates():
    (example,) = [b for b in blocks("yaml") if b.startswith("phenomenon:")]
    data = yaml.safe_load(example)
    shipped = yaml.safe_load(registry.generator_class("agr").template_path().read_text(encoding="utf-8"))
    assert data == shipped  # every key, nothing from another phenomenon
    template = AgrTemplate.model_validate(data)
    check_rules(template, agr_rules.RULES.rules, README, data)


AGR_STEPS = [agr_rules.Step(subj, subj, count, n1, n2, coord, drop1)
             for subj, count, n1, n2, coord, drop1 in itertools.product(
                 ("sg", "pl"), (1, 2), ("sg", "pl"), ("sg", "pl"), (False, True), (False, True))]


def test_the_rules_example_behaves_as_the_shipped_agr_rules():
    ns = run(blocks("python")[0])
    example = ns["RULES"]
    assert set(example) == {"attractor1_number", "agreement"}
    for name in example:
        mine, shipped = example[name], agr_rules.RULES[name]
        assert mine.error_class == shipped.error_class and mine.doc == shipped.doc
        for step in AGR_STEPS:
            corrupted = mine.corrupt(ns["Step"](*step), None)
            assert tuple(corrupted) == tuple(shipped.corrupt(step, None))
            assert mine.label_for(corrupted) == shipped.label_for(shipped.corrupt(step, None))


def test_the_judge_example_behaves_as_the_shipped_seqtense_judge():
    ns = run(blocks("python")[1])
    mine, shipped = ns["RULES"]["agreement"], seqtense_rules.RULES["agreement"]
    assert (mine.label, mine.error_class) == (shipped.label, shipped.error_class)
    step = seqtense_rules.Step("sg", "m", "unreal", "simple")
    assert mine.corrupt(step, None) == shipped.corrupt(step, None)
    for ambiguous in (frozenset(), frozenset({("pl", "unreal", "simple", False)})):
        facts = ns["Facts"](ambiguous)
        real = seqtense_rules.Facts(None, ambiguous)
        assert mine.verdict(step, Matrix("t", (), (), "x", facts), {}) == \
            shipped.verdict(step, Matrix("t", (), (), "x", real), {})
    assert mine.verdict(step, Matrix("t", (), (), "x", ns["Facts"](frozenset())), {}) == "GRAMMAR"


@pytest.mark.parametrize("facts, builds", [
    ("namedtuple", 1),   # hashable: the second instance reuses the answer set
    ({"pro_drop_ambiguous": frozenset()}, 2),   # a dict: works, but rebuilt every time
])
def test_answer_sets_are_cached_only_for_hashable_facts(facts, builds):
    if facts == "namedtuple":
        facts = run(blocks("python")[1])["Facts"](frozenset())
    calls = []
    stub = SimpleNamespace(_answer_cache={}, _answers=lambda matrix, balanced: calls.append(1) or ["gold"])
    gold = agr_rules.Step("sg", "sg", 2, "sg", "pl")
    for _ in range(2):
        assert Generator.answers(stub, Matrix("main", (gold,), ("w",), "x", facts), False) == ["gold"]
    assert len(calls) == builds
