"""Config → records: split lemmas, plan, realise (optionally in parallel), check, shuffle.

Generation is deterministic for a seed: plans come from a RNG keyed on the seed and the config
name, and a config's ``_balanced`` twin shares its plans (same contexts, other answer set; see
:func:`generate_with_twin`, which realises each context once for both). Every record goes through
the record checks (``builders.checks.check_record``, or the ``check`` a caller passes instead): a
failing or duplicate instance is a generator bug and raises :class:`GeneratorBug`, so a config has
exactly the size asked or a clear error, never fewer rows in silence.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import multiprocessing
import pickle
import random
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from builders import memory_bound, registry, size_bound
from builders.atomic import atomic_path
from builders.base import ConfigSpec, GeneratorBug, ImpossibleSize, Instance
from builders.checks import check_record
from builders.errors import InputError, UserError
from builders.gc_pause import without_gc
from builders.workers import pool_initializer

SPLIT_MODES = ("lemma", "random")
Check = Callable[[dict, ConfigSpec], list[str]]


class WorkerDied(UserError, RuntimeError):
    """A generation worker process ended without a result (killed, or out of memory)."""


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
            raise InputError(f"--split {self.split!r}: must be one of {', '.join(SPLIT_MODES)}")
        if self.size is not None and self.size < 2:
            raise InputError(f"--size {self.size}: must be at least 2 (one train and one test instance)")
        if self.test_size is not None and not 0 < self.test_size < 1:
            raise InputError(f"--test-size {self.test_size}: must be a fraction between 0 and 1 (exclusive)")


@dataclass
class SplitOutput:
    records: list[dict[str, Any]]
    planned: int


def _base_name(spec: ConfigSpec) -> str:
    return spec.paper_name


class SplitShares:
    """How a total size divides into train and test for a config (lemma or random split)."""

    def __init__(self, n_lemmas: int, n_test_lemmas: int | None, test_share: float):
        self.n_lemmas, self.n_test_lemmas, self.test_share = n_lemmas, n_test_lemmas, test_share

    def sizes(self, total: int) -> dict[str, int]:
        if self.n_test_lemmas is None:
            n_test = max(1, round(total * self.test_share))
        else:
            n_test = max(1, round(total * self.n_test_lemmas / self.n_lemmas))
        return {"train": total - n_test, "test": n_test}

    def largest_total(self, split: str, capacity: int, upper: int) -> int:
        """The largest total (<= upper) whose ``split`` share fits ``capacity``."""
        low, high = 0, upper
        while low < high:
            mid = (low + high + 1) // 2
            if self.sizes(mid)[split] <= capacity:
                low = mid
            else:
                high = mid - 1
        return low


@without_gc
def plan_splits(spec: ConfigSpec, opts: Options) -> dict[str, list[Hashable]]:
    """Deterministic plans per split; a split the lexicon cannot fill is ImpossibleSize with the
    total asked and the largest total that fits."""
    gen = registry.generator(spec.phenomenon, spec.language)
    gen.configure(spec, opts)
    lemmas = gen.lemmas(spec)
    total = opts.size or gen.default_size(spec)
    memory_bound.check(spec.name, total, f"--size {opts.size}" if opts.size else f"the default size {total}")
    base = _base_name(spec)
    if opts.split == "random":
        shares = SplitShares(len(lemmas), None, opts.test_size or 0.1)
        sizes = shares.sizes(total)
        try:
            size_bound.check(gen, spec, lemmas, total)
            plans = gen.plan(spec, lemmas, total, random.Random(f"{opts.seed}:{base}"))
        except ImpossibleSize as err:
            raise _total_error(spec, opts, total, sizes, None, err) from None
        return {"train": plans[sizes["test"]:], "test": plans[:sizes["test"]]}
    share = opts.test_size or gen.test_fraction(spec)
    if len(lemmas) < 2:
        raise ImpossibleSize(f"{spec.name}: a lemma split needs at least 2 lemmas, the lexicon has {len(lemmas)}")
    n_test_lemmas = min(len(lemmas) - 1, max(gen.min_test_lemmas, round(share * len(lemmas))))
    lemma_rng = random.Random(f"{opts.seed}:{spec.phenomenon}:{spec.language}:lemmas")
    test_lemmas = gen.split_lemmas(spec, lemmas, n_test_lemmas, lemma_rng)
    split_lemmas = {"train": [lemma for lemma in lemmas if lemma not in set(test_lemmas)], "test": test_lemmas}
    shares = SplitShares(len(lemmas), len(test_lemmas), share)
    sizes = shares.sizes(total)
    out = {}
    refused = []   # both splits bounded before either is drawn; the one that allows the smaller total is named
    for split in ("train", "test"):
        try:
            size_bound.check(gen, spec, split_lemmas[split], sizes[split])
        except ImpossibleSize as err:
            refused.append(_total_error(spec, opts, total, sizes, (split, shares, len(split_lemmas[split])), err))
    if refused:
        raise min(refused, key=lambda err: float("inf") if err.possible is None else err.possible)  # None: no count
    for split in ("train", "test"):
        try:
            out[split] = gen.plan(spec, split_lemmas[split], sizes[split], random.Random(f"{opts.seed}:{base}:{split}"))
        except ImpossibleSize as err:
            raise _total_error(spec, opts, total, sizes, (split, shares, len(split_lemmas[split])), err) from None
    return out


def _total_error(spec: ConfigSpec, opts: Options, total: int, sizes: dict[str, int], failed: tuple | None,
                 err: ImpossibleSize) -> ImpossibleSize:
    """Restate a split's ImpossibleSize in terms of what the user asked (--size, the total)."""
    asked = f"--size {opts.size}" if opts.size else f"the default size {total}"
    message = f"{spec.name}: {asked} asks for {sizes['train']} train + {sizes['test']} test instances"
    if failed is None and err.upper_bound:   # random split: the total itself is drawn, so the bound is the fit
        return ImpossibleSize(spec.name, total, err.possible, upper_bound=True,
                              message=f"{message}; {err}: ask for at most {err.possible} (--size {err.possible})")
    if failed is None or err.asked is None:
        return ImpossibleSize(f"{message}; {err}")
    split, shares, n_lemmas = failed
    bound = "found only" if err.exhausted else "can hold at most"
    counted = " (an upper bound counted from the lexicon before drawing)" if err.upper_bound else ""
    fit = shares.largest_total(split, err.possible, total)
    hint = (f"ask for at most {'about ' if err.exhausted else ''}{fit} in all (--size {fit})" if fit >= 2
            else "no --size fits it")
    from builders.licences import config_sources  # lazy: the registry is only needed on this error

    if config_sources(spec, opts.sources) is not None:  # built from a corpus: more sentences, not more words
        hint += "; give more CoNLL-U files (--sources)" + (" or --split random" if opts.split == "lemma" else "")
    elif spec.lexical_type != "I":
        hint += " or add words to the lexicon" if fit >= 2 else "; add words to the lexicon"
    return ImpossibleSize(spec.name, total, fit, err.exhausted, upper_bound=err.upper_bound, message=(
        f"{message}; the {split} split ({n_lemmas} lemmas) {bound} {err.possible} distinct instances{counted}: {hint}"))


