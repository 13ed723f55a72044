"""The ``blm`` command: the parser, its subcommands and the one error wrapper.

Every expected error ends in one line ``blm <cmd>: error: <what>, <where>; <what to do>`` and exit
status 2 (``BLM_DEBUG=1`` adds the traceback); Ctrl-C ends with one line and status 130.
"""

from __future__ import annotations

import argparse
import sys
import traceback

from blm_cli.errors import debug, expected_message


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

    parser = Parser(prog="blm", description="Blackbird Language Matrices toolkit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    data_cmds.register(sub)
    export_cmds.register(sub)
    eval_cmds.register(sub)
    augment_cmds.register(sub)
    import_cmds.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one ``blm`` command; returns its exit status."""
    prog = "blm"
    try:
        args = build_parser().parse_args(argv)
        prog = f"blm {args.command}"
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
        message = expected_message(err)
        if message is None:
            raise
        if debug():
            traceback.print_exc()
        print(f"{prog}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
