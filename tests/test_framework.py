"""The generator framework: template schema errors, answer sets from declarations, exact sizes,
generator bugs and dead workers, and a new phenomenon picked up from its package alone."""

import os
import random
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from blm_datasets.validate import validate_rows
from builders.checks import check_record
from builders import generate as generation
from builders import registry, template
from builders.answers import balanced_answers, paper_answers
from builders.base import GeneratorBug, ImpossibleSize, Matrix
from builders.generate import Options, WorkerDied, generate
from builders.lexicon import LexiconError, load_yaml
from builders.template import CandidateDecl, RuleRef

FIXTURES = Path(__file__).parent / "fixtures"


# --- a new phenomenon is one package ----------------------------------------------------------------

@pytest.fixture()
def example(monkeypatch, tmp_path):
    """The example package registered as a phenomenon (a copy, so tests may edit its files)."""
    shutil.copytree(FIXTURES / "example_phenomenon", tmp_path / "example_phenomenon")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.PHENOMENA, "example", "example_phenomenon:ExampleGenerator")
    for cached in (registry.generator_class, registry.all_specs, registry.generator, load_yaml):
        cached.cache_clear()
    yield tmp_path / "example_phenomenon"
    sys.modules.pop("example_phenomenon", None)
    sys.modules.pop("example_phenomenon.generator", None)
    for cached in (registry.generator_class, registry.all_specs, registry.generator, load_yaml):
        cached.cache_clear()


def test_a_new_phenomenon_package_is_picked_up_by_the_registry(example):
    names = [n for n in registry.config_names() if n.startswith("example_")]
    assert names == ["example_en_typeI", "example_en_typeI_balanced"]
    spec = registry.get_spec("example_en_typeI")
    out = generate(spec, Options(size=16), progress=False, check=check_record)
    rows = out["train"].records + out["test"].records
    assert len(rows) == 16
    assert not any(validate_rows(rows, spec)["failures"].values())
    dog = next(r for r in rows if r["lemma"] == "dog" and r["template"] == "up")
    assert dog["context"] == ["One dog barks.", "Two dogs bark.", "Three dogs bark."]
    assert dict(zip(dog["answer_labels"], dog["answers"])) == {
        "Correct": "Four dogs bark.", "WC": "Five dogs bark.", "AE": "Four dogs barks.", "NN": "Four dog bark."}
    # the judge reads a lexicon fact: "four fish" shows no noun-number error, so NN is not generated
    fish = [r for r in rows if r["lemma"] == "fish"]
    assert fish and all(sorted(r["answer_labels"]) == ["AE", "Correct", "WC"] for r in fish)


def test_a_new_language_is_its_lexicon_file(example):
    (example / "lexicons" / "en.yaml").rename(example / "lexicons" / "fr.yaml")
    registry.all_specs.cache_clear()
    assert [n for n in registry.config_names() if n.startswith("example_")] == ["example_fr_typeI",
                                                                                 "example_fr_typeI_balanced"]
    with pytest.raises(ValueError, match=r"example has no lexicon for language 'en'.*its languages are fr"):
        registry.get_spec("example_en_typeI")


def test_template_typo_is_an_error_naming_file_line_and_the_keys_allowed(example):
    path = example / "template.yaml"
    path.write_text(path.read_text().replace("context_size: 3", "context_size: 3\ncontext_sise: 3"))
    with pytest.raises(LexiconError, match=r"template.yaml:\d+: context_sise: unknown key; this section takes: "
                                           r"phenomenon, description, context_size"):
        registry.generator("example", "en")


def test_unknown_rule_name_is_an_error_naming_file_and_line(example):
    path = example / "template.yaml"
    path.write_text(path.read_text().replace("paper: [count, agreement", "paper: [count, agreemnt"))
    with pytest.raises(LexiconError, match=r"template.yaml:\d+: answers.paper.1.rules.0: unknown rule 'agreemnt'; "
                                           r"the rules of example are: count, agreement, noun_number"):
        registry.generator("example", "en")