def to_record(spec: ConfigSpec, inst: Instance, rid: str, gold_pos: int = 0, rng: random.Random | None = None
              ) -> dict[str, Any]:
    """The record of an instance, the gold at ``gold_pos`` and the distractors shuffled by ``rng``
    around it (``rng`` None: candidates in their declared order, the gold first)."""
    record = {
        "id": rid,
        "phenomenon": spec.phenomenon,
        "language": spec.iso,
        "lexical_type": spec.lexical_type,
        "template": inst.template,
        "lemma": inst.lemma,
        "context": [s.text for s in inst.context],
        "context_patterns": [s.pattern for s in inst.context],
        "context_chunks": [list(s.chunks) for s in inst.context],
        "answers": [c.sentence.text for c in inst.candidates],
        "answer_labels": [c.label for c in inst.candidates],
        "answer_error_classes": [c.error_class for c in inst.candidates],
        "answer_patterns": [c.sentence.pattern for c in inst.candidates],
        "label": 0,
    }
    return place_gold(record, gold_pos, rng) if rng is not None else record


ANSWER_COLUMNS = ("answers", "answer_labels", "answer_error_classes", "answer_patterns")


def place_gold(record: dict[str, Any], gold_pos: int, rng: random.Random) -> dict[str, Any]:
    """Move the gold (first) candidate to ``gold_pos``, the distractors shuffled around it."""
    others = list(range(1, len(record["answers"])))
    rng.shuffle(others)
    order = others[:gold_pos] + [0] + others[gold_pos:]
    for column in ANSWER_COLUMNS:
        record[column] = [record[column][i] for i in order]
    record["label"] = gold_pos
    return record


