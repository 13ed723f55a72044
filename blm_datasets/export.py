"""Export configs as a script-free Hub dataset folder: ``<config>/<split>-NNNNN-of-NNNNN.parquet`` + README.md.

Each config is generated straight from the builders (no datasets cache), written as parquet with the
shared features in the file metadata, summarised (sizes, templates, labels, answer-only audit) and
described in a dataset card rendered from ``hub_cards``. Configs run in parallel, one per process;
the bytes written depend only on the seed, the options and the toolkit's source digest.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import random
import shutil
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq

from blm_datasets.features import FEATURES
from builders import registry
from builders.generate import Options, generate

ROW_GROUP_SIZE = 1000               # rows per parquet row group, as datasets writes them
MAX_SHARD_BYTES = 500 * 1024 ** 2   # in-memory (arrow) bytes per parquet shard, as push_to_hub
AUDIT_TEST_SAMPLE = 500             # the answer-only audit runs on at most this many test rows …
AUDIT_TRAIN_SAMPLE = 500            # … with its classifier trained on at most this many train rows


@dataclass
class SplitSummary:
    """One written split: row count, in-memory bytes, parquet files (relative to the export folder)."""

    name: str
    num_examples: int
    num_bytes: int
    files: list[str]
    file_bytes: int


@dataclass
class ConfigSummary:
    """What the card says about one exported config."""

    name: str
    phenomenon: str
    language: str
    lexical_type: str
    variant: str
    balanced: bool
    splits: list[SplitSummary]
    templates: dict[str, int]
    labels: list[tuple[str, str]]
    answer_set_sizes: list[int]
    context_sizes: list[int]
    rejected: dict[str, int]
    audit: dict[str, Any] | None
    seconds: float = 0.0

    @property
    def num_examples(self) -> int:
        return sum(s.num_examples for s in self.splits)


@dataclass
class ExportResult:
    """Everything the export wrote, for the CLI report and the tests."""

    out: Path
    configs: list[ConfigSummary]
    generation: dict[str, Any]
    card: Path
    seconds: float = 0.0
    files: list[Path] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def shard_name(split: str, index: int, total: int) -> str:
    """``train-00000-of-00001.parquet``, the name datasets' push_to_hub gives shards."""
    return f"{split}-{index:05d}-of-{total:05d}.parquet"


