"""``blm list | generate | validate | audit | show``: configs generated on the fly or read from a data source."""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import time
from pathlib import Path

import datasets

from blm_cli.args import (
    add_generation_args,
    int_at_least,
    add_source_args,
    check_source_files,
    configs_of,
    phenomenon,
    select_names,
)
from blm_datasets import review
from blm_datasets.export_folder import check_out_file, ensure_out_folder, replace_folder, staging_folder
from builders.atomic import atomic_write_text
from builders.errors import InputError
from builders.locks import locked
from blm_datasets.features import FEATURES
from blm_datasets.sources import imported_checks, load_source, require_split, source_configs
from blm_datasets.validate import format_pvalue, validate_splits
from builders import registry
from builders.base import SourceUnavailable
from builders.generate import Options, generate


# ------------------------------------------------------------------------------------------- helpers
def _options(args: argparse.Namespace):
    return Options(seed=args.seed, size=args.size, split=args.split or "lemma", test_size=args.test_size,
                   sources=check_source_files(getattr(args, "sources", None)))


def _names(args: argparse.Namespace) -> list[str]:
    """Config names of the command; with --dataset and no names, every config the source holds."""
    if getattr(args, "dataset", None) and not args.names and not args.all and not args.phenomenon:
        return source_configs(args.dataset)
    return select_names(args)


def _load(name: str, args: argparse.Namespace):
    opts = _options(args)
    return load_source(getattr(args, "dataset", None), name, seed=opts.seed, size=opts.size, split_mode=opts.split,
                       test_size=opts.test_size, sources=opts.sources, num_proc=args.num_proc,
                       cache_dir=getattr(args, "cache_dir", None))


def _each(names: list[str], args: argparse.Namespace, work) -> None:
    """Run ``work(name)`` per config; with --all, configs lacking corpus files are skipped and listed.

    Nothing done at all is an error, never a silent success.
    """
    skipped = []
    for name in names:
        try:
            work(name)
        except SourceUnavailable as err:
            if not (args.all or args.phenomenon):
                raise
            skipped.append(str(err))
            print(f"{name}: skipped: {err}")
    if names and len(skipped) == len(names):
        raise InputError(f"every config was skipped ({len(names)}): input files unavailable; pass --sources")


# ------------------------------------------------------------------------------------------- commands
def cmd_list(args: argparse.Namespace) -> int:
    for name in configs_of(args.phenomenon):
        print(name)
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    names = select_names(args)
    opts = _options(args)
    out = None
    if args.out:
        out = ensure_out_folder(args.out)
        busy = [n for n in names if (out / n).exists() and any((out / n).iterdir())]
        if busy and not args.overwrite:
            raise InputError(f"--out {out} already holds {', '.join(busy)}; pass --overwrite to replace "
                             f"{'them' if len(busy) > 1 else 'it'}, or choose another --out")
    total_start = time.perf_counter()

    def one(name: str) -> None:
        start = time.perf_counter()
        spec = registry.get_spec(name)
        splits = generate(spec, opts, num_proc=args.num_proc)
        line = ", ".join(f"{s} {len(o.records)}" for s, o in splits.items())
        if out is not None:
            _write_generated(out, name, splits, args.format)
            line += f" -> {out / name}"
        print(f"{name}: {line} [{time.perf_counter() - start:.1f}s]")
        report = getattr(registry.generator(spec.phenomenon, spec.language), "generation_report", None)
        for note in report(spec, opts, splits) if report else ():   # corpus skips, reuse (caush natural)
            print(f"{name}: {note}")

    with locked(out, "--out") if out is not None else contextlib.nullcontext():
        _each(names, args, one)
    print(f"total {time.perf_counter() - total_start:.1f}s")
    return 0


def _write_generated(out: Path, name: str, splits, fmt: str) -> None:
    """One config's splits into ``out/name`` (arrow: save_to_disk; parquet/json: a file per split), atomically."""
    staged = staging_folder(out, name)
    dd = datasets.DatasetDict({s: datasets.Dataset.from_list(o.records, features=FEATURES) for s, o in splits.items()})
    bars = not datasets.utils.are_progress_bars_disabled()
    datasets.disable_progress_bars()  # the config's line says what was written; no bar per file
    try:
        if fmt == "arrow":
            staged.rmdir()
            dd.save_to_disk(str(staged))
        else:
            for split, ds in dd.items():
                getattr(ds, f"to_{fmt}")(str(staged / f"{split}.{fmt}"))
    except BaseException:   # a full disk, Ctrl-C: the half-written files would keep the space the error asks to free
        shutil.rmtree(staged, ignore_errors=True)
        raise
    finally:
        if bars:
            datasets.enable_progress_bars()
    replace_folder(staged, out / name)