def test_context_size_is_read_and_checked_against_the_sequences(example):
    path = example / "template.yaml"
    path.write_text(path.read_text().replace("context_size: 3", "context_size: 5"))
    gen = registry.generator("example", "en")
    with pytest.raises(ValueError, match="a sequence has 4 steps; context_size is 5, so it needs 6"):
        gen.next_patterns(registry.get_spec("example_en_typeI"), "up", ["x"] * 5)


def test_missing_key_and_wrong_type(tmp_path):
    path = tmp_path / "template.yaml"
    path.write_text("phenomenon: x\ncontext_size: seven\nanswers: {paper: [a]}\nsizes: {I: 10}\n"
                    "test_lemma_fraction: 0.1\n")
    with pytest.raises(LexiconError, match=r"template.yaml:2: context_size: Input should be a valid integer"):
        template.load(path)
    path = tmp_path / "other.yaml"
    path.write_text("phenomenon: x\ncontext_size: 7\nsizes: {I: 10}\ntest_lemma_fraction: 0.1\n")
    with pytest.raises(LexiconError, match=r"other.yaml:1: answers: missing key"):
        template.load(path)


def test_include_merges_a_shared_file_and_overrides_its_keys(tmp_path):
    load_yaml.cache_clear()
    (tmp_path / "shared.yaml").write_text("context_size: 7\nanswers: {paper: [a]}\nsizes: {I: 10, II: 20}\n"
                                          "test_lemma_fraction: 0.1\n")
    (tmp_path / "one.yaml").write_text("include: shared.yaml\nphenomenon: one\nsizes: {II: 30}\n")
    loaded = template.load(tmp_path / "one.yaml")
    assert (loaded.phenomenon, loaded.context_size, loaded.sizes) == ("one", 7, {"I": 10, "II": 30})
    (tmp_path / "loop.yaml").write_text("include: loop.yaml\n")
    with pytest.raises(LexiconError, match="cannot include itself"):
        template.read(tmp_path / "loop.yaml")


# --- answer sets come from the declarations -------------------------------------------------------

def _book():
    from example_phenomenon.generator import RULES, Step

    return RULES, Step


def test_paper_answers_take_labels_from_rules_and_drop_what_a_judge_rules_out(example):
    book, Step = _book()
    gold = Step(4, "pl", "pl")
    decls = [CandidateDecl.model_validate("count"), CandidateDecl.model_validate("noun_number"),
             CandidateDecl.model_validate({"rules": ["count", "agreement"], "label": "BOTH"})]
    dog = Matrix("up", (gold,), ("dog",), "dog", facts={"sg": "dog", "pl": "dogs"})
    answers = paper_answers(gold, decls, book, dog)
    assert [(a.label, a.error_class, a.step) for a in answers] == [
        ("Correct", "CORRECT", gold), ("WC", "SEQUENCE", Step(5, "pl", "pl")), ("NN", "GRAMMAR", Step(4, "sg", "pl")),
        ("BOTH", "GRAMMAR", Step(5, "pl", "sg"))]
    fish = Matrix("up", (gold,), ("fish",), "fish", facts={"sg": "fish", "pl": "fish"})
    assert [a.label for a in paper_answers(gold, decls, book, fish)] == ["Correct", "WC", "BOTH"]


def test_balanced_answers_are_the_full_crossing(example):
    book, Step = _book()
    gold = Step(3, "pl", "pl")
    dog = Matrix("down", (gold,), ("dog",), "dog", facts={"sg": "dog", "pl": "dogs"})
    answers = balanced_answers(gold, [RuleRef.model_validate("count"), RuleRef.model_validate("agreement")],
                               book, dog)
    assert [(a.label, a.error_class) for a in answers] == [("Correct", "CORRECT"), ("AE", "GRAMMAR"),
                                                           ("WC", "SEQUENCE"), ("WC+AE", "GRAMMAR")]
    assert answers[2].step == Step(2, "pl", "pl") and len({a.step for a in answers}) == 4


# --- generation: exact sizes or a clear error ------------------------------------------------------

