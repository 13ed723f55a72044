"""From release files to records per config and split, with the per-file report.

Rows become records (SPEC §2) in the release's own terms: text, patterns and chunks as released,
labels mapped through ``labels.TABLE``. Defects are found per file before any repair; with
``repair`` the rows are mended and every change counted. Rows go to the release's split when it
has one, else to a seeded random split by instance (identical instances stay together).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from blm_datasets.importer import agreement, checks, defects, labels as label_table
from blm_datasets.importer.defects import Finding, Item
from blm_datasets.importer.discover import discover
from blm_datasets.importer.infer import FileMeta, infer, row_template
from blm_datasets.importer.rows import Problem, ReleasedRow, ReleaseError, SourceFile
from builders.record import GOLD_LABEL, UNKNOWN

SPLIT_ORDER = ("train", "validation", "test")


@dataclass(frozen=True)
class ImportOptions:
    """What ``blm import`` was asked: overrides of the inferred values, the split, repairs, extra labels."""

    phenomenon: str | None = None
    language: str | None = None
    variant: str | None = None
    lexical_type: str | None = None
    template: str | None = None
    split: str = "auto"                 # auto: the release's split when it has one, else random | release | random
    test_size: float = 0.1
    seed: int = 42
    repair: bool = False
    labels: tuple[str, ...] = ()        # --label NAME=LABEL:CLASS
    encoding: str = "utf-8"


@dataclass
class FileReport:
    """One released file: what it is, where its rows went, its defects and the repairs made."""

    path: str
    format: str
    config: str
    rows: int
    kept: int = 0
    inferred: dict[str, str] = field(default_factory=dict)
    split: str = ""
    notes: list[str] = field(default_factory=list)
    defects: dict[str, dict[str, Any]] = field(default_factory=dict)
    repairs: dict[str, Any] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    # agreement: candidates labelled by their content ({"read", "checked", "refined", "relabelled", "undecided"})
    content_labels: dict[str, Any] = field(default_factory=dict)


@dataclass
class ConfigReport:
    """One config: its splits, the files it came from, the cross-split defect and the validator's view."""

    name: str
    splits: dict[str, int]
    files: list[str]
    split: str
    test_sentences_in_train: dict[str, Any] | None = None
    checks: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


@dataclass
class ImportResult:
    """The records per config and split, and everything the console and the card report."""

    configs: dict[str, dict[str, list[dict[str, Any]]]]
    files: list[FileReport]
    config_reports: dict[str, ConfigReport]
    skipped: list[str]
    notes: list[str]
    options: ImportOptions
    inputs: list[Path] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)        # {"path", "reason"}: files not imported
    duplicates: list[dict[str, str]] = field(default_factory=list)    # {"path", "of", "how"}: files imported once

    def as_dict(self) -> dict[str, Any]:
        used = sorted({c.name.split("_")[0] for c in self.config_reports.values()})
        return {
            "repair": self.options.repair,
            "files": [asdict(f) for f in self.files],
            "configs": {n: asdict(c) for n, c in self.config_reports.items()},
            "labels": [list(r) for p in used for r in label_table.table_rows(p)]
                      + [["--label", name, e.labels[0], e.error_class, "--label"]
                         for name, e in _overrides(self.options).items()],
            "skipped": self.skipped, "notes": self.notes, "failed": self.failed, "duplicates": self.duplicates,
        }


def _overrides(opts: ImportOptions) -> dict[str, label_table.Entry]:
    return label_table.parse_overrides(opts.labels)


# ------------------------------------------------------------------------------------------ rows -> items
def _gold(row: ReleasedRow, overrides: dict[str, label_table.Entry]) -> int | Problem:
    """The gold position: the candidate flagged True (or, without flags, the one labelled True/Correct)."""
    def gold_named(name: str) -> bool:
        entry = overrides.get(label_table.canonical(name))
        return label_table.is_gold_name(name) or (entry is not None and entry.error_class == "CORRECT")

    named = [i for i, name in enumerate(row.labels) if gold_named(name)]
    flagged = [i for i, v in enumerate(row.gold) if v] if row.gold is not None else named
    source = "flagged True" if row.gold is not None else "labelled True/Correct"
    if not flagged:
        return Problem("no_gold", f"{row.where}: no gold answer (no candidate {source}); fix the row or pass "
                                  "--repair to drop it")
    if len(flagged) > 1:
        return Problem("two_golds", f"{row.where}: {len(flagged)} gold answers (candidates "
                                    f"{', '.join(str(i + 1) for i in flagged)} {source}); fix the row or pass "
                                    "--repair to drop it")
    gold = flagged[0]
    if named and named != [gold]:
        other = next(i for i in named if i != gold)
        return Problem("gold_label_conflict", f"{row.where}: candidate {other + 1} is labelled {row.labels[other]!r} "
                                              f"but candidate {gold + 1} is {source}; fix the row or pass --repair")
    if not named and not label_table.is_empty_name(row.labels[gold]):
        return Problem("gold_label_conflict", f"{row.where}: the gold candidate {gold + 1} is labelled "
                                              f"{row.labels[gold]!r}, a distractor's label; fix the row or pass "
                                              "--repair")
    return gold