def gold_positions(sizes: Sequence[int], rng: random.Random) -> list[int]:
    """A gold position per instance: among the instances with k candidates, every position is used
    equally often (±1), in random order."""
    by_size: dict[int, list[int]] = defaultdict(list)
    for index, k in enumerate(sizes):
        by_size[k].append(index)
    out = [0] * len(sizes)
    for k in sorted(by_size):
        indices = by_size[k]
        positions = [i % k for i in range(len(indices))]
        rng.shuffle(positions)
        for index, position in zip(indices, positions):
            out[index] = position
    return out


# A job: (specs realised from one plan, split, check, index of the first plan, the plans)
Job = tuple[tuple[ConfigSpec, ...], str, Check, int, Sequence[Hashable]]
CHUNK_MAX = 1000  # plans per job: bounds what a worker (and a spilled shard) holds at once


def _realise_chunk(job: Job) -> list[tuple[int, list[dict], list[tuple[str, list[str]]]]]:
    """Worker: realise and check a chunk of plans: (index, records (gold first), failures per spec).

    The checks do not depend on the order of the candidates, so the parent places the gold after."""
    specs, split, check, start, plans = job
    gen = registry.generator(specs[0].phenomenon, specs[0].language)
    out = []
    for index, plan in enumerate(plans, start):
        if len(specs) == 2:
            instances = gen.realise_twins(specs[0], plan)
        else:
            instances = (gen.realise(specs[0], plan),)
        records, failures = [], []
        for spec, inst in zip(specs, instances):
            record = to_record(spec, inst, f"{spec.name}-{split}-{index:06d}")
            failed = check(record, spec)
            records.append(record)
            failures.append((spec.name, failed))
        out.append((index, records, failures))
    return out


def _run(jobs: list, num_proc: int, bar, label: str, worker: Callable[[Any], list] | None = None,
         done: Callable[[list], int] = len) -> list:
    """Run ``worker`` (default ``_realise_chunk``) on each job in this process or in ``num_proc`` forked workers; a
    dead worker fails at once. ``done``: the instances a worker's result counts for the progress bar."""
    worker = worker or _realise_chunk
    results: list = []
    if num_proc <= 1 or len(jobs) <= 1:
        for job in jobs:
            chunk = worker(job)
            results += chunk
            bar.update(done(chunk))
        return results
    context = multiprocessing.get_context("fork")
    initializer, initargs = pool_initializer()  # a killed parent takes its workers with it
    with concurrent.futures.ProcessPoolExecutor(num_proc, mp_context=context, initializer=initializer,
                                                initargs=initargs) as pool:
        futures = [pool.submit(worker, job) for job in jobs]
        try:
            for future in concurrent.futures.as_completed(futures):
                chunk = future.result()
                results += chunk
                bar.update(done(chunk))
        except BrokenProcessPool:
            for future in futures:
                future.cancel()
            raise WorkerDied(f"{label}: a generation worker died (killed, or out of memory); "
                             f"rerun with fewer --num-proc or more memory") from None
    return results


def _dedup_key(record: dict[str, Any]) -> bytes:
    """Digest of what makes two instances the same: the context and the set of answers (sentences are one line
    each and a config's contexts have one length, so the lines joined tell instances apart)."""
    key = "\n".join(record["context"]) + "\n\n" + "\n".join(sorted(record["answers"]))
    return hashlib.blake2b(key.encode(), digest_size=16).digest()