def test_a_size_the_lexicon_cannot_fill_names_the_total_asked_and_possible():
    spec = registry.get_spec("agr_en_typeI")
    gen = registry.generator("agr", "en")
    per_seed = len(gen.sequence_variants) * len(gen.clauses)   # type I: every seed x sequence variant x clause type
    capacity = per_seed * len(gen.lemmas(spec))
    with pytest.raises(ImpossibleSize) as err:
        generate(spec, Options(size=capacity + 1), progress=False)
    message = str(err.value)
    assert message.startswith(f"agr_en_typeI: --size {capacity + 1} asks for ")
    assert "can hold at most" in message and f"(--size {err.value.possible})" in message
    assert err.value.asked == capacity + 1 and err.value.possible == capacity
    out = generate(spec, Options(size=capacity), progress=False)
    assert sum(len(s.records) for s in out.values()) == capacity


def test_a_failing_check_is_a_generator_bug_with_the_instance():
    def strict(record, spec):
        return ["made_up_check"] if record["id"].endswith("000003") else []

    with pytest.raises(GeneratorBug) as err:
        generate(registry.get_spec("agr_en_typeI"), Options(size=20), progress=False, check=strict)
    assert "fails made_up_check (a generator bug" in str(err.value)
    assert "  1. " in str(err.value) and "*" in str(err.value)


FRESH_INTERPRETER = """
import dataclasses
import sys
from builders import registry
from builders.base import GeneratorBug
from builders.generate import Options, generate

gen = registry.generator("agr", "en")
realise = type(gen).realise


def leaky(self, spec, plan):  # a planted generator bug: the gold answer repeats a context sentence
    instance = realise(self, spec, plan)
    instance.candidates[0] = dataclasses.replace(instance.candidates[0], sentence=instance.context[0])
    return instance


type(gen).realise = leaky
try:
    generate(registry.get_spec("agr_en_typeI"), Options(size=20), progress=False)
except GeneratorBug as bug:
    print("caught:", "answer_not_in_context" in str(bug), "blm_datasets" in sys.modules)
"""