def _problem(row: ReleasedRow) -> Problem | None:
    if any(not s for s in (*row.context, *row.answers)):
        return Problem("empty_text", f"{row.where}: an empty sentence or candidate; fix the row or pass --repair")
    if len(row.answers) < 2:
        return Problem("too_few_candidates", f"{row.where}: fewer than two candidates; fix the row or pass --repair")
    return None


def _items(source: SourceFile, meta: FileMeta, opts: ImportOptions, overrides: dict[str, label_table.Entry],
           report: FileReport) -> list[Item]:
    """The file's usable rows as items; unusable ones stop the import (or, with repair, are dropped and counted)."""
    items, dropped, unusable, unknown = [], Counter(), [], []
    checked = _ContentCheck()
    for row in source.rows:
        problem = row.problem or _problem(row)
        gold = None
        if problem is None:
            gold = _gold(row, overrides)
            problem = gold if isinstance(gold, Problem) else None
        if problem is not None:
            row.problem = problem
            dropped[problem.kind] += 1
            unusable.append(problem)
            continue
        template = row_template(meta, row.context_patterns, opts.template, source.path, row.answers[gold])
        if not row.labels_known:  # the release names no distractor's error: UNKNOWN, read from content below (agr)
            mapped = [GOLD_LABEL if i == gold else UNKNOWN for i in range(len(row.answers))]
            classes = ["CORRECT" if i == gold else UNKNOWN for i in range(len(row.answers))]
        else:
            try:
                mapped, classes = label_table.map_labels(row.labels, gold, meta.phenomenon, template, overrides,
                                                         row.where, source.label_columns, source.format)
            except ReleaseError as err:
                unknown.append(str(err))
                continue
        if meta.phenomenon == "agr":
            _label_by_content(row, gold, meta.iso, mapped, classes, checked)
        n = len(row.context)
        chunks = [list(c) for c in row.context_chunks] if row.context_chunks else [[s] for s in row.context]
        items.append(Item(row, {
            "phenomenon": meta.phenomenon, "language": meta.iso, "lexical_type": meta.lexical_type,
            "template": template, "lemma": row.lemma, "context": list(row.context),
            "context_patterns": list(row.context_patterns or [""] * n),
            "context_chunks": chunks,
            "answers": list(row.answers), "answer_labels": mapped, "answer_error_classes": classes,
            "answer_patterns": list(row.answer_patterns or [""] * len(row.answers)), "label": gold,
        }, [list(c) for c in row.answer_chunks] if row.answer_chunks else None))
    if unknown:
        more = f" ({len(unknown)} rows have unknown labels)" if len(unknown) > 1 else ""
        raise ReleaseError(unknown[0] + more)
    if unusable and not opts.repair:
        counts = ", ".join(f"{defects.UNUSABLE[k]} {v}" for k, v in dropped.most_common())
        raise ReleaseError(unusable[0].message + (f" [{len(unusable)} unusable rows in this file: {counts}]"
                                                  if len(unusable) > 1 else ""))
    report.dropped.update(dropped)
    if checked.read:
        report.content_labels = checked.as_dict()
    return items


@dataclass
class _ContentCheck:
    """What reading the agreement candidates' content did to one file's labels."""

    read: Counter = field(default_factory=Counter)          # "text" | "patterns" -> rows
    checked: int = 0
    refined: Counter = field(default_factory=Counter)       # "AE -> AEN1" -> candidates
    relabelled: Finding = field(default_factory=Finding)
    undecided: Counter = field(default_factory=Counter)     # why -> candidates

    def as_dict(self) -> dict[str, Any]:
        return {"read": dict(self.read.most_common()), "checked": self.checked, "refined": dict(self.refined),
                "relabelled": self.relabelled.as_dict(), "undecided": dict(self.undecided.most_common())}


