"""``blm export`` and ``blm publish`` subcommands (registered into the main parser)."""

from __future__ import annotations

import argparse


def cmd_export(args: argparse.Namespace) -> int:
    """Export configs as parquet + dataset card into --out."""
    from blm_datasets.export import export
    from builders import registry
    from builders.generate import Options

    if args.names and (args.all or args.phenomenon):
        raise ValueError("give config names, or --all / --phenomenon, not both")
    if args.all or args.phenomenon:
        names = [n for n in registry.config_names()
                 if not args.phenomenon or registry.get_spec(n).phenomenon == args.phenomenon]
        if not names:
            known = ", ".join(dict.fromkeys(registry.get_spec(n).phenomenon for n in registry.config_names()))
            raise ValueError(f"no config of phenomenon {args.phenomenon!r}; known: {known}")
    elif args.names:
        names = args.names
    else:
        raise ValueError("name at least one config, or pass --all (see `blm list`)")
    if args.num_proc < 1:
        raise ValueError(f"--num-proc must be at least 1, got {args.num_proc}")
    sources = tuple(args.sources) if args.sources else None
    opts = Options(seed=args.seed, size=args.size, split=args.split_mode, test_size=args.test_size, sources=sources)
    if args.format == "calamita":
        return _export_calamita(names, args, opts)
    export(names, args.out, opts, num_proc=args.num_proc, audit=not args.no_audit, default=args.default,
           license_id=args.license, skip_unavailable=not args.names, progress=not args.quiet)
    return 0


def _export_calamita(names: list[str], args: argparse.Namespace, opts) -> int:
    """One config's split as the CALAMITA challenge JSON (BLM-It Figs. 7, 10)."""
    from blm_datasets.calamita import write_calamita
    from builders import registry
    from builders.generate import generate

    if len(names) != 1:
        raise ValueError("--format calamita writes one config to one JSON file: name exactly one config")
    splits = generate(registry.get_spec(names[0]), opts, num_proc=args.num_proc, progress=not args.quiet)
    if args.calamita_split not in splits or not splits[args.calamita_split].records:
        raise ValueError(f"{names[0]} has no {args.calamita_split!r} split to export")
    n = write_calamita(splits[args.calamita_split].records, args.out)
    print(f"{names[0]} {args.calamita_split}: {n} items written to {args.out}")
    return 0


def cmd_publish(args: argparse.Namespace) -> int:
    """Upload an export folder to a Hub dataset repo in one commit."""
    from blm_datasets.publish import publish

    info = publish(args.folder, args.repo, private=args.private, commit_message=args.message, token=args.token)
    print(f"published {args.folder} to https://huggingface.co/datasets/{args.repo}"
          + (f" ({getattr(info, 'commit_url', '')})" if getattr(info, "commit_url", None) else ""))
    return 0


def register(sub) -> None:
    """Add the publishing subcommands to the ``blm`` parser."""
    from blm_datasets.export import default_num_proc

    p = sub.add_parser("export", help="write configs as parquet files plus a dataset card (README.md)")
    p.add_argument("names", nargs="*", help="config names (see `blm list`)")
    p.add_argument("--all", action="store_true", help="every registered config")
    p.add_argument("--phenomenon", help="every config of this phenomenon")
    p.add_argument("--out", required=True, help="folder to write (empty, new, or a previous export)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--size", type=int, help="instances per config (train + test); default: the paper's")
    p.add_argument("--split-mode", "--split", dest="split_mode", choices=("lemma", "random"), default="lemma",
                   help="lemma: test lemmas never occur in train (default); random: instance split")
    p.add_argument("--test-size", type=float, help="share of lemmas (or instances) in test")
    p.add_argument("--sources", nargs="+", help="input files of corpus-based configs (CoNLL-U …); with --all, "
                   "configs whose files are missing are skipped and listed")
    p.add_argument("--num-proc", type=int, default=default_num_proc(),
                   help="processes (one config each); default: the CPUs available")
    p.add_argument("--default", help="the config load_dataset picks without a name (default: agr_en_typeI)")
    p.add_argument("--license", default="apache-2.0", help="Hub licence id written into the card")
    p.add_argument("--no-audit", action="store_true", help="skip the answer-only audit column of the card")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--format", choices=("hub", "calamita"), default="hub",
                   help="hub: parquet folder + dataset card; calamita: one config as CALAMITA JSON (--out FILE.json)")
    p.add_argument("--calamita-split", default="test", help="with --format calamita: the split to write")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("publish", help="upload an export folder to a Hugging Face dataset repo (one commit)")
    p.add_argument("folder", help="a folder written by `blm export`")
    p.add_argument("--repo", required=True, help="ORG/NAME of the dataset repo (created if missing)")
    p.add_argument("--private", action="store_true", help="create the repo private")
    p.add_argument("--message", help="commit message")
    p.add_argument("--token", help="Hub token (default: the logged-in one or HF_TOKEN)")
    p.set_defaults(func=cmd_publish)
