"""An export folder written atomically: staging folders, rename into place, manifest and card after each config.

Layout: ``<config>/<split>-NNNNN-of-NNNNN.parquet``, ``README.md`` (the card, whose ``configs:``
header lists exactly the complete configs) and ``.blm_export.json`` (the manifest: the generation
options and each complete config's summary). Work in progress lives in hidden ``.blm-tmp-*`` folders
that neither datasets nor ``blm publish`` read; a replaced config waits in ``.blm-old-*`` until its
successor is recorded. Opening a folder again cleans what a killed run left and restores a config
that was caught between two renames, so every config on disk is complete (old or new).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from builders.atomic import atomic_write_text, umask_mode
from builders.errors import InputError
from hub_cards.sections import BEGIN

MANIFEST = ".blm_export.json"
CARD = "README.md"
TMP_PREFIX = ".blm-tmp-"
OLD_PREFIX = ".blm-old-"
FORMAT = "blm-export/1"
# Options that make two exports "the same request"; the code digest may differ (a rerun regenerates).
SAME_REQUEST_KEYS = ("seed", "size", "split_mode", "test_size", "sources_digest")


class ExportFolderError(InputError):
    """``--out`` cannot hold this export; the message says why and what to do."""


def ensure_out_folder(path: str | Path, flag: str = "--out") -> Path:
    """Create ``path`` (and parents) as a writable folder; a file in the way or no permission: a clear error."""
    path = Path(path).expanduser()
    if path.exists() and not path.is_dir():
        raise ExportFolderError(f"{flag} {path} is a file, not a folder; give a new or empty folder")
    blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise ExportFolderError(f"{flag} {path}: {blocker} is a file, not a folder; choose another {flag}")
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".blm-probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except PermissionError as err:
        raise ExportFolderError(f"{flag} {path} is not writable ({err.strerror}: {err.filename or path}); "
                                "choose a folder you can write to") from err
    except OSError as err:
        why = errno.errorcode.get(err.errno or 0, "")
        raise ExportFolderError(f"{flag} {path} cannot be created or written ({err.strerror or why}); "
                                "choose another folder") from err
    return path


def check_out_file(path: str | Path, flag: str = "--out", overwrite: bool = False) -> Path:
    """An output file path: not a folder, its folder creatable, an existing file only with ``overwrite``."""
    path = Path(path).expanduser()
    if path.is_dir():
        raise ExportFolderError(f"{flag} {path} is a folder; give a file name (e.g. {path / 'out.json'})")
    if path.exists() and not overwrite:
        raise ExportFolderError(f"{flag} {path} exists; pass --overwrite to replace it, or choose another file")
    blocker = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise ExportFolderError(f"{flag} {path}: {blocker} is a file, not a folder; choose another {flag}")
    return path


def staging_folder(out: Path, name: str) -> Path:
    """A fresh hidden folder in ``out`` for one config's files (named with the writing process's pid)."""
    path = Path(out) / f"{TMP_PREFIX}{name}-{os.getpid()}"
    if path.exists():
        shutil.rmtree(path)
    path.mkdir()
    os.chmod(path, umask_mode(0o777))  # renamed into place as the config's folder: readable as the umask says
    return path


def replace_folder(staged: Path, target: Path) -> None:
    """Move a complete ``staged`` folder to ``target``, replacing what was there only once the new one is in place.

    Between the two renames ``target`` is briefly absent; ``ExportFolder.open`` puts the old one back if a
    run dies right there.
    """
    old = None
    if target.exists():
        old = target.parent / f"{OLD_PREFIX}{target.name}-{os.getpid()}"
        os.replace(target, old)
    os.replace(staged, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def is_shard_folder(folder: Path) -> bool:
    """A folder holding only parquet shards (a config folder this toolkit wrote)."""
    files = list(folder.iterdir())
    return bool(files) and all(p.is_file() and p.suffix == ".parquet" for p in files)


def legacy_export(folder: Path) -> bool:
    """A folder written by a `blm export` from before manifests (card with the generated summary)."""
    card = folder / CARD
    return card.is_file() and BEGIN.format("summary") in card.read_text(encoding="utf-8", errors="replace")


class ExportFolder:
    """The folder one export writes; ``open`` checks and recovers it, ``commit`` adds one finished config."""

    def __init__(self, out: str | Path, generation: dict[str, Any], names: list[str], *, overwrite: bool = False,
                 write_card: Callable[[Path, dict[str, dict]], str] | None = None) -> None:
        self.out = Path(out)
        self.generation = generation
        self.names = names
        self.overwrite = overwrite
        self.write_card = write_card
        self.manifest: dict[str, Any] = {"format": FORMAT, "generation": generation, "configs": {}, "skipped": {}}

    # ------------------------------------------------------------------------------------ opening
    def open(self) -> dict[str, dict]:
        """Check ``out`` may take this export, clean leftovers; return the summaries already done (resume)."""
        out = ensure_out_folder(self.out)
        manifest_path = out / MANIFEST
        entries = [p for p in out.iterdir() if not p.name.startswith(".")]
        if manifest_path.is_file():
            previous = self._read_manifest(manifest_path)
        elif entries and legacy_export(out):
            if not self.overwrite:
                raise ExportFolderError(f"--out {out} holds a `blm export` from an older toolkit (no {MANIFEST}); "
                                        "pass --overwrite to replace it, or choose another --out")
            previous = None
        elif entries:
            raise ExportFolderError(f"--out {out} is not empty and holds no previous `blm export`; "
                                    "choose an empty or new folder")
        else:
            previous = None
        self._recover()
        done: dict[str, dict] = {}
        if previous is not None:
            done = self._resumable(previous)
        self.manifest["configs"] = {n: s for n, s in done.items()}
        if previous is not None:  # configs of the old export stay listed until replaced or dropped at the end
            for name, entry in previous["configs"].items():
                if name not in done and (out / name).is_dir():
                    self.manifest["configs"].setdefault(name, {**entry, "stale": True})
        self._write_manifest()
        return {n: e["summary"] for n, e in done.items()}

    def _read_manifest(self, path: Path) -> dict[str, Any]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != FORMAT or not isinstance(data.get("configs"), dict):
                raise InputError(f"format {data.get('format')!r}")
        except (ValueError, OSError) as err:
            if not self.overwrite:
                raise ExportFolderError(f"{path} is damaged ({err}); pass --overwrite to replace the export "
                                        f"in {self.out}, or choose another --out") from err
            return {"format": FORMAT, "generation": {}, "configs": {}, "skipped": {}}
        return data

    def _resumable(self, previous: dict[str, Any]) -> dict[str, dict]:
        """Configs of ``previous`` to keep; refuse (without --overwrite) another request or dropped configs."""
        old_gen = previous.get("generation") or {}
        same = all(old_gen.get(k) == self.generation.get(k) for k in SAME_REQUEST_KEYS)
        old_names = [n for n, e in previous["configs"].items() if not e.get("stale")]
        dropped = [n for n in old_names if n not in self.names]
        if not self.overwrite and not same:
            diff = ", ".join(f"{k} {old_gen.get(k)!r} (now {self.generation.get(k)!r})" for k in SAME_REQUEST_KEYS
                             if old_gen.get(k) != self.generation.get(k))
            made = "`blm import` of other files or" if "import" in old_gen else "`blm export` made"
            raise ExportFolderError(f"--out {self.out} holds a {made} with other options: {diff}; "
                                    "pass --overwrite to replace it, or choose another --out")
        if not self.overwrite and dropped:
            raise ExportFolderError(f"--out {self.out} holds an export or import with configs this one leaves out "
                                    f"({', '.join(dropped)}); name them too, pass --overwrite to replace the "
                                    "export, or choose another --out")
        return {n: e for n, e in previous["configs"].items()
                if n in self.names and not e.get("stale") and e.get("generation") == self.generation
                and (self.out / n).is_dir()}

    def _recover(self) -> None:
        """Remove staging folders of killed runs; put back a config caught between its two renames."""
        for path in sorted(self.out.iterdir()):
            if path.name.startswith(TMP_PREFIX):
                shutil.rmtree(path, ignore_errors=True)
            elif path.name.startswith(OLD_PREFIX):
                name = path.name[len(OLD_PREFIX):].rsplit("-", 1)[0]
                if not (self.out / name).exists():
                    os.replace(path, self.out / name)
                else:
                    shutil.rmtree(path, ignore_errors=True)

    # ------------------------------------------------------------------------------------ writing
    def in_progress(self) -> dict[int, str]:
        """{writer pid: config(s)} of the staging folders there (being written, or left by a dead worker)."""
        found: dict[int, list[str]] = {}
        for path in sorted(self.out.glob(TMP_PREFIX + "*")):
            name, _, pid = path.name[len(TMP_PREFIX):].rpartition("-")
            found.setdefault(int(pid) if pid.isdigit() else -1, []).append(name)
        return {pid: ", ".join(names) for pid, names in found.items()}

    def discard_staging(self) -> None:
        for path in self.out.glob(TMP_PREFIX + "*"):
            shutil.rmtree(path, ignore_errors=True)

    def commit(self, name: str, staged: Path, summary: dict[str, Any]) -> None:
        """Move a complete config into place, then record it in the manifest and the card."""
        target = self.out / name
        old = None
        if target.exists():
            old = self.out / f"{OLD_PREFIX}{name}-{os.getpid()}"
            os.replace(target, old)
        os.replace(staged, target)
        self.manifest["configs"][name] = {"generation": self.generation, "summary": summary}
        self.manifest["skipped"].pop(name, None)
        self._publish_state()
        if old is not None:  # removed only once the card lists the new config
            shutil.rmtree(old, ignore_errors=True)

    def skip(self, name: str, reason: str) -> None:
        self.manifest["skipped"][name] = reason
        self._write_manifest()

    def finish(self) -> list[Path]:
        """Drop configs of the old export that this one does not have; return the files written."""
        for name in [n for n in self.manifest["configs"] if n not in self.names]:
            del self.manifest["configs"][name]
            self._publish_state()
            if (self.out / name).is_dir():
                shutil.rmtree(self.out / name)
        for entry in self.out.iterdir():  # unrecorded config folders of a killed run
            if entry.is_dir() and not entry.name.startswith(".") and entry.name not in self.manifest["configs"] \
                    and is_shard_folder(entry):
                shutil.rmtree(entry)
        self._publish_state()
        return sorted(p for p in self.out.rglob("*") if p.is_file()
                      and not any(part.startswith(".") for part in p.relative_to(self.out).parts))

    def complete(self) -> list[str]:
        """Configs recorded complete, in the planned order first."""
        names = list(self.manifest["configs"])
        return [n for n in self.names if n in names] + [n for n in names if n not in self.names]

    def _publish_state(self) -> None:
        self._write_manifest()
        if self.write_card is not None and self.manifest["configs"]:
            summaries = {n: self.manifest["configs"][n]["summary"] for n in self.complete()}
            atomic_write_text(self.out / CARD, self.write_card(self.out, summaries))

    def _write_manifest(self) -> None:
        atomic_write_text(self.out / MANIFEST, json.dumps(self.manifest, indent=1, ensure_ascii=False) + "\n")