def _label_by_content(row: ReleasedRow, gold: int, iso: str, labels: list[str], classes: list[str],
                      check: _ContentCheck) -> None:
    """Agreement: each candidate takes the label its content gives; a name that says otherwise is counted."""
    found, read = agreement.content_labels(gold, row.answers, row.answer_patterns, iso)
    if not read:
        check.undecided["neither patterns nor text the reader knows"] += len(labels) - 1
        return
    check.read[read] += 1
    changes = []
    for i, (label, why) in enumerate(found):
        if i == gold:
            continue
        if label is None:
            check.undecided[why] += 1
            continue
        check.checked += 1
        if label == labels[i]:
            continue
        if labels[i] == "AE" and label in agreement.AGREEMENT_ERRORS:   # BLM-AgrF's one AE, split by the verb
            check.refined[f"AE -> {label}"] += 1
        elif labels[i] == UNKNOWN:   # an unannotated release: the content gives the label
            check.refined[f"{UNKNOWN} -> {label}"] += 1
        else:
            changes.append(f"{row.labels[i]}: {labels[i]} -> {label} ({why})")
        labels[i], classes[i] = label, label_table.TABLE["agr"][label_table.canonical(label)].error_class
    if changes:
        check.relabelled.add(row.where, *changes)


def _repair(items: list[Item], opts: ImportOptions, report: FileReport) -> list[Item]:
    """De-duplicate candidates and instances (an instance given two golds: every copy), shuffle candidates; every
    change counted in ``report``."""
    removed, kept, seen, repeats, too_few = Counter(), [], set(), 0, 0
    golds: dict[tuple, set[str]] = {}
    for item in items:
        golds.setdefault(item.row.key(), set()).add(item.record["answers"][item.record["label"]])
    conflicting = {key for key, texts in golds.items() if len(texts) > 1}   # no gold to trust: every copy dropped
    for item in items:
        if item.row.key() in conflicting:
            repeats += 1
            continue
        removed.update(defects.remove_repeated_candidates(item))
        if len(item.record["answers"]) < 2:
            too_few += 1
            continue
        key = item.row.key()
        if key in seen:
            repeats += 1
            continue
        seen.add(key)
        defects.shuffle_candidates(item, opts.seed)
        kept.append(item)
    if too_few:
        report.dropped["too_few_candidates"] = report.dropped.get("too_few_candidates", 0) + too_few
    report.repairs = {"candidates_removed": dict(removed.most_common()), "instances_removed": repeats}
    _count_repaired(kept, report)
    return kept


def _count_repaired(kept: list[Item], report: FileReport) -> None:
    """The repair counts that depend on the rows a file keeps (again after rows of other files removed some)."""
    positions = Counter(item.record["label"] + 1 for item in kept)
    report.repairs.update(rows_shuffled=len(kept), gold_positions_after=dict(sorted(positions.items())))
    report.kept = len(kept)


# ------------------------------------------------------------------------------------------ splits
def _random_split(items: list[Item], name: str, opts: ImportOptions) -> dict[str, list[Item]]:
    """A seeded split by instance: identical instances share a split; the test share is of instances."""
    groups: dict[tuple, list[Item]] = {}
    for item in items:
        groups.setdefault(item.row.key(), []).append(item)
    keys = sorted(groups)
    random.Random(f"{opts.seed}:{name}").shuffle(keys)
    n_test = max(1, round(opts.test_size * len(keys))) if len(keys) > 1 else 0
    test = {k for k in keys[:n_test]}
    out = {"train": [i for i in items if i.row.key() not in test], "test": [i for i in items if i.row.key() in test]}
    return {s: rows for s, rows in out.items() if rows}


def _assign_splits(name: str, parts: list[tuple[SourceFile, FileReport, list[Item]]], opts: ImportOptions
                   ) -> tuple[dict[str, list[Item]], str]:
    released = [source.split_from for source, _, _ in parts]
    if opts.split == "random" or (opts.split == "auto" and not any(released)):
        items = [i for _, _, rows in parts for i in rows]
        described = f"random, {1 - opts.test_size:.0%}/{opts.test_size:.0%} of instances (seed {opts.seed})"
        for _, report, _ in parts:
            report.split = described
        return _random_split(items, name, opts), described
    if not all(released):
        plain = [s.path.name for s, _, _ in parts if not s.split_from]
        if opts.split == "release" and len(plain) == len(parts):
            raise ReleaseError(f"{name}: {', '.join(plain)} carry no split (no train/test in the file name, no "
                               "datasets/<split>/sentences folders or split_info.json beside them); pass --split "
                               "random")
        raise ReleaseError(f"{name}: {', '.join(plain)} carry no split but other files of this config do; import "
                           "them separately (different --out) or pass --split random")
    splits: dict[str, list[Item]] = {}
    for source, report, items in parts:
        report.split = f"release ({source.split_from})"
        outside = 0
        for item in items:
            if item.row.split is None:
                outside += 1
                continue
            splits.setdefault(item.row.split, []).append(item)
        if outside:
            report.dropped["not_in_release_split"] = outside
            report.kept -= outside
    described = "release (" + ", ".join(sorted({s for s in released if s})) + ")"
    return {s: splits[s] for s in sorted(splits, key=lambda s: (SPLIT_ORDER + (s,)).index(s))}, described


