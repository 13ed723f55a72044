"""`--out` folders of `blm grid` and `blm reproduce`: nothing in them is replaced without `--overwrite`, and a
resumed `blm reproduce` continues only the run that the folder holds.

Each folder gets `.blm-out.json`: the command that wrote it and the identity of what it computes (settings
that change results and a digest of the code). A folder without it that holds files is someone else's; one that
holds another command's results, or a run with another identity, is refused in one line naming the
differences, unless `--overwrite`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from builders.atomic import atomic_write_text
from builders.errors import InputError

MARKER = ".blm-out.json"


def _differences(saved: Mapping, current: Mapping) -> list[str]:
    return [f"{key} {saved[key]!r} -> {current[key]!r}" for key in sorted(saved.keys() & current.keys())
            if saved[key] != current[key]]


def check_out(out: str | Path, command: str, identity: Mapping, overwrite: bool, resumable: bool) -> None:
    """A ValueError when writing `command`'s results into `out` would replace what is there: files not written by
    `command` (or, when not `resumable`, any earlier results), or a run whose identity differs."""
    out = Path(out)
    if overwrite or not out.is_dir() or not any(out.iterdir()):
        return
    how = "pass --overwrite to replace them, or choose a new --out"
    try:
        marker = json.loads((out / MARKER).read_text(encoding="utf-8"))
    except FileNotFoundError:
        shown = ", ".join(sorted(path.name for path in out.iterdir())[:4])
        raise InputError(f"--out {out} already holds files not written by blm {command} ({shown}); {how}") from None
    except (OSError, ValueError) as error:
        raise InputError(f"--out {out}: {MARKER} is unreadable ({error}); {how}") from None
    if marker.get("command") != command:
        raise InputError(f"--out {out} holds the results of blm {marker.get('command')}; {how}")
    if not resumable:
        raise InputError(f"--out {out} holds the results of an earlier blm {command}; {how}")
    found = _differences(marker.get("identity", {}), identity)
    if found:
        raise InputError(f"--out {out} holds a blm {command} run with other settings ({'; '.join(found)}): "
                         f"continuing it would mix two runs; {how}")


def mark_out(out: str | Path, command: str, identity: Mapping) -> Path:
    """Record in `out` which command writes it and what it computes."""
    Path(out).mkdir(parents=True, exist_ok=True)
    return atomic_write_text(Path(out) / MARKER, json.dumps({"command": command, "identity": dict(identity)},
                                                            indent=1, sort_keys=True, default=str) + "\n")
