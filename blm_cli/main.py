"""The ``blm`` command: the parser, its subcommands and the one error wrapper.

Every expected error ends in one line ``blm <cmd>: error: <what>, <where>; <what to do>`` and exit
status 2 (``BLM_DEBUG=1`` adds the traceback); Ctrl-C ends with one line and status 130.
"""

from __future__ import annotations

import argparse
import re
import sys
import traceback

from blm_cli.errors import debug, expected_message

FLAG = re.compile(r"^(--[A-Za-z0-9][A-Za-z0-9_-]*)(?==|$)")


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit 2) that point at ``--help``."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}; see `{self.prog} --help`\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``blm`` parser with every subcommand."""
    # the command modules load datasets and torch: imported here, inside main's handling of Ctrl-C, after the
    # check that the installed Hugging Face libraries are ones the toolkit supports (else one line, exit 2)
    from builders.library_versions import check_supported

    check_supported()
    from blm_cli import augment_cmds, data_cmds, eval_cmds, export_cmds, import_cmds
    from blm_eval import browse

    parser = Parser(prog="blm", description="Blackbird Language Matrices toolkit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    data_cmds.register(sub)
    export_cmds.register(sub)
    eval_cmds.register(sub)
    augment_cmds.register(sub)
    import_cmds.register(sub)
    browse.register(sub)
    return parser


def dash_flags(argv: list[str]) -> list[str]:
    """`--num_proc 2` as `--num-proc 2`: every flag is accepted in train.py's spelling too (values, and whatever
    follows a bare `--`, are kept as they are)."""
    out = list(argv)
    for i, arg in enumerate(out):
        if arg == "--":
            break
        out[i] = FLAG.sub(lambda m: m.group(1).replace("_", "-"), arg)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run one ``blm`` command; returns its exit status."""
    prog, target = "blm", None
    try:
        args = build_parser().parse_args(dash_flags(sys.argv[1:] if argv is None else argv))
        prog = f"blm {args.command}"
        target = next((str(getattr(args, k)) for k in ("out", "output_dir", "lexicon") if getattr(args, k, None)), None)
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        if debug():
            traceback.print_exc()
        print(f"\n{prog}: interrupted; finished outputs are complete, rerun the command to go on", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `blm list | head`: the reader left, nothing to say
        sys.stderr.close()
        return 141
    except Exception as err:  # noqa: BLE001 - expected errors become one line, bugs keep their traceback
        message = expected_message(err, target)
        if message is None:
            raise
        if debug():
            traceback.print_exc()
        print(f"{prog}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
