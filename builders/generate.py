"""Config → records: split lemmas, plan, realise (optionally in parallel), validate, shuffle.

Generation is deterministic for a seed: plans come from a RNG keyed on the seed and the config
name, and a config's ``_balanced`` twin shares its plans (same contexts, other answer set).
"""

from __future__ import annotations

import multiprocessing
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Hashable

from tqdm.auto import tqdm

from builders import registry
from builders.base import ConfigSpec, Instance

SPLIT_MODES = ("lemma", "random")


@dataclass(frozen=True)
class Options:
    """How to generate a config: seed, total size, split mode and test share."""

    seed: int = 42
    size: int | None = None          # train + test; None = the paper's size
    split: str = "lemma"             # lemma: test lemmas never in train; random: instance split
    test_size: float | None = None   # share of lemmas (lemma split) or of instances (random)
    sources: tuple[str, ...] | None = None  # input files for corpus-based phenomena (CoNLL-U …)

    def __post_init__(self):
        if self.split not in SPLIT_MODES:
            raise ValueError(f"split must be one of {', '.join(SPLIT_MODES)}, got {self.split!r}")
        if self.size is not None and self.size < 2:
            raise ValueError(f"size must be at least 2 (one train and one test instance), got {self.size}")
        if self.test_size is not None and not 0 < self.test_size < 1:
            raise ValueError(f"test_size must be a fraction in (0, 1), got {self.test_size}")


@dataclass
class SplitOutput:
    records: list[dict[str, Any]]
    planned: int
    rejected: Counter = field(default_factory=Counter)


def _base_name(spec: ConfigSpec) -> str:
    return spec.name.removesuffix("_balanced")


def plan_splits(spec: ConfigSpec, opts: Options) -> dict[str, list[Hashable]]:
    """Deterministic plans per split."""
    gen = registry.generator(spec.phenomenon, spec.language)
    gen.configure(spec, opts)
    lemmas = gen.lemmas(spec)
    total = opts.size or gen.default_size(spec)
    base = _base_name(spec)
    if opts.split == "random":
        plans = gen.plan(spec, lemmas, total, random.Random(f"{opts.seed}:{base}"))
        n_test = max(1, round(total * (opts.test_size or 0.1)))
        return {"train": plans[n_test:], "test": plans[:n_test]}
    share = opts.test_size or gen.test_lemma_fraction
    n_test_lemmas = min(len(lemmas) - 1, max(gen.min_test_lemmas, round(share * len(lemmas))))
    lemma_rng = random.Random(f"{opts.seed}:{spec.phenomenon}:{spec.language}:lemmas")
    test_lemmas = gen.split_lemmas(lemmas, n_test_lemmas, lemma_rng)
    train_lemmas = [lemma for lemma in lemmas if lemma not in set(test_lemmas)]
    n_test = max(1, round(total * len(test_lemmas) / len(lemmas)))
    return {
        "train": gen.plan(spec, train_lemmas, total - n_test, random.Random(f"{opts.seed}:{base}:train")),
        "test": gen.plan(spec, test_lemmas, n_test, random.Random(f"{opts.seed}:{base}:test")),
    }


def to_record(spec: ConfigSpec, inst: Instance, rid: str, gold_pos: int, rng: random.Random) -> dict[str, Any]:
    """Place the gold answer at ``gold_pos`` and shuffle the distractors around it."""
    others = inst.candidates[1:]
    rng.shuffle(others)
    ordered = others[:gold_pos] + [inst.candidates[0]] + others[gold_pos:]
    return {
        "id": rid,
        "phenomenon": spec.phenomenon,
        "language": spec.iso,
        "lexical_type": spec.lexical_type,
        "template": inst.template,
        "lemma": inst.lemma,
        "context": [s.text for s in inst.context],
        "context_patterns": [s.pattern for s in inst.context],
        "context_chunks": [list(s.chunks) for s in inst.context],
        "answers": [c.sentence.text for c in ordered],
        "answer_labels": [c.label for c in ordered],
        "answer_error_classes": [c.error_class for c in ordered],
        "answer_patterns": [c.sentence.pattern for c in ordered],
        "label": gold_pos,
    }


def _realise_chunk(job: tuple[ConfigSpec, str, int, list[tuple[int, Hashable, int]]]) -> list[tuple[int, Any]]:
    """Worker: realise, order and validate a chunk of plans; returns records or rejection reasons."""
    from blm_datasets.validate import check_record  # validator is independent of the generator

    spec, split, seed, items = job
    gen = registry.generator(spec.phenomenon, spec.language)
    out = []
    for index, plan, gold_pos in items:
        inst = gen.realise(spec, plan)
        k = len(inst.candidates)
        rng = random.Random(f"{seed}:{spec.name}:{split}:{index}")
        record = to_record(spec, inst, f"{spec.name}-{split}-{index:06d}", gold_pos % k, rng)
        failures = check_record(record, spec)
        out.append((index, record if not failures else failures))
    return out


def gold_positions(n: int, k: int, rng: random.Random) -> list[int]:
    """Gold positions with every position used equally often (±1), in random order."""
    positions = [i % k for i in range(n)]
    rng.shuffle(positions)
    return positions


def generate_split(spec: ConfigSpec, split: str, plans: list[Hashable], opts: Options,
                   num_proc: int = 1, progress: bool = True) -> SplitOutput:
    import blm_datasets.validate  # noqa: F401 - import before forking, not once per worker

    gen = registry.generator(spec.phenomenon, spec.language)
    if not plans:
        return SplitOutput([], 0)
    k = len(gen.realise(spec, plans[0]).candidates)
    positions = gold_positions(len(plans), k, random.Random(f"{opts.seed}:{spec.name}:{split}:gold"))
    items = [(i, plan, positions[i]) for i, plan in enumerate(plans)]
    size = max(64, len(items) // (8 * max(num_proc, 1)) + 1)
    jobs = [(spec, split, opts.seed, items[i:i + size]) for i in range(0, len(items), size)]
    bar = tqdm(total=len(items), desc=f"{spec.name} {split}", unit="inst", disable=not progress, leave=False)
    results: list[tuple[int, Any]] = []
    if num_proc > 1 and len(jobs) > 1:
        with multiprocessing.get_context("fork").Pool(num_proc) as pool:
            for chunk in pool.imap(_realise_chunk, jobs):
                results += chunk
                bar.update(len(chunk))
    else:
        for job in jobs:
            chunk = _realise_chunk(job)
            results += chunk
            bar.update(len(chunk))
    bar.close()
    out, seen = SplitOutput([], len(plans)), set()
    for _, result in results:
        if isinstance(result, list):
            out.rejected.update(result)
            continue
        key = (tuple(result["context"]), tuple(sorted(result["answers"])))
        if key in seen:
            out.rejected["duplicate"] += 1
            continue
        seen.add(key)
        out.records.append(result)
    return out


def generate(spec: ConfigSpec, opts: Options = Options(), num_proc: int = 1,
             progress: bool = True) -> dict[str, SplitOutput]:
    """Every split of a config, validated; rejected instances are counted, never emitted."""
    plans = plan_splits(spec, opts)
    return {split: generate_split(spec, split, p, opts, num_proc, progress) for split, p in plans.items()}