def cmd_validate(args: argparse.Namespace) -> int:
    failed = False
    lemma_split = args.split == "lemma" or (args.split is None and not args.dataset)

    def one(name: str) -> None:
        nonlocal failed
        spec = registry.get_spec(name)
        dd = _load(name, args)
        skip = imported_checks(getattr(args, "dataset", None), name)   # checks that cannot judge a release
        for check, why in skip.items():
            print(f"{name}: {check}: not applicable ({why})")
        for split, report in validate_splits(dd, spec, lemma_split).items():
            bad = {k: v for k, v in report["failures"].items() if v and k not in skip}
            failed |= bool(bad)
            status = "FAIL " + json.dumps(bad) if bad else "ok"
            print(f"{name} {split}: {report['rows']} rows, {len(report['failures'])} checks, "
                  f"gold-position {format_pvalue(report['gold_position_pvalue'])}: {status}")

    _each(_names(args), args, one)
    print("validation failed" if failed else "all checks passed")
    return 1 if failed else 0


def cmd_audit(args: argparse.Namespace) -> int:
    from blm_datasets.audit import audit_rows

    results = {}

    def one(name: str) -> None:
        if not args.dataset:
            registry.get_spec(name)
        dd = _load(name, args)
        test = require_split(dd, "test", name)
        language = test[0]["language"]   # the audit needs only the language: imported configs need no spec
        results[name] = audit_rows(list(require_split(dd, "train", name)), list(test), language)

    _each(_names(args), args, one)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for name, res in results.items():
        print(f"{name}: n={res['n_test']} chance={res['chance']:.3f} "
              f"chance(well-formed)={res['chance_wellformed']:.3f} "
              f"context content-word Jaccard={res['context_content_jaccard']:.3f}")
        for base, r in res["baselines"].items():
            flag = "  ABOVE CHANCE" if r["above_chance"] else ""
            print(f"  {base:14s} acc={r['accuracy']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]{flag}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    if not args.dataset:
        registry.get_spec(args.name)
    rows = require_split(_load(args.name, args), args.split_name, args.name)
    if not 0 <= args.index < len(rows):
        raise InputError(f"--index {args.index} is out of range: the {args.split_name} split of {args.name} has "
                         f"{len(rows)} instances (0 to {len(rows) - 1})")
    row = rows[args.index]
    meta = {k: row.get(k, "?") for k in ("id", "phenomenon", "language", "lexical_type", "template", "lemma")}
    print(f"{meta['id']}  {meta['phenomenon']} {meta['language']} type {meta['lexical_type']} "
          f"template={meta['template']} lemma={meta['lemma']}")
    print("Context:")  # the BLM columns are checked by the loader; the descriptive ones may be absent (imports)
    patterns = row.get("context_patterns") or [""] * len(row["context"])
    for i, (sent, pattern) in enumerate(zip(row["context"], patterns), 1):
        print(f"  {i}. {sent}\n       {pattern}")
    print("Answers:")
    for i, (ans, lab, cls) in enumerate(zip(row["answers"], row["answer_labels"], row["answer_error_classes"])):
        mark = "*" if i == row["label"] else " "
        print(f" {mark}{chr(65 + i)}. {ans}\n       {lab} ({cls})")
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    """A review sheet: ``--per-label`` random candidates per (label, class), with context and gold."""
    out = check_out_file(args.out, overwrite=args.overwrite)
    fmt = out.suffix.lstrip(".").lower()
    if fmt not in ("md", "html"):
        raise InputError(f"--out {args.out}: a review sheet is a .md or .html file")
    sheets = []

    def one(name: str) -> None:
        dd = _load(name, args)
        rows = [row for split in dd.values() for row in split]
        sheets.append((name, review.pick(rows, name, args.per_label, args.seed)))

    _each(_names(args), args, one)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, review.render(sheets, fmt))
    claims = sum(len(items) for _, groups in sheets for items in groups.values())
    print(f"wrote {out}: {claims} candidates to judge from {len(sheets)} configs")
    return 0


# ------------------------------------------------------------------------------------------- parser
def register(sub) -> None:
    """Add list, generate, validate, audit and show to the ``blm`` parser."""
    p = sub.add_parser("list", help="print every config name")
    p.add_argument("--phenomenon", type=phenomenon, help="only this phenomenon")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("generate", help="generate configs, report sizes and rejections")
    add_generation_args(p)
    p.add_argument("--out", help="write each config into OUT/NAME (atomically)")
    p.add_argument("--format", choices=("arrow", "parquet", "json"), default="parquet",
                   help="arrow: save_to_disk; parquet/json: one file per split (default: parquet)")
    p.add_argument("--overwrite", action="store_true", help="replace config folders already in --out")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("validate", help="check every SPEC invariant on every row")
    add_generation_args(p)
    add_source_args(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("audit", help="answer-only baselines (context never seen)")
    add_generation_args(p)
    add_source_args(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("review", help="a review sheet for native speakers: N candidates per (label, class)")
    add_generation_args(p)
    add_source_args(p)
    p.add_argument("--per-label", type=int_at_least(1), default=5, help="candidates per (label, class) (default 5)")
    p.add_argument("--out", required=True, help="the sheet: FILE.md or FILE.html")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    p.set_defaults(func=cmd_review)

    p = sub.add_parser("show", help="pretty-print one instance")
    p.add_argument("name", help="config name (see `blm list`, or the configs of --dataset)")
    p.add_argument("--index", type=int, default=0, help="instance number in the split (0 = the first)")
    p.add_argument("--split-name", default="test", help="train or test (default: test)")
    add_generation_args(p, names=False)
    add_source_args(p)
    p.set_defaults(func=cmd_show)
