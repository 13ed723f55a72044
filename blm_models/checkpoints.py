"""Checkpoints that resume exactly or not at all.

Each checkpoint folder gets a `SHA256SUMS` file (the format `sha256sum -c` reads) once everything in it is
written. Before resuming, a checkpoint is checked: complete (weights, optimizer, scheduler, trainer_state.json,
RNG state of every process) and, when it has SHA256SUMS, unchanged. With `--resume_from_checkpoint` alone
(`last`), an incomplete or corrupt newest checkpoint is skipped with one line and the newest good one is used;
a checkpoint named explicitly must be good. A checkpoint without optimizer state is an error unless
`--reset_optimizer_state` accepts a fresh optimizer. Checkpoints from before SHA256SUMS existed are checked
for structure (readable JSON, safetensors header, zip CRCs of the .pt files) and used with a note.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from builders.atomic import atomic_write_text

from .errors import CheckpointError, UsageError
from .run_identity import model_fields

logger = logging.getLogger(__name__)

CHECKSUM_FILE = "SHA256SUMS"
TRAINER_STATE = "trainer_state.json"
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json")
OPTIMIZER_FILES = ("optimizer.pt", "scheduler.pt")
CHECKPOINT_NAME = re.compile(r"^checkpoint-(\d+)$")


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file, read in 4 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def write_checksums(folder: str | os.PathLike) -> Path:
    """Write `folder/SHA256SUMS` over every file in the folder (atomically: temp file, then rename)."""
    folder = Path(folder)
    lines = [f"{sha256_of(path)}  {path.relative_to(folder).as_posix()}\n"
             for path in sorted(folder.rglob("*")) if path.is_file() and path.name != CHECKSUM_FILE
             and not path.name.endswith(".tmp")]
    return atomic_write_text(folder / CHECKSUM_FILE, "".join(lines))


def read_checksums(folder: Path) -> dict[str, str] | None:
    """{file: sha256} from folder/SHA256SUMS; None when there is none; ValueError when it is malformed."""
    path = folder / CHECKSUM_FILE
    if not path.is_file():
        return None
    sums = {}
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        match = re.fullmatch(r"([0-9a-f]{64}) [ *](.+)", line.strip())
        if not match:
            raise UsageError(f"{CHECKSUM_FILE}:{number} is not '<sha256>  <file>'")
        sums[match.group(2)] = match.group(1)
    return sums


@dataclass(frozen=True)
class Verdict:
    """What a checkpoint folder is good for: kind 'ok', 'incomplete', 'corrupt', 'no_optimizer' or 'mismatch'."""

    path: Path
    kind: str
    problem: str = ""
    verified: bool = False

    @property
    def usable(self) -> bool:
        return self.kind == "ok"


def _rng_files(world_size: int) -> list[str]:
    return ["rng_state.pth"] if world_size <= 1 else [f"rng_state_{rank}.pth" for rank in range(world_size)]


def _verify_sums(folder: Path, sums: dict[str, str], reset_optimizer: bool) -> Verdict | None:
    """A 'corrupt' or 'no_optimizer' verdict when a file listed in SHA256SUMS is missing or changed."""
    missing_optimizer = []
    for name, expected in sums.items():
        if reset_optimizer and name in OPTIMIZER_FILES:
            continue
        path = folder / name
        if not path.is_file():
            if name in OPTIMIZER_FILES:
                missing_optimizer.append(name)
                continue
            return Verdict(folder, "corrupt", f"{name} is listed in {CHECKSUM_FILE} but missing")
        if sha256_of(path) != expected:
            return Verdict(folder, "corrupt", f"{name} does not match its checksum in {CHECKSUM_FILE} (changed or "
                                              "damaged after it was written)")
    if missing_optimizer:
        return Verdict(folder, "no_optimizer", f"{', '.join(missing_optimizer)} missing", verified=True)
    return None


def _structure_problem(folder: Path, world_size: int, reset_optimizer: bool, verified: bool) -> Verdict | None:
    """Missing or unreadable parts (the checks that also apply to checkpoints without SHA256SUMS)."""
    state = folder / TRAINER_STATE
    if not state.is_file():
        return Verdict(folder, "incomplete", f"no {TRAINER_STATE}, the file written last: the run was stopped "
                                             "while saving it")
    try:
        json.loads(state.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        kind = "corrupt" if verified else "incomplete"
        return Verdict(folder, kind, f"{TRAINER_STATE} is not valid JSON ({error})")
    weights = next((folder / name for name in WEIGHT_FILES if (folder / name).is_file()), None)
    if weights is None:
        return Verdict(folder, "corrupt", "no model weights (model.safetensors)")
    if not verified and weights.suffix == ".safetensors":
        from safetensors import safe_open

        try:
            with safe_open(str(weights), "pt") as handle:
                list(handle.keys())
        except Exception as error:  # safetensors raises its own error type for any damage to the header
            return Verdict(folder, "corrupt", f"{weights.name} is unreadable ({' '.join(str(error).split())})")
    if not reset_optimizer:
        missing = [name for name in OPTIMIZER_FILES if not (folder / name).is_file()]
        if missing:
            return Verdict(folder, "no_optimizer", f"{', '.join(missing)} missing", verified)
    rng = _rng_files(world_size)
    missing_rng = [name for name in rng if not (folder / name).is_file()]
    if missing_rng:
        written_by = sorted(p.name for p in folder.glob("rng_state*.pth"))
        if written_by:
            return Verdict(folder, "mismatch", f"it holds {', '.join(written_by)}, written by a run with another "
                                               f"number of processes than this one ({world_size})")
        return Verdict(folder, "corrupt", f"{missing_rng[0]} missing: the random state is lost")
    if not verified:
        torch_files = [*rng, *(() if reset_optimizer else OPTIMIZER_FILES)]
        for name in torch_files:
            try:
                with zipfile.ZipFile(folder / name) as archive:
                    bad = archive.testzip()
            except (zipfile.BadZipFile, OSError) as error:
                return Verdict(folder, "corrupt", f"{name} is unreadable ({error})")
            if bad is not None:
                return Verdict(folder, "corrupt", f"{name} is damaged (CRC error in {bad})")
    return None


def inspect_checkpoint(folder: str | os.PathLike, world_size: int = 1, reset_optimizer: bool = False) -> Verdict:
    """Whether `folder` can be resumed from exactly, and if not, why."""
    folder = Path(folder)
    if not folder.is_dir():
        return Verdict(folder, "missing", "no such folder")
    try:
        sums = read_checksums(folder)
    except ValueError as error:
        return Verdict(folder, "corrupt", str(error))
    if sums is not None:
        found = _verify_sums(folder, sums, reset_optimizer)
        if found is not None:
            return found
    found = _structure_problem(folder, world_size, reset_optimizer, verified=sums is not None)
    return found or Verdict(folder, "ok", verified=sums is not None)


def checkpoints_in(output_dir: str | os.PathLike) -> list[Path]:
    """checkpoint-N folders of a run, newest (highest N) first."""
    output_dir = Path(output_dir)
    if not output_dir.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in output_dir.iterdir() if p.is_dir() and (m := CHECKPOINT_NAME.match(p.name))]
    return [path for _, path in sorted(found, reverse=True)]


def _explain(verdict: Verdict, flag: str) -> str:
    """What to do about a checkpoint that cannot be resumed from."""
    where = f"{flag} {verdict.path}"
    if verdict.kind == "no_optimizer":
        return (f"{where}: no optimizer state ({verdict.problem}), so the run cannot continue exactly; pass "
                "--reset_optimizer_state to resume the weights with a fresh optimizer, or resume from another "
                "checkpoint")
    if verdict.kind == "mismatch":
        return f"{where}: {verdict.problem}; resume with the same number of processes"
    if verdict.kind == "missing":
        return (f"{where}: no such folder; give a checkpoint-N folder, or --resume_from_checkpoint alone for the "
                "last one")
    return (f"{where} is {verdict.kind}: {verdict.problem}. Resume from an earlier checkpoint "
            "(--resume_from_checkpoint alone takes the newest good one), or start afresh with --overwrite_output_dir")


def choose_checkpoint(output_dir: str | os.PathLike, request: str | None, world_size: int = 1,
                      reset_optimizer: bool = False) -> str | None:
    """The checkpoint to resume from for `request` (None, 'last' or a path), checked; a CheckpointError if none."""
    if request is None:
        return None
    flag = "--resume_from_checkpoint"
    if request != "last":
        verdict = inspect_checkpoint(request, world_size, reset_optimizer)
        if not verdict.usable:
            raise CheckpointError(_explain(verdict, flag))
        _note(verdict, reset_optimizer)
        return str(verdict.path)
    candidates = checkpoints_in(output_dir)
    if not candidates:
        raise CheckpointError(f"{flag}: no checkpoint-* folder in {output_dir}; drop the flag to start afresh, or "
                              "give a checkpoint path")
    skipped = []
    for folder in candidates:
        verdict = inspect_checkpoint(folder, world_size, reset_optimizer)
        if verdict.usable:
            _note(verdict, reset_optimizer)
            return str(folder)
        if verdict.kind in ("no_optimizer", "mismatch"):
            raise CheckpointError(_explain(verdict, flag))
        skipped.append(f"{folder.name} ({verdict.kind}: {verdict.problem})")
        logger.warning("skipping %s: %s (%s); trying the one before", folder, verdict.kind, verdict.problem)
    raise CheckpointError(f"{flag}: no usable checkpoint in {output_dir}: {'; '.join(skipped)}. Start afresh with "
                          "--overwrite_output_dir")


def _note(verdict: Verdict, reset_optimizer: bool) -> None:
    """One line about what resuming from this checkpoint means, when it is not simply exact."""
    if reset_optimizer:
        logger.warning("resuming from %s with a fresh optimizer and learning-rate schedule "
                       "(--reset_optimizer_state): the result will differ from an uninterrupted run", verdict.path)
    if not verdict.verified:
        logger.warning("%s has no %s (written by an older version, or stopped just before it): its files are "
                       "complete and readable but not verified against checksums", verdict.path, CHECKSUM_FILE)
    logger.info("resuming from %s", verdict.path)


def check_resume_compatible(checkpoint: str, model_config, train_batch_size: int) -> None:
    """For a checkpoint without a run identity (an older version's): a CheckpointError when this run's model or
    batch size differs from the checkpoint's (a different head fails to load; a different score or batch size
    trains something else)."""
    folder = Path(checkpoint)
    saved_path = folder / "config.json"
    if saved_path.is_file():
        saved = json.loads(saved_path.read_text(encoding="utf-8"))
        current = model_config.to_dict()

        def norm(value):
            return list(value) if isinstance(value, tuple) else value

        differ = [key for key in model_fields() if key in saved and norm(saved[key]) != norm(current.get(key))]
        if differ:
            details = ", ".join(f"{key}={saved[key]!r} (now {current.get(key)!r})" for key in differ[:5])
            raise CheckpointError(f"--resume_from_checkpoint {folder}: it was trained with {details}; resume with the "
                                  "flags of that run, or start afresh with --overwrite_output_dir")
    state = json.loads((folder / TRAINER_STATE).read_text(encoding="utf-8"))
    saved_batch = state.get("train_batch_size")
    if saved_batch is not None and saved_batch != train_batch_size:
        raise CheckpointError(f"--resume_from_checkpoint {folder}: it was trained with batches of {saved_batch}, this "
                              f"run uses {train_batch_size}; pass --per_device_train_batch_size to match, or start "
                              "afresh with --overwrite_output_dir")
