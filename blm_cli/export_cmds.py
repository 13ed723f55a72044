"""``blm export``, ``blm publish`` and ``blm push-model``: a Hub dataset folder written atomically, its upload, and
the upload of a trained checkpoint."""

from __future__ import annotations

import argparse

from blm_cli.args import add_generation_args, check_source_files, select_names
from blm_datasets.calamita import write_calamita
from blm_datasets.export import default_num_proc, export
from blm_datasets.export_folder import check_out_file
from blm_datasets.publish import publish
from builders import registry
from builders.generate import Options, generate

OVERWRITE_HELP = ("replace an existing different export in --out (other options, or configs this export leaves "
                  "out); with --format calamita, replace the JSON file. Without it, --out must be new, empty, or "
                  "an export of the same request, whose complete configs are kept (a rerun finishes a killed "
                  "export). A folder holding anything else is never touched.")


def cmd_export(args: argparse.Namespace) -> int:
    """Export configs as parquet + dataset card into --out."""
    names = select_names(args)
    sources = check_source_files(args.sources)
    opts = Options(seed=args.seed, size=args.size, split=args.split or "lemma", test_size=args.test_size,
                   sources=sources)
    if args.format == "calamita":
        return _export_calamita(names, args, opts)
    export(names, args.out, opts, num_proc=args.num_proc, audit=not args.no_audit, default=args.default,
           license_id=args.license, skip_unavailable=not args.names, progress=not args.quiet,
           overwrite=args.overwrite)
    return 0


def _export_calamita(names: list[str], args: argparse.Namespace, opts) -> int:
    """One config's split as the CALAMITA challenge JSON (BLM-It Figs. 7, 10)."""
    if len(names) != 1:
        raise ValueError("--format calamita writes one config to one JSON file: name exactly one config")
    out = check_out_file(args.out, overwrite=args.overwrite)
    splits = generate(registry.get_spec(names[0]), opts, num_proc=args.num_proc, progress=not args.quiet)
    if args.calamita_split not in splits or not splits[args.calamita_split].records:
        raise ValueError(f"{names[0]} has no {args.calamita_split!r} split to export; "
                         f"it has: {', '.join(s for s in splits if splits[s].records)}")
    records = splits[args.calamita_split].records
    n = write_calamita(records, out, name=names[0])
    print(f"{names[0]} {args.calamita_split}: {n} items written to {out}")
    return 0


def cmd_publish(args: argparse.Namespace) -> int:
    """Upload an export folder to a Hub dataset repo in one commit."""
    info = publish(args.folder, args.repo, private=args.private, commit_message=args.message, token=args.token)
    print(f"published {args.folder} to https://huggingface.co/datasets/{args.repo}"
          + (f" ({getattr(info, 'commit_url', '')})" if getattr(info, "commit_url", None) else ""))
    return 0


def cmd_push_model(args: argparse.Namespace) -> int:
    """Upload a trained checkpoint (card, config, code, weights, tokenizer) to a Hub model repo in one commit."""
    from blm_models.push import push_checkpoint

    if args.repo.count("/") != 1 or not all(args.repo.split("/")):
        raise ValueError(f"--repo must be ORG/NAME, got {args.repo!r}")
    info = push_checkpoint(args.folder, args.repo, private=args.private, commit_message=args.message, token=args.token)
    print(f"pushed {args.folder} to https://huggingface.co/{args.repo}"
          + (f" ({getattr(info, 'commit_url', '')})" if getattr(info, "commit_url", None) else ""))
    return 0


def register(sub) -> None:
    """Add export and publish to the ``blm`` parser."""
    p = sub.add_parser("export", help="write configs as parquet files plus a dataset card (README.md)",
                       description="Write configs as a script-free Hub dataset folder: <config>/<split>-*.parquet "
                                   "plus README.md. Each config is written to a hidden staging folder and "
                                   "renamed into place, and the card is rewritten after each one, so a killed "
                                   "export leaves only complete configs; rerun the same command to finish it.")
    add_generation_args(p, split_flags=("--split-mode", "--split"), num_proc=default_num_proc(),
                        num_proc_help="processes (one config each, at least 1); default: the CPUs available")
    p.add_argument("--out", required=True, help="folder to write: new, empty, or a previous export (see --overwrite)")
    p.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    p.add_argument("--default", help="the config load_dataset picks without a name (default: agr_en_typeI)")
    p.add_argument("--license", help="Hub licence id of the generated configs (default: apache-2.0) and of --sources "
                                     "files of no corpus the toolkit knows; configs derived from a known corpus keep "
                                     "its licence (builders/licences.yaml)")
    p.add_argument("--no-audit", action="store_true", help="skip the answer-only audit column of the card")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--format", choices=("hub", "calamita"), default="hub",
                   help="hub: parquet folder + dataset card; calamita: one config as CALAMITA JSON (--out FILE.json)")
    p.add_argument("--calamita-split", default="test", help="with --format calamita: the split to write")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("publish", help="upload an export folder to a Hugging Face dataset repo (one commit)")
    _upload_flags(p, "a folder written by `blm export`", "dataset")
    p.set_defaults(func=cmd_publish)

    p = sub.add_parser("push-model", help="upload a trained checkpoint to a Hugging Face model repo (one commit)",
                       description="Upload a checkpoint folder (train.py --output_dir or save_pretrained): the model "
                                   "card, config (without local paths), the model's code for trust_remote_code, the "
                                   "weights and the tokenizer. metrics.json, checkpoint-* folders and optimizer "
                                   "state stay local.")
    _upload_flags(p, "a checkpoint folder (config.json, model.safetensors, the model code)", "model")
    p.set_defaults(func=cmd_push_model)


def _upload_flags(p, folder_help: str, kind: str) -> None:
    """The folder and Hub flags `blm publish` and `blm push-model` share."""
    p.add_argument("folder", help=folder_help)
    p.add_argument("--repo", required=True, help=f"ORG/NAME of the {kind} repo (created if missing)")
    p.add_argument("--private", action="store_true", help="create the repo private")
    p.add_argument("--message", help="commit message")
    p.add_argument("--token", help="Hub token (default: the logged-in one or HF_TOKEN)")