def _chunk_jobs(specs: tuple[ConfigSpec, ...], split: str, plans: list[Hashable], num_proc: int,
                check: Check | None) -> list[Job]:
    check = check or check_record
    size = min(CHUNK_MAX, max(64, len(plans) // (8 * max(num_proc, 1)) + 1))
    return [(specs, split, check, i, plans[i:i + size]) for i in range(0, len(plans), size)]


def first_duplicate(keys: bytes) -> tuple[int, int] | None:
    """(first, later) positions of the earliest instance whose 16-byte key (``keys``, concatenated) repeats an
    earlier one, or None: a sort of the packed keys, not a set of a Python object per instance."""
    packed = np.frombuffer(keys, dtype="S16")
    order = np.argsort(packed, kind="stable")
    repeats = np.flatnonzero(packed[order][1:] == packed[order][:-1]) + 1
    if not len(repeats):
        return None
    later = int(order[repeats].min())
    return int(np.flatnonzero(packed == packed[later])[0]), later


def _order_golds(spec: ConfigSpec, split: str, opts: Options, sizes: Sequence[int], keys: bytes,
                 failures: Iterable[tuple[int, list[str]]], record_of: Callable[[int], dict]) -> list[int]:
    """Check the split's instances and give each its gold position: a failed check (``failures``: (position,
    what failed), in position order) or a duplicate key raises GeneratorBug with the record (``record_of``)."""
    failure = next(iter(failures), None)
    if failure is not None:
        raise GeneratorBug(spec.name, failure[1], record_of(failure[0]))
    duplicate = first_duplicate(keys)
    if duplicate is not None:
        first, later = duplicate
        raise GeneratorBug(spec.name, [f"duplicate of {record_of(first)['id']}"], record_of(later))
    return gold_positions(sizes, random.Random(f"{opts.seed}:{spec.name}:{split}:gold"))


def _place(spec: ConfigSpec, split: str, opts: Options, index: int, record: dict[str, Any], position: int) -> dict:
    return place_gold(record, position, random.Random(f"{opts.seed}:{spec.name}:{split}:{index}"))


def _generate_split(specs: tuple[ConfigSpec, ...], split: str, plans: list[Hashable], opts: Options,
                    num_proc: int, progress: bool, check: Check | None) -> list[SplitOutput]:
    if not plans:
        return [SplitOutput([], 0) for _ in specs]
    jobs = _chunk_jobs(specs, split, plans, num_proc, check)
    names = " + ".join(spec.name for spec in specs)
    bar = tqdm(total=len(plans), desc=f"{names} {split}", unit="inst", disable=not progress, leave=False)
    try:
        results = sorted(_run(jobs, num_proc, bar, f"{', '.join(spec.name for spec in specs)} {split}"),
                         key=lambda r: r[0])
    finally:
        bar.close()
    outputs = []
    for k, spec in enumerate(specs):
        records = [result[1][k] for result in results]
        failures = ((position, result[2][k][1]) for position, result in enumerate(results) if result[2][k][1])
        positions = _order_golds(spec, split, opts, [len(r["answers"]) for r in records],
                                 b"".join(_dedup_key(r) for r in records), failures, records.__getitem__)
        placed = [_place(spec, split, opts, result[0], record, position)
                  for result, record, position in zip(results, records, positions)]
        outputs.append(SplitOutput(placed, len(plans)))
    return outputs


# --- streaming: records realised once, spilled to disk in chunks, read back shard by shard -------------------


@dataclass(frozen=True)
class SpilledShard:
    """One chunk of a split's instances on disk, with the gold position of each (what a reader needs)."""

    spec: ConfigSpec
    split: str
    opts: Options
    path: str
    positions: tuple[int, ...]


@dataclass(frozen=True)
class ChunkSummary:
    """What ordering needs of a spilled chunk, per spec: answer-set sizes (one byte each), dedup keys (16 bytes
    each, concatenated) and the failed checks only: a few bytes per instance, not a Python object."""

    start: int
    stop: int
    sizes: tuple[bytes, ...]
    keys: tuple[bytes, ...]
    failures: tuple[tuple[tuple[int, list[str]], ...], ...]


def _spill_chunk(job: tuple[Job, str]) -> list[ChunkSummary]:
    """Worker: realise and check a chunk, write each spec's records to ``{prefix}-{k}.pickle``, and return its
    ``ChunkSummary``."""
    (specs, split, check, start, plans), prefix = job
    results = _realise_chunk((specs, split, check, start, plans))
    for k in range(len(specs)):
        _write_pickle(Path(f"{prefix}-{k}.pickle"), [(index, records[k]) for index, records, _ in results])
    return [ChunkSummary(
        start, start + len(plans),
        tuple(bytes(len(records[k]["answers"]) for _, records, _ in results) for k in range(len(specs))),
        tuple(b"".join(_dedup_key(records[k]) for _, records, _ in results) for k in range(len(specs))),
        tuple(tuple((index, failures[k][1]) for index, _, failures in results if failures[k][1])
              for k in range(len(specs))))]


def _write_pickle(path: Path, value: Any) -> None:
    with atomic_path(path) as temporary, open(temporary, "wb") as handle:
        pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)


@without_gc
def spill_split(specs: tuple[ConfigSpec, ...], split: str, plans: list[Hashable], opts: Options, num_proc: int,
                directory: Path, check: Check | None = None, progress: bool = False) -> list[list[SpilledShard]]:
    """Realise and check a split's plans into pickled chunks under ``directory`` (memory flat in the split's size),
    then order the golds; per spec, the shards whose records ``read_shard`` yields in index order. The rows are
    those ``generate`` returns for the same options."""
    if not plans:
        return [[] for _ in specs]
    jobs = _chunk_jobs(specs, split, plans, num_proc, check)
    prefixes = [str(directory / f"{specs[0].name}-{split}-{number:05d}") for number in range(len(jobs))]
    bar = tqdm(total=len(plans), desc=f"{specs[0].name} {split}", unit="inst", disable=not progress, leave=False)
    try:
        chunks = sorted(_run(list(zip(jobs, prefixes)), num_proc, bar, f"{', '.join(spec.name for spec in specs)} "
                             f"{split}", worker=_spill_chunk, done=lambda c: c[0].stop - c[0].start),
                        key=lambda c: c.start)
    finally:
        bar.close()
    prefix_of = dict(zip((job[3] for job in jobs), prefixes))
    out = []
    for k, spec in enumerate(specs):
        def record_of(position: int, k: int = k) -> dict:
            chunk = next(c for c in chunks if c.start <= position < c.stop)
            return dict(_read_pickle(f"{prefix_of[chunk.start]}-{k}.pickle"))[position]

        positions = _order_golds(spec, split, opts, b"".join(c.sizes[k] for c in chunks),
                                 b"".join(c.keys[k] for c in chunks), (f for c in chunks for f in c.failures[k]),
                                 record_of)
        out.append([SpilledShard(spec, split, opts, f"{prefix_of[c.start]}-{k}.pickle",
                                 tuple(positions[c.start:c.stop])) for c in chunks])
    return out


def _read_pickle(path: str) -> Any:
    with open(path, "rb") as handle:
        return pickle.load(handle)


def read_shard(shard: SpilledShard) -> Iterator[dict[str, Any]]:
    """The shard's records, golds placed, in index order."""
    for (index, record), position in zip(_read_pickle(shard.path), shard.positions):
        yield _place(shard.spec, shard.split, shard.opts, index, record, position)


@without_gc
def generate_split(spec: ConfigSpec, split: str, plans: list[Hashable], opts: Options, num_proc: int = 1,
                   check: Check | None = None) -> list[dict[str, Any]]:
    """The records of one split of a config, from its plans (``plan_splits``), in memory."""
    return _generate_split((spec,), split, plans, opts, num_proc, False, check)[0].records


@without_gc
def generate(spec: ConfigSpec, opts: Options = Options(), num_proc: int = 1, progress: bool = True,
             check: Check | None = None) -> dict[str, SplitOutput]:
    """Every split of a config, each instance checked (``builders.checks``, or ``check`` instead)."""
    plans = plan_splits(spec, opts)
    return {split: _generate_split((spec,), split, p, opts, num_proc, progress, check)[0]
            for split, p in plans.items()}


@without_gc
def generate_with_twin(spec: ConfigSpec, opts: Options = Options(), num_proc: int = 1, progress: bool = True,
                       check: Check | None = None) -> tuple[dict[str, SplitOutput], dict[str, SplitOutput]]:
    """A config and its ``_balanced`` twin from the same plans, each context realised once."""
    paper, twin = replace(spec, balanced=False), replace(spec, balanced=True)
    plans = plan_splits(paper, opts)
    out: tuple[dict, dict] = ({}, {})
    for split, p in plans.items():
        a, b = _generate_split((paper, twin), split, p, opts, num_proc, progress, check)
        out[0][split], out[1][split] = a, b
    return out