# ------------------------------------------------------------------------------------------ entry point
def build(srcs: list[str], opts: ImportOptions = ImportOptions()) -> ImportResult:
    """Read, map, check and split every release file under ``srcs``."""
    if opts.split not in ("auto", "release", "random"):
        raise ReleaseError(f"--split {opts.split!r}: use auto, release or random")
    if not 0 < opts.test_size < 1:
        raise ReleaseError(f"--test-size {opts.test_size}: must be between 0 and 1 (exclusive), e.g. 0.1")
    overrides = _overrides(opts)
    found = discover(srcs, opts.encoding, use_release_split=opts.split != "random")
    if not found.sources and not found.failed:
        skipped = "; ".join(found.skipped[:3]) or "none"
        raise ReleaseError(f"no BLM release file found in {' '.join(srcs)} (skipped: {skipped}); give 4dev TSV, "
                           "early BLM-AgrF CSV or CALAMITA JSON files")
    failed = [{"path": str(path), "reason": reason} for path, reason in found.failed]
    sources, duplicates = _once(found.sources)
    by_config: dict[str, list[tuple[SourceFile, FileReport, list[Item]]]] = {}
    reports: list[FileReport] = []
    for source in sources:
        try:
            meta, report, items = _file(source, opts, overrides)
        except ReleaseError as err:   # this file is reported; the others are imported all the same
            failed.append({"path": str(source.path), "reason": str(err)})
            continue
        reports.append(report)
        by_config.setdefault(meta.config, []).append((source, report, items))
    if not by_config:
        first = failed[0]["reason"]
        raise ReleaseError(first + (f" [{len(failed) - 1} more files not imported]" if len(failed) > 1 else ""))
    configs, config_reports = {}, {}
    for name, parts in by_config.items():
        parts = _across_files(parts, opts)
        try:
            splits, described = _assign_splits(name, parts, opts)
            if not any(splits.values()):
                raise ReleaseError(f"{name}: no row of {', '.join(s.path.name for s, _, _ in parts)} is left to "
                                   f"import ({'; '.join(f'{k} {v}' for _, r, _ in parts for k, v in r.dropped.items())}"
                                   "); check the files and the split")
        except ReleaseError as err:   # the config's files are reported; the other configs are imported
            failed += [{"path": str(source.path), "reason": str(err)} for source, _, _ in parts]
            reports = [r for r in reports if all(r is not report for _, report, _ in parts)]
            continue
        records: dict[str, list[dict[str, Any]]] = {}
        for split, items in splits.items():
            records[split] = [{"id": f"{name}-{split}-{i:06d}", **item.record} for i, item in enumerate(items)]
        configs[name] = records
        config_reports[name] = _config_report(name, records, parts, described)
    if not configs:
        raise ReleaseError(failed[0]["reason"] + (f" [{len(failed) - 1} more files not imported]"
                                                  if len(failed) > 1 else ""))
    return ImportResult(configs, reports, config_reports, found.skipped, found.notes, opts, found.inputs, failed,
                        duplicates)


def _file(source: SourceFile, opts: ImportOptions, overrides: dict[str, label_table.Entry]
          ) -> tuple[FileMeta, FileReport, list[Item]]:
    """One file read into items with its report; a ReleaseError says why the file cannot be imported."""
    if not source.rows:
        raise ReleaseError(f"{source.path}: no rows (only a header); give the file with its data rows")
    meta = infer(source, opts.phenomenon, opts.language, opts.variant, opts.lexical_type, overrides)
    report = FileReport(str(source.path), source.format, meta.config, len(source.rows), notes=list(source.notes),
                        inferred={k: f"{getattr(meta, k)} ({how})" for k, how in meta.how.items()})
    items = _items(source, meta, opts, overrides, report)
    report.defects = {k: f.as_dict() for k, f in defects.find(items).items()}
    if opts.repair:
        items = _repair(items, opts, report)
    report.kept = len(items)
    return meta, report, items


