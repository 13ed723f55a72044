"""``blm import``: the BLM files the original authors released, as an export folder every command reads."""

from __future__ import annotations

import argparse
import shlex

from blm_cli.args import check_out_folder, fraction
from blm_datasets.importer import DEFAULT_LICENSE, ImportOptions, import_release
from builders.errors import InputError

DESCRIPTION = """\
Read the BLM files the authors released (tab-separated "4dev" files, early BLM-AgrF CSVs, CALAMITA
JSON, and the release's datasets/<split>/sentences folders or split_info.json) into the `blm export`
layout: <config>/<split>-*.parquet plus a dataset card. Phenomenon, language, variant and lexical
type are inferred from the labels, the sentences and the paths (the flags override them); released
labels are mapped to the toolkit's (README: "Importing released BLM files"). Each file's defects
are reported with counts, on the console and in the card. Agreement labels are read from the
candidates' content (numbers of subject, attractors and verb); where a released name disagrees,
the content's label is used and reported. Without --repair the rows are kept as released; an
unusable row (no gold, two golds, missing cells) keeps its file out of the import, reported with
its file, line and the flag that helps. A file that cannot be imported never stops the others;
files holding the same data as another are imported once. The folder then loads with
`datasets.load_dataset(DIR, NAME)`, train.py --dataset_path DIR, and `blm validate|audit|show|grid
--dataset DIR`.

Exit status: 0 every release file imported; 1 some files were not imported (the others were
written, and the report lists each one with the reason); 2 nothing imported or a bad flag."""


def cmd_import(args: argparse.Namespace) -> int:
    """Import release files into --out (or only report them with --dry-run)."""
    if not args.out and not args.dry_run:
        raise InputError("give --out DIR (the folder to write), or --dry-run to report the files without writing")
    if args.out and not args.dry_run:
        check_out_folder(args.out)  # a file in the way fails before the files are read
    opts = ImportOptions(phenomenon=args.phenomenon, language=args.language, variant=args.variant,
                         lexical_type=args.lexical_type, template=args.template, split=args.split,
                         test_size=args.test_size, seed=args.seed, repair=args.repair, labels=tuple(args.label or ()),
                         encoding=args.encoding)
    result, _ = import_release(args.sources, None if args.dry_run else args.out, opts, overwrite=args.overwrite,
                               license_id=args.license, default=args.default, command=_command(args))
    return 1 if result.failed else 0


def _command(args: argparse.Namespace) -> str:
    """The command line the card prints to reproduce the folder (file names only, --out DIR)."""
    from pathlib import Path

    parts = ["blm", "import", *[Path(s).name for s in args.sources], "--out", "DIR"]
    for flag in ("phenomenon", "language", "variant", "lexical_type", "template", "encoding"):
        value = getattr(args, flag)
        if value is not None and not (flag == "encoding" and value == "utf-8"):
            parts += [f"--{flag.replace('_', '-')}", value]
    if args.split != "auto":
        parts += ["--split", args.split]
    if args.test_size != 0.1:
        parts += ["--test-size", str(args.test_size)]
    if args.seed != 42:
        parts += ["--seed", str(args.seed)]
    if args.repair:
        parts.append("--repair")
    for label in args.label or ():
        parts += ["--label", label]
    return shlex.join(parts)


def register(sub) -> None:
    """Add import to the ``blm`` parser."""
    p = sub.add_parser("import", help="read the BLM files the authors released into an export folder",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sources", nargs="+", metavar="SRC", help="release files, or folders holding them")
    p.add_argument("--out", help="folder to write: new, empty, or a previous import of the same files "
                                 "(see --overwrite)")
    p.add_argument("--dry-run", action="store_true", help="read and report the files; write nothing")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an export or import already in --out that was made from other files or options")
    p.add_argument("--repair", action="store_true",
                   help="remove repeated candidates and instances, shuffle the candidates (seeded) so the gold "
                        "position is uniform, drop unusable rows; every change is counted in the report")
    p.add_argument("--phenomenon", help="override the inferred phenomenon (agr, cos, od, sprayload, …)")
    p.add_argument("--language", help="override the inferred language (en, fr, it, ro, de-case, …)")
    p.add_argument("--variant", help="override the inferred template variant (altatl, atlalt, t2i, i2t, natural, …)")
    p.add_argument("--lexical-type", choices=("I", "II", "III"), help="override the inferred lexical type")
    p.add_argument("--template", help="the template column for every row (default: agreement clause type from the "
                                      "patterns, the file name or the sentences; else the variant)")
    p.add_argument("--split", choices=("auto", "release", "random"), default="auto",
                   help="auto: the release's split where it has one, else random (default); release: require the "
                        "release's split; random: a seeded split by instance, ignoring the release's")
    p.add_argument("--test-size", type=fraction, default=0.1,
                   help="share of instances in test for a random split (default 0.1, the papers' 90:10)")
    p.add_argument("--seed", type=int, default=42, help="seed of the random split and of --repair's shuffle")
    p.add_argument("--label", action="append", metavar="NAME=LABEL:CLASS",
                   help="map a released label the table lacks, e.g. --label 'mis_num=WNA:SEQUENCE' (repeatable)")
    p.add_argument("--encoding", default="utf-8", help="text encoding of the files (default utf-8; a BOM is fine)")
    p.add_argument("--license", default=DEFAULT_LICENSE,
                   help="Hub licence id for the card: the release's (BLM-It: cc-by-nc-sa-4.0); default unknown")
    p.add_argument("--default", help="the config load_dataset picks without a name (default: the first)")
    p.set_defaults(func=cmd_import)