def write_split(records: list[dict[str, Any]], folder: Path, split: str,
                max_shard_bytes: int = MAX_SHARD_BYTES) -> SplitSummary:
    """Write a split as contiguous parquet shards carrying the shared features in their metadata."""
    table = pa.Table.from_pylist(records, schema=FEATURES.arrow_schema)
    nbytes = int(table.nbytes)
    total = max(1, nbytes // max_shard_bytes + 1) if len(records) else 1
    step = -(-table.num_rows // total) if table.num_rows else 0
    files, file_bytes = [], 0
    for index in range(total):
        path = folder / shard_name(split, index, total)
        pq.write_table(table.slice(index * step, step), path, row_group_size=ROW_GROUP_SIZE)
        files.append(f"{folder.name}/{path.name}")
        file_bytes += path.stat().st_size
    return SplitSummary(split, len(records), nbytes, files, file_bytes)


def _sample(rows: list[dict], n: int, seed: int) -> list[dict]:
    if len(rows) <= n:
        return rows
    keep = sorted(random.Random(seed).sample(range(len(rows)), n))
    return [rows[i] for i in keep]


def audit_summary(train: list[dict], test: list[dict], language: str, seed: int) -> dict[str, Any] | None:
    """The answer-only audit (blm_datasets.audit) on a fixed sample of test and train rows."""
    from blm_datasets.audit import audit_rows

    if not test:
        return None
    test_rows, train_rows = _sample(test, AUDIT_TEST_SAMPLE, seed), _sample(train, AUDIT_TRAIN_SAMPLE, seed)
    result = audit_rows(train_rows, test_rows, language)
    return {
        "n_test": result["n_test"], "sampled": len(test_rows) < len(test),
        "chance": round(result["chance"], 4), "chance_wellformed": round(result["chance_wellformed"], 4),
        "baselines": {name: {"accuracy": round(b["accuracy"], 4), "ci_low": round(b["ci_low"], 4),
                             "ci_high": round(b["ci_high"], 4), "above_chance": bool(b["above_chance"])}
                      for name, b in result["baselines"].items()},
    }


def _label_taxonomy(rows: list[dict]) -> list[tuple[str, str]]:
    """(label, error class) pairs present, gold first, then by error class and frequency."""
    counts = Counter((lab, cls) for r in rows for lab, cls in zip(r["answer_labels"], r["answer_error_classes"]))
    order = {"CORRECT": 0, "SEQUENCE": 1, "GRAMMAR": 2}
    return sorted(counts, key=lambda lc: (order.get(lc[1], 3), -counts[lc], lc[0]))


def export_config(name: str, out: Path, opts: Options, num_proc: int = 1, audit: bool = True,
                  progress: bool = False) -> ConfigSummary:
    """Generate one config, write its parquet shards under ``out/name`` and summarise it."""
    from builders.base import ImpossibleSize

    start = time.perf_counter()
    spec = registry.get_spec(name)
    try:
        splits = generate(spec, opts, num_proc=num_proc, progress=progress)
    except ImpossibleSize as err:
        raise ValueError(f"{name}: {err}; pass a smaller --size") from err
    folder = out / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    written = [write_split(o.records, folder, split) for split, o in splits.items()]
    rows = [r for o in splits.values() for r in o.records]
    rejected = Counter()
    for o in splits.values():
        rejected.update(o.rejected)
    train, test = splits.get("train"), splits.get("test")
    return ConfigSummary(
        name=name, phenomenon=spec.phenomenon, language=spec.language, lexical_type=spec.lexical_type,
        variant=spec.variant, balanced=spec.balanced, splits=written,
        templates=dict(sorted(Counter(r["template"] for r in rows).items())),
        labels=_label_taxonomy(rows),
        answer_set_sizes=sorted({len(r["answers"]) for r in rows}),
        context_sizes=sorted({len(r["context"]) for r in rows}),
        rejected=dict(sorted(rejected.items())),
        audit=audit_summary(train.records if train else [], test.records if test else [], spec.language,
                            opts.seed) if audit and test else None,
        seconds=round(time.perf_counter() - start, 2),
    )


@dataclass
class Skipped:
    """A config left out of an ``--all`` export because its input files are not available here."""

    name: str
    reason: str


@dataclass(frozen=True)
class _Job:
    name: str
    out: Path
    opts: Options
    num_proc: int = 1
    audit: bool = True
    skip_unavailable: bool = False
    in_worker: bool = False
    progress: bool = False


def _run_one(job: _Job) -> ConfigSummary | Skipped:
    """Export one config (in this process or a worker); errors name the config and stay picklable."""
    from builders.base import SourceUnavailable
    from builders.lexicon import LexiconError

    name, skip_unavailable, in_worker = job.name, job.skip_unavailable, job.in_worker
    try:
        return export_config(name, job.out, job.opts, job.num_proc, job.audit, progress=job.progress)
    except SourceUnavailable as err:
        if skip_unavailable:
            return Skipped(name, str(err))
        raise ValueError(str(err) if str(err).startswith(name) else f"{name}: {err}") from None
    except (ValueError, LexiconError) as err:  # a user-facing problem: the message says what to do
        raise ValueError(str(err) if str(err).startswith(name) else f"{name}: {err}") from None
    except Exception:
        if not in_worker:
            raise
        raise RuntimeError(f"{name}: export failed in a worker process:\n{traceback.format_exc()}") from None


def _expected_rows(name: str, opts: Options) -> int:
    spec = registry.get_spec(name)
    try:
        return opts.size or registry.generator(spec.phenomenon, spec.language).default_size(spec)
    except Exception:  # noqa: BLE001 - only an ordering hint; the export itself reports the error
        return 0


def _warm_up(names: list[str], audit: bool) -> None:
    """Load lexicons (and the audit's libraries) once before forking, so workers inherit them."""
    for name in names:
        spec = registry.get_spec(name)
        with contextlib.suppress(Exception):  # a broken config fails in its own job, with its name
            registry.generator(spec.phenomenon, spec.language)
    if audit:
        import scipy.stats  # noqa: F401
        import sklearn.feature_extraction.text  # noqa: F401
        import sklearn.linear_model  # noqa: F401


def generation_info(opts: Options) -> dict[str, Any]:
    """How the data was made: toolkit and datasets versions, options, digest of code/templates/lexicons."""
    from importlib import metadata

    import datasets

    from blm_datasets.digest import files_digest, source_digest

    try:
        version = metadata.version("blm-toolkit")
    except metadata.PackageNotFoundError:
        version = "unknown"
    info = {"toolkit_version": version, "datasets_version": datasets.__version__, "digest": source_digest(),
            "seed": opts.seed, "size": opts.size, "split_mode": opts.split, "test_size": opts.test_size,
            "sources": None, "sources_digest": None}
    if opts.sources:
        info["sources"] = [Path(p).name for p in opts.sources]
        info["sources_digest"] = files_digest(opts.sources)
    return info


def prepare_out(out: Path, names: list[str]) -> None:
    """Check ``out`` is empty or a previous blm export (whose config folders are then replaced)."""
    from hub_cards.sections import BEGIN

    if not out.exists():
        out.mkdir(parents=True)
        return
    if not out.is_dir():
        raise ValueError(f"--out {out} exists and is not a folder")
    entries = [p for p in out.iterdir() if not p.name.startswith(".")]
    readme = out / "README.md"
    previous = readme.exists() and BEGIN.format("summary") in readme.read_text(encoding="utf-8")
    if entries and not previous:
        raise ValueError(f"--out {out} is not empty and holds no previous `blm export`; choose an empty or new folder")
    for entry in entries:
        if entry.is_dir() and entry.name not in names and all(p.suffix == ".parquet" for p in entry.iterdir()):
            shutil.rmtree(entry)  # a config of the previous export that this one does not include


def export(names: list[str], out: str | Path, opts: Options = Options(), num_proc: int = 1, audit: bool = True,
           default: str | None = None, license_id: str = "apache-2.0", skip_unavailable: bool = False,
           report: Callable[[str], None] | None = print, progress: bool = True) -> ExportResult:
    """Export ``names`` into ``out`` (parquet per config and split, plus the README.md dataset card).

    With ``skip_unavailable`` (``--all``), configs whose input files are missing here are left out
    and listed in the report and the card instead of failing the export.
    """
    from tqdm.auto import tqdm

    from hub_cards.dataset_card import write_dataset_card

    start = time.perf_counter()
    if not names:
        raise ValueError("no configs to export: name some (see `blm list`) or pass --all")
    names = list(dict.fromkeys(names))
    for name in names:
        registry.get_spec(name)
    if default is not None and default not in names:
        raise ValueError(f"--default {default!r} is not among the exported configs")
    out = Path(out)
    prepare_out(out, names)
    say = report or (lambda _msg: None)
    done: dict[str, ConfigSummary | Skipped] = {}
    bar = tqdm(total=len(names), desc="export", unit="config", disable=not progress)
    emit = bar.write if progress and report is print else say

    def finished(summary: ConfigSummary | Skipped) -> None:
        done[summary.name] = summary
        bar.update(1)
        if isinstance(summary, Skipped):
            emit(f"[{len(done)}/{len(names)}] {summary.name}: skipped ({summary.reason})")
            return
        sizes = ", ".join(f"{s.name} {s.num_examples}" for s in summary.splits)
        emit(f"[{len(done)}/{len(names)}] {summary.name}: {sizes} ({summary.seconds:.1f}s)")

    if num_proc > 1 and len(names) > 1:
        # one config per process, largest first so the pool stays busy to the end
        order = sorted(names, key=lambda n: -_expected_rows(n, opts))
        _warm_up(names, audit)
        jobs = [_Job(n, out, opts, 1, audit, skip_unavailable, in_worker=True) for n in order]
        with multiprocessing.get_context("fork").Pool(min(num_proc, len(names))) as pool:
            for summary in pool.imap_unordered(_run_one, jobs):
                finished(summary)
    else:
        for name in names:
            finished(_run_one(_Job(name, out, opts, num_proc, audit, skip_unavailable, progress=progress)))
    bar.close()
    summaries = [done[n] for n in names if isinstance(done[n], ConfigSummary)]
    skipped = [done[n] for n in names if isinstance(done[n], Skipped)]
    if not summaries:
        raise ValueError("nothing was exported: " + "; ".join(s.reason for s in skipped))
    if default is not None and default not in {s.name for s in summaries}:
        raise ValueError(f"--default {default!r} was skipped: {done[default].reason}")
    info = generation_info(opts)
    card = write_dataset_card(out, summaries, info, default=default, license_id=license_id,
                              skipped=[s.name for s in skipped])
    files = sorted(p for p in out.rglob("*") if p.is_file())
    result = ExportResult(out, summaries, info, card, round(time.perf_counter() - start, 2), files, skipped)
    total_rows = sum(s.num_examples for s in summaries)
    total_mb = sum(p.stat().st_size for p in files) / 1e6
    say(f"wrote {out}: {len(summaries)} configs, {total_rows} rows, {total_mb:.1f} MB in {result.seconds:.1f}s"
        + (f"; skipped {len(skipped)} (input files unavailable): {', '.join(s.name for s in skipped)}"
           if skipped else ""))
    return result


def default_num_proc() -> int:
    """The CPUs this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