def _across_files(parts: list[tuple[SourceFile, FileReport, list[Item]]], opts: ImportOptions
                  ) -> list[tuple[SourceFile, FileReport, list[Item]]]:
    """Instances of a config's file that repeat one of an earlier file of the same config (same context and answer
    set, in any order): a duplicate_instances defect of the later file (``repeats FILE:LINE``), or conflicting_gold
    when the two files give it different gold answers. ``--repair`` removes the repeats and, since neither gold can
    be trusted, every copy of a conflicting instance; the gold positions each file keeps are counted again."""
    first: dict[tuple, tuple[SourceFile, str, str]] = {}
    found, conflicting = [], set()
    for source, report, items in parts:
        repeats, conflicts = defects.Finding(), defects.Finding()
        for item in items:
            key, gold = item.row.key(), item.record["answers"][item.record["label"]]
            seen = first.setdefault(key, (source, item.row.where, gold))
            if seen[0] is source:
                continue
            if seen[2] == gold:
                repeats.add(f"{item.row.where} (repeats {seen[1]})", f"repeats a row of {seen[0].path.name}")
            else:
                conflicts.add(f"{item.row.where} (gold {gold!r}; {seen[1]}: gold {seen[2]!r})",
                              f"another gold than {seen[0].path.name}")
                conflicting.add(key)
        found.append((repeats, conflicts))
    out = []
    for (source, report, items), (repeats, conflicts) in zip(parts, found):
        for kind, finding in (("duplicate_instances", repeats), ("conflicting_gold", conflicts)):
            if finding.count:
                old = report.defects.get(kind, {"count": 0, "detail": {}, "examples": []})
                report.defects[kind] = {
                    "count": old["count"] + finding.count, "detail": {**old["detail"], **finding.as_dict()["detail"]},
                    "examples": (old["examples"] + finding.examples)[:defects.MAX_EXAMPLES]}
        if opts.repair:
            kept = [item for item in items if item.row.key() not in conflicting
                    and first[item.row.key()][0] is source]
            removed = len(items) - len(kept)
            if removed:
                report.repairs["instances_removed"] = report.repairs.get("instances_removed", 0) + removed
                _count_repaired(kept, report)
            items = kept
        out.append((source, report, items))
    return out


def _once(sources: list[SourceFile]) -> tuple[list[SourceFile], list[dict[str, str]]]:
    """The sources with byte-identical and row-identical files kept once (the first by path), and the others."""
    kept, duplicates, by_bytes, by_rows = [], [], {}, {}
    for source in sources:
        digest = hashlib.sha256(source.path.read_bytes()).hexdigest() if source.format != "split-json" else None
        rows = tuple((tuple(r.context), tuple(r.answers), tuple(r.labels), tuple(r.gold or ()), r.split)
                     for r in source.rows)
        first = by_bytes.get(digest) if digest else None
        how = "byte-identical to"
        if first is None:
            first, how = by_rows.get(rows) if source.rows else None, "the same rows as"
        if first is not None:
            duplicates.append({"path": str(source.path), "of": str(first.path), "how": how})
            continue
        if digest:
            by_bytes[digest] = source
        by_rows.setdefault(rows, source)
        kept.append(source)
    return kept, duplicates


def _config_report(name: str, records: dict[str, list[dict[str, Any]]], parts, described: str) -> ConfigReport:
    report = ConfigReport(name, {s: len(r) for s, r in records.items()}, [str(s.path) for s, _, _ in parts], described)
    if records.get("train") and records.get("test"):
        finding: Finding = defects.shared_with_train(records["train"], records["test"])
        report.test_sentences_in_train = finding.as_dict()
    for split in ("train", "test"):
        if not records.get(split):
            report.warnings.append(f"no {split} split: train.py and `blm audit` need train and test; import the "
                                   f"release's {split} file too, or pass --split random")
    everything = [r for rows in records.values() for r in rows]
    sizes = {len(r["answers"]) for r in everything}
    if len(sizes) > 1:
        by_file = {f"{s.path.name} ({'/'.join(map(str, sorted({len(i.record['answers']) for i in items})))})"
                   for s, _, items in parts}
        report.warnings.append(f"rows with {' and '.join(map(str, sorted(sizes)))} candidates in one config (from "
                               f"{', '.join(sorted(by_file))}); import such files separately (one --out each) to "
                               "keep one answer-set size per config")
    report.checks = checks.validate_config(name, everything, any(s.has_chunks for s, _, _ in parts))
    return report
