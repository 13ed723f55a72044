"""Argument types and checks shared by the ``blm`` subcommands (each message quotes what was asked)."""

from __future__ import annotations

import argparse
import difflib
import os
from pathlib import Path

from blm_datasets.export_folder import ExportFolderError
from builders import registry
from builders.errors import InputError


def int_at_least(minimum: int, why: str = ""):
    """An argparse type: an integer >= ``minimum``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}{why}, got {value}")
        return value
    return parse


def fraction(text: str) -> float:
    """An argparse type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be a fraction between 0 and 1 (exclusive), got {text}")
    return value


size_type = int_at_least(2, " (one train and one test instance)")
num_proc_type = int_at_least(1)


def phenomenon(text: str) -> str:
    """An argparse type: a registered phenomenon; a typo gets the close matches."""
    known = registry.available()
    if text in known:
        return text
    close = [p for p in known if text.startswith(p) or p.startswith(text)]
    close += [p for p in difflib.get_close_matches(text, known, n=3, cutoff=0.5) if p not in close]
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    raise argparse.ArgumentTypeError(f"unknown phenomenon {text!r}; {hint}known: {', '.join(known)}")


def configs_of(phenomenon_name: str | None) -> list[str]:
    """Every registered config, or those of one phenomenon."""
    return [s.name for s in registry.all_specs() if phenomenon_name is None or s.phenomenon == phenomenon_name]


def add_generation_args(p: argparse.ArgumentParser, names: bool = True, split_flags: tuple[str, ...] = ("--split",),
                        num_proc: int = 1, num_proc_help: str = "processes for generation (at least 1)") -> None:
    """Config selection and generation options (generate, validate, audit, show, export)."""
    if names:
        p.add_argument("names", nargs="*", help="config names (see `blm list`)")
        p.add_argument("--all", action="store_true", help="every registered config")
        p.add_argument("--phenomenon", type=phenomenon, help="every config of this phenomenon (implies --all)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--size", type=size_type, help="instances per config (train + test, at least 2); "
                   "default: the paper's")
    p.add_argument(*split_flags, dest="split", choices=("lemma", "random"),
                   help="lemma: test lemmas never occur in train (default); random: instance split")
    p.add_argument("--test-size", type=fraction, help="share of lemmas (or instances) in test, in (0, 1)")
    p.add_argument("--num-proc", type=num_proc_type, default=num_proc, help=num_proc_help)
    p.add_argument("--sources", nargs="+", help="input files of corpus-based configs (CoNLL-U …)")


def add_source_args(p: argparse.ArgumentParser) -> None:
    """Where data comes from for the commands that read it (validate, audit, show)."""
    p.add_argument("--dataset", metavar="FOLDER|REPO",
                   help="read the configs from a `blm export` folder, a save_to_disk folder, a `blm generate "
                        "--out` folder or a Hub dataset repo instead of generating them")
    p.add_argument("--cache-dir", help="datasets cache for generated configs (default: HF_DATASETS_CACHE)")


def select_names(args: argparse.Namespace) -> list[str]:
    """Config names from NAME… or --all/--phenomenon (not both); unknown names fail with close matches."""
    whole = args.all or args.phenomenon
    if args.names and whole:
        raise InputError("give config names, or --all / --phenomenon, not both")
    if whole:
        return configs_of(args.phenomenon)
    if not args.names:
        raise InputError("name at least one config, or pass --all or --phenomenon (see `blm list`)")
    for name in args.names:
        registry.get_spec(name)
    return list(dict.fromkeys(args.names))


def check_source_files(paths: list[str] | None) -> tuple[str, ...] | None:
    """--sources: each an existing, readable UTF-8 file (the message names the file and the line)."""
    if not paths:
        return None
    for text in paths:
        path = Path(text).expanduser()
        if not path.exists():
            raise InputError(f"--sources {text}: no such file; give the CoNLL-U files to read")
        if path.is_dir():
            raise InputError(f"--sources {text} is a folder; give the CoNLL-U files in it (e.g. {text}/*.conllu)")
        blank = True
        with open(path, "rb") as handle:
            for number, line in enumerate(handle, 1):
                try:
                    blank &= not line.decode("utf-8").strip()
                except UnicodeDecodeError as err:
                    raise InputError(f"--sources {text}:{number}: not UTF-8 text ({err.reason} at column "
                                     f"{err.start + 1}); convert the file to UTF-8") from None
        if blank:
            raise InputError(f"--sources {text} is empty; give the CoNLL-U files with the sentences to read")
    return tuple(paths)


def check_out_folder(path: str, flag: str = "--out") -> Path:
    """An output folder that can be created later: not a file, no file among its parents."""
    out = Path(path).expanduser()
    if out.exists() and not out.is_dir():
        raise ExportFolderError(f"{flag} {path} is a file, not a folder; choose a folder")
    blocker = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise ExportFolderError(f"{flag} {path}: {blocker} is a file, not a folder; choose another {flag}")
    # the folder, or the nearest one that exists to create it in, must be writable (a read-only mount, no
    # permission): said before the command's work, not after it
    existing = next(p for p in (out, *out.absolute().parents) if p.exists())
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ExportFolderError(f"{flag} {path}: {existing} is not writable (read-only or no permission); choose a "
                                "folder you can write to")
    return out
