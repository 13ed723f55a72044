"""Export configs as a script-free Hub dataset folder: ``<config>/<split>-NNNNN-of-NNNNN.parquet`` + README.md.

Each config is generated straight from the builders (no datasets cache), written as parquet with the
shared features in the file metadata, summarised (sizes, templates, labels, answer-only audit) and
described in a dataset card rendered from ``hub_cards``. Configs run in parallel, one per process;
the bytes written depend only on the seed, the options and the toolkit's source digest.

Writing is atomic per config (``export_folder``): each config is written into a hidden staging
folder and renamed into place, then the manifest (``.blm_export.json``) and the card are rewritten
atomically, so a killed export leaves only complete configs, the card lists exactly those, and a
rerun of the same command finishes the job.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import time
import traceback
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from blm_datasets.digest import files_digest, source_digest
from blm_datasets.export_folder import ExportFolder, staging_folder
from blm_datasets.export_pool import WorkerDied, run_pool  # noqa: F401 - WorkerDied re-exported
from blm_datasets.builder import BlmBuilder
from blm_datasets.features import FEATURES
from builders import registry
from builders.base import ConfigSpec, ImpossibleSize, SourceUnavailable
from builders.errors import InputError
from builders.gc_pause import without_gc
from builders.generate import Options, generate, generate_with_twin
from builders.lexicon import LexiconError
from builders.licences import ConfigLicence, config_licence
from builders.locks import locked
from hub_cards.dataset_card import dataset_card
from hub_cards.schema import check_dataset_card_data, require_valid
from hub_cards.sections import join_card, merge_body, merge_metadata, split_card

ROW_GROUP_SIZE = 1000               # rows per parquet row group, as datasets writes them
MAX_SHARD_BYTES = 500 * 1024 ** 2   # in-memory (arrow) bytes per parquet shard, as push_to_hub
GENERATED_LICENSE = "apache-2.0"    # data generated from the toolkit's own templates and lexicons
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


def write_split(records: Sequence[dict[str, Any]], folder: Path, split: str,
                max_shard_bytes: int = MAX_SHARD_BYTES, config: str | None = None,
                features=FEATURES) -> SplitSummary:
    """Write a split as contiguous parquet shards carrying the features in their metadata.

    File paths in the summary are ``config/<shard>`` (``config`` defaults to the folder's name).
    """
    schema = features.arrow_schema
    # column by column: about 40 % faster than ``from_pylist``'s row dicts, the same table
    table = pa.Table.from_pydict({name: [r.get(name) for r in records] for name in schema.names}, schema=schema)
    nbytes = int(table.nbytes)
    total = max(1, nbytes // max_shard_bytes + 1) if len(records) else 1
    step = -(-table.num_rows // total) if table.num_rows else 0
    files, file_bytes = [], 0
    for index in range(total):
        path = folder / shard_name(split, index, total)
        pq.write_table(table.slice(index * step, step), path, row_group_size=ROW_GROUP_SIZE)
        files.append(f"{config or folder.name}/{path.name}")
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
    result = audit_rows(train_rows, test_rows, language, overlap=False)  # the card does not report the overlap
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


def summarise(name: str, splits: Mapping[str, Sequence[dict[str, Any]]], written: list[SplitSummary],
              rejected: Mapping[str, int] | None = None, audit: dict[str, Any] | None = None,
              seconds: float = 0.0) -> ConfigSummary:
    """The card's summary of one config's rows (phenomenon, language … from the registry, else the rows)."""
    rows = [r for records in splits.values() for r in records]
    try:
        spec = registry.get_spec(name)
        meta = dict(phenomenon=spec.phenomenon, language=spec.language, lexical_type=spec.lexical_type,
                    variant=spec.variant, balanced=spec.balanced)
    except ValueError:  # a config the registry does not know (imported data): described by its rows
        first = rows[0] if rows else {}
        meta = dict(phenomenon=str(first.get("phenomenon", "")), language=str(first.get("language", "")),
                    lexical_type=str(first.get("lexical_type", "")), variant="", balanced=name.endswith("_balanced"))
    return ConfigSummary(
        name=name, **meta, splits=written,
        templates=dict(sorted(Counter(r["template"] for r in rows if "template" in r).items())),
        labels=_label_taxonomy([r for r in rows if "answer_labels" in r]),
        answer_set_sizes=sorted({len(r["answers"]) for r in rows if "answers" in r}),
        context_sizes=sorted({len(r["context"]) for r in rows if "context" in r}),
        rejected=dict(sorted((rejected or {}).items())), audit=audit, seconds=round(seconds, 2))


def summary_from_dict(data: Mapping[str, Any]) -> ConfigSummary:
    """A ConfigSummary back from its manifest entry (``dataclasses.asdict``)."""
    fields = dict(data)
    fields["splits"] = [SplitSummary(**s) for s in fields["splits"]]
    fields["labels"] = [tuple(pair) for pair in fields["labels"]]
    return ConfigSummary(**fields)


def export_config(name: str, folder: Path, opts: Options, num_proc: int = 1, audit: bool = True,
                  progress: bool = False) -> ConfigSummary:
    """Generate one config, write its parquet shards into ``folder`` (named ``name/…`` in the card) and summarise it."""
    return export_group((name,), {name: folder}, opts, num_proc, audit, progress)[0]


@without_gc  # the records stay alive while they are written and audited: a full collection would walk them again
def export_group(names: Sequence[str], folders: Mapping[str, Path], opts: Options, num_proc: int = 1,
                 audit: bool = True, progress: bool = False) -> list[ConfigSummary]:
    """One config, or a config and its ``_balanced`` twin generated together (each context realised once).

    The collector is paused throughout (``builders.gc_pause``): writing and the audit's scikit-learn leave a few
    hundred objects of cyclic garbage per config, freed at the next collection after it."""
    start = time.perf_counter()
    specs = [registry.get_spec(name) for name in names]
    try:
        if len(specs) == 2:
            outputs = dict(zip(names, generate_with_twin(specs[0], opts, num_proc=num_proc, progress=progress)))
        else:
            outputs = {names[0]: generate(specs[0], opts, num_proc=num_proc, progress=progress)}
    except ImpossibleSize as err:
        raise InputError(f"{names[0]}: {err}; pass a smaller --size") from err
    seconds = (time.perf_counter() - start) / len(names)
    summaries = []
    for name, spec in zip(names, specs):
        start = time.perf_counter()
        splits = outputs[name]
        written = [write_split(o.records, folders[name], split, config=name) for split, o in splits.items()]
        train, test = splits.get("train"), splits.get("test")
        audited = audit_summary(train.records if train else [], test.records if test else [], spec.iso,
                                opts.seed) if audit and test else None
        summaries.append(summarise(name, {s: o.records for s, o in splits.items()}, written, {}, audited,
                                   seconds + time.perf_counter() - start))
    return summaries


def twin_groups(names: Sequence[str]) -> list[tuple[str, ...]]:
    """The names in order, each paper config grouped with its ``_balanced`` twin when both are asked."""
    asked, groups, grouped = set(names), [], set()
    for name in names:
        if name in grouped:
            continue
        spec = ConfigSpec.parse(name)
        base = spec.paper_name if spec else name
        pair = (base, f"{base}_balanced")
        group = pair if set(pair) <= asked else (name,)
        grouped.update(group)
        groups.append(group)
    return groups


@dataclass
class Skipped:
    """A config left out of an ``--all`` export because its input files are not available here."""

    name: str
    reason: str


@dataclass(frozen=True)
class _Job:
    names: tuple[str, ...]
    out: Path
    opts: Options
    num_proc: int = 1
    audit: bool = True
    skip_unavailable: bool = False
    in_worker: bool = False
    progress: bool = False


def _run_one(job: _Job) -> list[tuple[ConfigSummary | Skipped, Path | None]]:
    """Export one config or twin pair into staging folders (in this process or a worker); errors name the config."""
    names, skip_unavailable, in_worker = job.names, job.skip_unavailable, job.in_worker
    name = names[0]
    staged = {n: staging_folder(job.out, n) for n in names}
    try:
        summaries = export_group(names, staged, job.opts, job.num_proc, job.audit, progress=job.progress)
        return [(summary, staged[summary.name]) for summary in summaries]
    except SourceUnavailable as err:
        _discard(*staged.values())
        if skip_unavailable:
            return [(Skipped(n, str(err)), None) for n in names]
        raise InputError(str(err) if str(err).startswith(name) else f"{name}: {err}") from None
    except (ValueError, LexiconError) as err:  # a user-facing problem: the message says what to do
        _discard(*staged.values())
        raise InputError(str(err) if str(err).startswith(name) else f"{name}: {err}") from None
    except Exception:
        _discard(*staged.values())
        if not in_worker:
            raise
        raise RuntimeError(f"{name}: export failed in a worker process:\n{traceback.format_exc()}") from None


def _discard(*paths: Path) -> None:
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)


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


def _card_writer(generation: dict[str, Any], default: str | None, license_id: str,
                 skipped: Callable[[], list[str]], card_extras: Mapping[str, Any] | None = None,
                 card_notes: str | None = None, licences: Mapping[str, ConfigLicence] | None = None
                 ) -> Callable[[Path, dict[str, dict]], str]:
    """A function (folder, {name: summary dict}) -> card text, merged into the card already there.

    An export rewrites the card after each config, so the card grows with every call: the header this function
    wrote last is kept parsed, the fresh card is never dumped to be parsed back, and the header is dumped once
    (``merge_card``'s text, without its YAML round trips: tests/test_export.py)."""
    last: dict[str, Any] = {}   # the text written last, with its header and body

    def card(out: Path, summaries: dict[str, dict]) -> str:
        configs = [summary_from_dict(s) for s in summaries.values()]
        data, body = dataset_card(configs, generation, FEATURES, default if default in summaries else None,
                                  BlmBuilder.DEFAULT_CONFIG_NAME, (AUDIT_TEST_SAMPLE, AUDIT_TRAIN_SAMPLE), license_id,
                                  [n for n in skipped() if n not in summaries], licences)
        if card_notes:
            body += f"\n<!-- blm:begin notes -->\n{card_notes.strip()}\n<!-- blm:end notes -->\n"
        data = {**data, **dict(card_extras or {})}
        path = out / "README.md"
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if old.strip():
            old_data, old_body = (last["data"], last["body"]) if last.get("text") == old else split_card(old)
            data = merge_metadata(old_data, data, keep_foreign_configs=False)
            body = merge_body(old_body, body)
            require_valid(check_dataset_card_data(data, strict=False), f"{path} (merged)")
        text = join_card(data, body)
        last.update(text=text, data=data, body=body)
        return text

    return card


def export(names: list[str], out: str | Path, opts: Options = Options(), num_proc: int = 1, audit: bool = True,
           default: str | None = None, license_id: str | None = None, skip_unavailable: bool = False,
           report: Callable[[str], None] | None = print, progress: bool = True,
           overwrite: bool = False) -> ExportResult:
    """Export ``names`` into ``out`` (parquet per config and split, plus the README.md dataset card).

    ``out`` is new, empty, or a previous export of the same request (its complete configs are kept:
    a rerun resumes a killed export); another export there (other options, or configs this one
    leaves out) is replaced only with ``overwrite``. With ``skip_unavailable`` (``--all``), configs
    whose input files are missing here are left out and listed in the report and the card.
    Each config carries its licence (``builders.licences``): ``license_id`` (default apache-2.0) for generated
    data, the corpus's for data derived from a known corpus, ``license_id`` (required) for other sources.
    """
    start = time.perf_counter()
    if not names:
        raise InputError("no configs to export: name some (see `blm list`) or pass --all")
    names = list(dict.fromkeys(names))
    licences = {name: config_licence(registry.get_spec(name), opts.sources, GENERATED_LICENSE, license_id)
                for name in names}
    if default is not None and default not in names:
        raise InputError(f"--default {default!r} is not among the exported configs")
    with locked(out, "--out"):
        return _export_locked(names, out, opts, num_proc, audit, default, licences, skip_unavailable, report,
                              progress, overwrite, start)


def _export_locked(names: list[str], out: str | Path, opts: Options, num_proc: int, audit: bool, default: str | None,
                   licences: Mapping[str, ConfigLicence], skip_unavailable: bool, report: Callable[[str], None] | None, progress: bool,
                   overwrite: bool, start: float) -> ExportResult:
    """``export`` once it holds the folder's lock."""
    info = generation_info(opts)
    folder = ExportFolder(out, info, names, overwrite=overwrite)
    folder.write_card = _card_writer(info, default, GENERATED_LICENSE, lambda: list(folder.manifest["skipped"]),
                                     licences=licences)
    kept = folder.open()
    out = folder.out
    say = report or (lambda _msg: None)
    done: dict[str, ConfigSummary | Skipped] = {n: summary_from_dict(s) for n, s in kept.items()}
    todo = [n for n in names if n not in done]
    bar = tqdm(total=len(names), initial=len(done), desc="export", unit="config", disable=not progress)
    emit = bar.write if progress and report is print else say
    if done:
        emit(f"{out}: {len(done)} of {len(names)} configs already complete ({', '.join(done)}); exporting the rest")

    def finished(results: list[tuple[ConfigSummary | Skipped, Path | None]]) -> None:
        for result in results:
            finished_one(result)

    def finished_one(result: tuple[ConfigSummary | Skipped, Path | None]) -> None:
        summary, staged = result
        done[summary.name] = summary
        bar.update(1)
        if isinstance(summary, Skipped):
            folder.skip(summary.name, summary.reason)
            emit(f"[{len(done)}/{len(names)}] {summary.name}: skipped ({summary.reason})")
            return
        folder.commit(summary.name, staged, asdict(summary))
        sizes = ", ".join(f"{s.name} {s.num_examples}" for s in summary.splits)
        emit(f"[{len(done)}/{len(names)}] {summary.name}: {sizes} ({summary.seconds:.1f}s)")

    try:
        groups = twin_groups(todo)
        if num_proc > 1 and len(groups) > 1:
            # largest first: the pool stays busy
            order = sorted(groups, key=lambda g: -sum(_expected_rows(n, opts) for n in g))
            _warm_up(todo, audit)
            jobs = {g[0]: _Job(g, folder.out, opts, 1, audit, skip_unavailable, in_worker=True) for g in order}
            run_pool(_run_one, jobs, min(num_proc, len(groups)), folder, finished)
        else:
            for group in groups:
                finished(_run_one(_Job(group, folder.out, opts, num_proc, audit, skip_unavailable,
                                       progress=progress)))
    finally:
        bar.close()
        folder.discard_staging()
    summaries = [done[n] for n in names if isinstance(done[n], ConfigSummary)]
    skipped = [done[n] for n in names if isinstance(done[n], Skipped)]
    if not summaries:
        raise InputError("nothing was exported: " + "; ".join(s.reason for s in skipped))
    if default is not None and default not in {s.name for s in summaries}:
        raise InputError(f"--default {default!r} was skipped: {done[default].reason}")
    files = folder.finish()
    result = ExportResult(out, summaries, info, out / "README.md", round(time.perf_counter() - start, 2), files,
                          skipped)
    total_rows = sum(s.num_examples for s in summaries)
    total_mb = sum(p.stat().st_size for p in files) / 1e6
    say(f"wrote {out}: {len(summaries)} configs, {total_rows} rows, {total_mb:.1f} MB in {result.seconds:.1f}s"
        + (f"; skipped {len(skipped)} (input files unavailable): {', '.join(s.name for s in skipped)}"
           if skipped else ""))
    return result


def write_configs(out: str | Path, configs: Mapping[str, Mapping[str, Sequence[dict[str, Any]]]], *,
                  generation: Mapping[str, Any] | None = None, card_extras: Mapping[str, Any] | None = None,
                  card_notes: str | None = None, default: str | None = None, license_id: str = "apache-2.0",
                  overwrite: bool = False, features=FEATURES,
                  report: Callable[[str], None] | None = None) -> ExportResult:
    """Write ``{config: {split: records}}`` into the export folder ``out`` atomically, with its card.

    The folder gets the ``blm export`` layout (``load_source(out, config)`` and ``datasets.load_dataset(out,
    config)`` read it). Each config is staged and renamed into place, then the manifest and the card
    (rendered from ``generation``, whose keys are those of ``generation_info``, plus ``card_extras`` YAML
    keys and a ``card_notes`` Markdown section) are rewritten, so an interrupted call leaves only
    complete configs. ``overwrite`` is needed to replace an export made with other options or configs.
    """
    start = time.perf_counter()
    if not configs:
        raise InputError("no configs to write")
    names = list(configs)
    if default is not None and default not in names:
        raise InputError(f"default config {default!r} is not among {', '.join(names)}")
    info = dict(generation or generation_info(Options()))
    folder = ExportFolder(out, info, names, overwrite=overwrite)
    folder.write_card = _card_writer(info, default, license_id, lambda: [], card_extras, card_notes)
    folder.open()
    summaries = []
    try:
        for name, splits in configs.items():
            began = time.perf_counter()
            staged = staging_folder(folder.out, name)
            written = [write_split(records, staged, split, config=name, features=features)
                       for split, records in splits.items()]
            summary = summarise(name, splits, written, seconds=time.perf_counter() - began)
            folder.commit(name, staged, asdict(summary))
            summaries.append(summary)
            if report:
                report(f"{name}: " + ", ".join(f"{s.name} {s.num_examples}" for s in written))
    finally:
        folder.discard_staging()
    files = folder.finish()
    return ExportResult(folder.out, summaries, info, folder.out / "README.md", round(time.perf_counter() - start, 2),
                        files)


def default_num_proc() -> int:
    """The CPUs this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