def test_generation_checks_every_record_without_importing_blm_datasets():
    """No registration by import: a fresh interpreter that imports only builders still checks each record."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", FRESH_INTERPRETER], capture_output=True, text=True,
                          cwd=Path(__file__).parents[1], timeout=120)
    assert done.stdout.strip() == "caught: True False", done.stderr[-2000:]


def test_planners_and_checks_share_one_definition_of_the_lexical_types():
    from builders import lexical_types
    from builders.cos_od import contexts

    shared = [frozenset({"cat", "sleep"}), frozenset({"cat", "run"}), frozenset({"dog", "run"})]
    assert lexical_types.pair_scores(shared) == [1 / 3, 0.0, 1 / 3]
    assert lexical_types.type_ii_ok(shared) and not lexical_types.type_iii_ok(shared)
    assert lexical_types.type_ii_ok(shared, 0.22) == lexical_types.type_ii_planned_ok(shared)
    assert not lexical_types.type_i_ok(shared, 0.3)
    context = contexts.TypeIIContext(0.3)
    context.add(shared[:2])
    assert context.fits(shared[2:], last=True) == lexical_types.type_ii_planned_ok(shared)
    disjoint = [frozenset({"a"}), frozenset({"b"})]
    assert lexical_types.context_ok("III", disjoint, 0.3) and not lexical_types.context_ok("II", disjoint, 0.3)
    rng = random.Random(5)   # the type I and III planners' contexts accept exactly what the checks accept
    for lexical_type in ("I", "III"):
        for _ in range(200):
            sentences = [frozenset(rng.sample("abcdefgh", rng.randint(1, 3))) for _ in range(rng.randint(2, 5))]
            context = contexts.CONTEXTS[lexical_type](0.3)
            context.add(sentences[:1])
            assert context.fits(sentences[1:]) == lexical_types.context_ok(lexical_type, sentences, 0.3)


def test_a_duplicate_instance_is_a_generator_bug(monkeypatch):
    gen = registry.generator("agr", "en")
    original = gen.plan
    monkeypatch.setattr(gen, "plan", lambda spec, lemmas, n, rng: [original(spec, lemmas, 1, rng)[0]] * n)
    with pytest.raises(GeneratorBug, match="duplicate of agr_en_typeI-"):
        generate(registry.get_spec("agr_en_typeI"), Options(size=20), progress=False)


def _die_in_worker(job):
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_killed_worker_fails_within_seconds(monkeypatch):
    monkeypatch.setattr(generation, "_realise_chunk", _die_in_worker)
    start = time.perf_counter()
    with pytest.raises(WorkerDied, match="agr_en_typeII train: a generation worker died"):
        generate(registry.get_spec("agr_en_typeII"), Options(size=600), num_proc=2, progress=False)
    assert time.perf_counter() - start < 30


def test_parallel_generation_equals_serial():
    spec = registry.get_spec("agr_it_typeIII")
    serial = generate(spec, Options(size=300), progress=False)
    parallel = generate(spec, Options(size=300), num_proc=2, progress=False)
    assert serial["train"].records == parallel["train"].records


def test_gold_positions_are_balanced_per_answer_set_size():
    import random

    sizes = [6] * 60 + [5] * 50
    positions = generation.gold_positions(sizes, random.Random(0))
    for k in (5, 6):
        counts = [sum(1 for p, s in zip(positions, sizes) if s == k and p == i) for i in range(k)]
        assert max(counts) - min(counts) <= 1 and all(p < s for p, s in zip(positions, sizes))


def test_options_quote_what_was_asked():
    with pytest.raises(ValueError, match=r"--size 1: must be at least 2"):
        Options(size=1)
    with pytest.raises(ValueError, match=r"--test-size 1.5: must be a fraction"):
        Options(test_size=1.5)


def test_config_names_come_from_the_registry():
    names = registry.config_names()
    assert len(names) == len(set(names))
    assert "agr_fr_typeI" in names and "agr_ro_typeIII_balanced" in names
    assert all(n.replace("_", "").replace("type", "").isalnum() and n == n.strip() for n in names)


def test_same_seed_same_rows_other_seed_other_rows():
    spec = registry.get_spec("agr_en_typeII")
    a, b = generate(spec, Options(size=200), progress=False), generate(spec, Options(size=200), progress=False)
    c = generate(spec, Options(size=200, seed=7), progress=False)
    assert a["train"].records == b["train"].records
    assert a["train"].records != c["train"].records


def test_random_split_mixes_lemmas_and_takes_the_test_share():
    out = generate(registry.get_spec("agr_en_typeI"), Options(size=600, split="random"), progress=False)
    assert {r["lemma"] for r in out["train"].records} & {r["lemma"] for r in out["test"].records}
    assert len(out["test"].records) == 60


def test_balanced_wellformed_from_drops_well_formed_candidates_of_other_rules_and_labels_rename(example):
    from builders.template import BalancedDecl

    book, Step = _book()
    gold = Step(3, "pl", "pl")
    dog = Matrix("down", (gold,), ("dog",), "dog", facts={"sg": "dog", "pl": "dogs"})
    declared = BalancedDecl.model_validate({"factors": ["count", "agreement"], "wellformed_from": ["agreement"],
                                            "labels": {"WC+AE": "BOTH"}})
    answers = balanced_answers(gold, declared, book, dog)
    assert [(a.label, a.error_class) for a in answers] == [("Correct", "CORRECT"), ("AE", "GRAMMAR"),
                                                           ("BOTH", "GRAMMAR")]


def test_distractors_are_shuffled_around_the_gold_not_left_in_declared_order():
    """Every distractor label takes many answer positions, and the distractors' order varies between instances
    (unshuffled, each label would sit at one position relative to the gold and a model could learn it)."""
    out = generate(registry.get_spec("agr_en_typeI"), Options(size=300), progress=False)
    records = out["train"].records + out["test"].records
    orders = {tuple(label for i, label in enumerate(r["answer_labels"]) if i != r["label"]) for r in records}
    assert len(orders) > 50
    positions: dict[str, set[int]] = {}
    for record in records:
        for i, label in enumerate(record["answer_labels"]):
            positions.setdefault(label, set()).add(i)
    width = len(records[0]["answers"])
    assert all(len(seen) == width for seen in positions.values()), positions


def test_config_names_parse_into_their_parts_registered_or_not():
    from builders.base import ConfigSpec

    for name in registry.config_names():
        parsed, spec = ConfigSpec.parse(name), registry.get_spec(name)
        assert parsed.name == name and (parsed.phenomenon, parsed.lexical_type, parsed.variant, parsed.balanced) == (
            spec.phenomenon, spec.lexical_type, spec.variant, spec.balanced)
        assert parsed.family == spec.family and spec.paper_name == name.removesuffix("_balanced")
    imported = ConfigSpec.parse("sprayload_en_altatl_typeII_balanced")  # a name the registry need not know
    assert (imported.phenomenon, imported.language, imported.variant, imported.lexical_type) == (
        "sprayload", "en", "altatl", "II") and imported.balanced and imported.family == "sprayload_en_altatl"
    assert ConfigSpec.parse("agr_en_typeIV") is None and ConfigSpec.parse("agr_en") is None


def test_a_refilling_rule_is_a_second_answer_only_where_the_context_hides_the_fillers():
    """Type II/III: a well-formed candidate that keeps the gold's frame and roles with other fillers is not
    generated; its GRAMMAR version (the filler cannot take the role) and every type I candidate are."""
    from builders.rules import RuleBook

    book = RuleBook("toy")

    @book.rule("other_subject", label="I-INT", error_class="GRAMMAR", refills=True)
    def other_subject(step, matrix):
        return ("person", step[1])

    @book.judge("other_subject")
    def person_can_undergo(step, matrix):
        return "SEQUENCE" if matrix.facts == "natural" else "GRAMMAR"

    @book.rule("tense", label="TENSE", error_class="SEQUENCE")
    def tense(step, matrix):
        return (step[0], "past")

    gold = ("food", "present")
    decls = [CandidateDecl.model_validate("other_subject"), CandidateDecl.model_validate("tense"),
             CandidateDecl.model_validate({"rules": ["other_subject", "tense"]})]

    def labels(facts, lexical_type):
        matrix = Matrix("t", (gold,), ("w",), "w", facts=facts, lexical_type=lexical_type)
        return [(a.label, a.error_class) for a in paper_answers(gold, decls, book, matrix)]

    assert labels("natural", "I") == [("Correct", "CORRECT"), ("I-INT", "SEQUENCE"), ("TENSE", "SEQUENCE"),
                                      ("I-INT+TENSE", "SEQUENCE")]
    assert labels("natural", "III") == labels("natural", "II") == [
        ("Correct", "CORRECT"), ("TENSE", "SEQUENCE"), ("I-INT+TENSE", "SEQUENCE")]   # another tense: not the gold
    assert labels("none", "III") == [("Correct", "CORRECT"), ("I-INT", "GRAMMAR"), ("TENSE", "SEQUENCE"),
                                     ("I-INT+TENSE", "GRAMMAR")]


def test_the_test_share_is_one_or_one_per_config_variant(monkeypatch):
    from builders.lexicon import LexiconError

    gen = registry.generator("caush", "he")
    spec = registry.get_spec("caush_he_synthetic_typeIII")
    assert gen.test_fraction(spec) == 0.2 and gen.test_fraction(registry.get_spec("caush_he_natural_typeIII")) == 0.1
    assert registry.generator("agr", "en").test_fraction(registry.get_spec("agr_en_typeI")) == 0.2
    monkeypatch.setattr(gen, "template", gen.template.model_copy(update={"test_lemma_fraction": {"natural": 0.1}}))
    with pytest.raises(LexiconError, match="test_lemma_fraction: has no share for variant 'synthetic'"):
        gen.test_fraction(spec)
