"""The ``blm`` command: list, generate, validate, audit and show BLM configs."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from builders.base import ImpossibleSize, SourceUnavailable
from builders.lexicon import LexiconError


def _add_generation_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("names", nargs="*", help="config names (see `blm list`)")
    p.add_argument("--all", action="store_true", help="every registered config")
    p.add_argument("--phenomenon", help="with --all: only this phenomenon")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--size", type=int, help="instances per config (train + test); default: the paper's")
    p.add_argument("--split", choices=("lemma", "random"), default="lemma",
                   help="lemma: test lemmas never occur in train (default); random: instance split")
    p.add_argument("--test-size", type=float, help="share of lemmas (or instances) in test")
    p.add_argument("--num-proc", type=int, default=1, help="processes for generation")
    p.add_argument("--sources", nargs="+", help="input files of corpus-based configs (CoNLL-U …)")


def _names(args) -> list[str]:
    from builders import registry

    if args.all:
        names = registry.config_names()
        if args.phenomenon:
            names = [n for n in names if n.split("_")[0] == args.phenomenon]
        return names
    if not args.names:
        raise ValueError("name at least one config, or pass --all (see `blm list`)")
    for name in args.names:
        registry.get_spec(name)
    return args.names


def _each(names: list[str], args, work) -> None:
    """Run ``work(name)`` per config; with --all, configs lacking corpus files are skipped."""
    for name in names:
        try:
            work(name)
        except SourceUnavailable as err:
            if not args.all:
                raise
            print(f"{name}: skipped: {err}")


def _options(args):
    from builders.generate import Options

    sources = tuple(args.sources) if getattr(args, "sources", None) else None
    return Options(seed=args.seed, size=args.size, split=args.split, test_size=args.test_size, sources=sources)


def _load(name: str, args):
    from blm_datasets import load_blm

    opts = _options(args)
    extra = {"sources": list(opts.sources)} if opts.sources else {}
    return load_blm(name, seed=opts.seed, size=opts.size, split_mode=opts.split, test_size=opts.test_size, **extra,
                    num_proc=args.num_proc if args.num_proc > 1 else None)


def cmd_list(args) -> int:
    from builders import registry

    for name in registry.config_names():
        if not args.phenomenon or name.split("_")[0] == args.phenomenon:
            print(name)
    return 0


def cmd_generate(args) -> int:
    from builders import registry
    from builders.generate import generate

    total_start = time.perf_counter()

    def one(name: str) -> None:
        start = time.perf_counter()
        spec = registry.get_spec(name)
        splits = generate(spec, _options(args), num_proc=args.num_proc)
        line = ", ".join(f"{s} {len(o.records)}" + (f" (rejected {dict(o.rejected)})" if o.rejected else "")
                         for s, o in splits.items())
        print(f"{name}: {line} [{time.perf_counter() - start:.1f}s]")
        if args.out:
            import datasets

            from blm_datasets.features import FEATURES

            dd = datasets.DatasetDict({s: datasets.Dataset.from_list(o.records, features=FEATURES)
                                       for s, o in splits.items()})
            target = Path(args.out) / name
            if args.format == "arrow":
                dd.save_to_disk(str(target))
            else:
                target.mkdir(parents=True, exist_ok=True)
                for split, ds in dd.items():
                    getattr(ds, f"to_{args.format}")(str(target / f"{split}.{args.format}"))

    _each(_names(args), args, one)
    print(f"total {time.perf_counter() - total_start:.1f}s")
    return 0


def cmd_validate(args) -> int:
    from blm_datasets.validate import validate_rows
    from builders import registry

    failed = False

    def one(name: str) -> None:
        nonlocal failed
        spec = registry.get_spec(name)
        dd = _load(name, args)
        lemma_overlap = set(dd["train"]["lemma"]) & set(dd["test"]["lemma"])
        for split, ds in dd.items():
            report = validate_rows(ds, spec)
            if split == "test" and args.split == "lemma":
                report["failures"]["lemma_disjoint"] = len(lemma_overlap)
            bad = {k: v for k, v in report["failures"].items() if v}
            failed |= bool(bad)
            status = "FAIL " + json.dumps(bad) if bad else "ok"
            print(f"{name} {split}: {report['rows']} rows, {len(report['failures'])} checks, "
                  f"gold-position p={report['gold_position_pvalue']:.3f}: {status}")

    _each(_names(args), args, one)
    print("validation failed" if failed else "all checks passed")
    return 1 if failed else 0


def cmd_audit(args) -> int:
    from blm_datasets.audit import audit_rows
    from builders import registry

    results = {}

    def one(name: str) -> None:
        spec = registry.get_spec(name)
        dd = _load(name, args)
        if "test" not in dd:
            raise ValueError(f"{name} has no test split to audit")
        results[name] = audit_rows(list(dd["train"]), list(dd["test"]), spec.iso)

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


def cmd_show(args) -> int:
    dd = _load(args.name, args)
    row = dd[args.split_name][args.index]
    print(f"{row['id']}  {row['phenomenon']} {row['language']} type {row['lexical_type']} "
          f"template={row['template']} lemma={row['lemma']}")
    print("Context:")
    for i, (sent, pattern) in enumerate(zip(row["context"], row["context_patterns"]), 1):
        print(f"  {i}. {sent}\n       {pattern}")
    print("Answers:")
    for i, (ans, lab, cls) in enumerate(zip(row["answers"], row["answer_labels"], row["answer_error_classes"])):
        mark = "*" if i == row["label"] else " "
        print(f" {mark}{chr(65 + i)}. {ans}\n       {lab} ({cls})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="blm", description="Blackbird Language Matrices toolkit")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="print every config name")
    p.add_argument("--phenomenon")
    p.set_defaults(func=cmd_list)
    p = sub.add_parser("generate", help="generate configs, report sizes and rejections")
    _add_generation_args(p)
    p.add_argument("--out", help="write each config under this folder")
    p.add_argument("--format", choices=("arrow", "parquet", "json"), default="parquet")
    p.set_defaults(func=cmd_generate)
    p = sub.add_parser("validate", help="check every SPEC invariant on every row")
    _add_generation_args(p)
    p.set_defaults(func=cmd_validate)
    p = sub.add_parser("audit", help="answer-only baselines (context never seen)")
    _add_generation_args(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_audit)
    p = sub.add_parser("show", help="pretty-print one instance")
    p.add_argument("name")
    p.add_argument("--index", type=int, default=0)
    p.add_argument("--split-name", default="test", help="train or test")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--size", type=int)
    p.add_argument("--split", choices=("lemma", "random"), default="lemma")
    p.add_argument("--test-size", type=float)
    p.add_argument("--num-proc", type=int, default=1)
    p.set_defaults(func=cmd_show)
    from blm_datasets import cli_publish

    cli_publish.register(sub)
    from blm_eval import cli as cli_eval

    cli_eval.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, LexiconError, KeyError, IndexError) as err:
        print(f"blm {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
