"""The --output_dir of a run: refuse to train over an earlier run unless asked, replace it only once the new run is
complete, and write the run's files atomically.

Policy. A folder holding a run (metrics.json, model weights, config.json, checkpoint-* folders, or a run set
aside earlier) is refused unless `--resume_from_checkpoint` (continue it) or `--overwrite_output_dir` (replace it)
is given. With --overwrite_output_dir the old run's files are moved into `OUTPUT_DIR/.previous_run` right before
training starts (after data, encoder and embeddings are ready, so a failure before that leaves the folder
untouched) and deleted only once the new run has written metrics.json. If the new run stops before that, the old
run stays in `.previous_run`; move its files back to restore it. Files a run does not write are never touched.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

from builders.atomic import share

from .errors import UsageError
from .predictions import PREDICTIONS_FILE
from .remote_code import BUNDLE

logger = logging.getLogger(__name__)

PREVIOUS_RUN = ".previous_run"
# files a run writes into its output folder (model, its code, tokenizer, card, metrics, Trainer state)
RUN_FILES = {"metrics.json", "README.md", "config.json", "generation_config.json", "model.safetensors",
             "model.safetensors.index.json", "training_args.bin", "tokenizer.json", "tokenizer_config.json",
             "special_tokens_map.json", "added_tokens.json", "vocab.txt", "vocab.json", "merges.txt",
             "chat_template.jinja", "spiece.model", "sentencepiece.bpe.model", "tokenizer.model",
             PREDICTIONS_FILE, *BUNDLE.values()}  # the model's code, saved beside its weights
# what shows that a folder holds a run (README.md alone may be anybody's)
RUN_MARKERS = {"metrics.json", "config.json", "model.safetensors", "model.safetensors.index.json"}


def share_run_files(folder: str | os.PathLike) -> None:
    """Give the files a run wrote at the top of ``folder`` the mode the umask says: safetensors writes weights as
    0600, which a lab-mate cannot read. Other files are left alone; checkpoints are shared as they are saved."""
    for path in Path(folder).iterdir():
        if path.is_file() and _is_run_entry(path):
            share(path)


def _is_run_entry(path: Path) -> bool:
    name = path.name
    if path.is_dir():
        return name.startswith("checkpoint-") or name == "runs"
    return name in RUN_FILES or (name.startswith("model-") and name.endswith(".safetensors"))


def run_contents(output_dir: Path) -> list[Path]:
    """The entries of `output_dir` a training run wrote (not `.previous_run`, not anything else)."""
    if not output_dir.is_dir():
        return []
    return sorted(path for path in output_dir.iterdir() if _is_run_entry(path))


def run_markers(output_dir: Path) -> list[str]:
    """Names in `output_dir` that show it holds a run, finished or not."""
    contents = run_contents(output_dir)
    names = [path.name for path in contents if path.name in RUN_MARKERS]
    checkpoints = [path.name for path in contents if path.is_dir() and path.name.startswith("checkpoint-")]
    names += sorted(checkpoints, key=lambda name: (len(name), name))  # checkpoint-4 before checkpoint-12
    if (output_dir / PREVIOUS_RUN).is_dir():
        names.append(PREVIOUS_RUN)
    return names


# files that show a folder holds data: a `blm export`/Hub layout, a save_to_disk DatasetDict, a `blm generate --out`
DATASET_MARKERS = (".blm_export.json", "dataset_dict.json", "dataset_info.json")


def dataset_marker(folder: Path) -> str | None:
    """The file that shows ``folder`` holds a dataset rather than a run (None when it does not)."""
    if not folder.is_dir():
        return None
    found = next((name for name in DATASET_MARKERS if (folder / name).is_file()), None)
    if found is None:  # `blm generate --out`: one folder per config with its splits
        found = next((f"{sub.name}/{split.name}" for sub in sorted(folder.iterdir()) if sub.is_dir()
                      for split in sorted(sub.iterdir()) if split.name.startswith(("train.", "train-"))
                      or split.name == "dataset_dict.json"), None)
    return found


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(os.sep)


def check_output_dir(output_dir: str | os.PathLike, overwrite: bool, resume: str | None) -> None:
    """A UsageError when --output_dir cannot be written, or holds a run that neither flag says what to do with."""
    path = Path(output_dir)
    flag = f"--output_dir {path}"
    if path.exists() and not path.is_dir():
        raise UsageError(f"{flag} is a file, not a folder; give the path of a folder (it is created when missing)")
    existing = _nearest_existing(path)
    if not existing.is_dir():
        raise UsageError(f"{flag}: {existing} is a file, so the folder cannot be created; choose another path")
    try:
        with tempfile.TemporaryFile(dir=existing, prefix=".blm-write-test-"):
            pass
    except OSError as error:
        raise UsageError(f"{flag}: cannot write in {existing} ({error.strerror or error}); choose a writable "
                         "folder") from error
    dataset = dataset_marker(path)
    if dataset is not None:  # never, not even with --overwrite_output_dir: the data would be lost
        raise UsageError(f"{flag} holds a dataset ({dataset}): a run written there would replace its card and leave "
                         "it unloadable; choose another --output_dir")
    if resume or overwrite:
        return
    markers = run_markers(path)
    if not markers:
        return
    shown = ", ".join(markers[:5]) + (", ..." if len(markers) > 5 else "")
    if "metrics.json" in markers:
        raise UsageError(f"{flag} holds a finished run ({shown}); pass --overwrite_output_dir to replace it (it is "
                         "kept until the new run is complete), --resume_from_checkpoint to continue it, or choose "
                         "another --output_dir")
    raise UsageError(f"{flag} holds an unfinished run ({shown}); pass --resume_from_checkpoint to continue it, "
                     "--overwrite_output_dir to start afresh (the old files are kept until the new run is complete), "
                     "or choose another --output_dir")


def set_aside_previous_run(output_dir: str | os.PathLike) -> Path | None:
    """Move the run in `output_dir` into `.previous_run` before a replacing run trains; returns that folder.

    When `.previous_run` exists already, a replacing run was stopped before: a finished run in the folder
    supersedes it, while the unfinished remains of the stopped run are removed and `.previous_run` is kept.
    """
    output_dir = Path(output_dir)
    previous = output_dir / PREVIOUS_RUN
    contents = run_contents(output_dir)
    if not contents:
        return previous if previous.is_dir() else None
    if previous.is_dir() and not (output_dir / "metrics.json").is_file():
        logger.warning("removing the unfinished run in %s (%s); the run it was replacing stays in %s",
                       output_dir, ", ".join(p.name for p in contents[:4]), previous)
        for path in contents:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        return previous
    if previous.is_dir():
        shutil.rmtree(previous)
    previous.mkdir()
    for path in contents:
        os.replace(path, previous / path.name)
    logger.warning("--overwrite_output_dir: the previous run in %s was moved to %s; it is deleted once this run "
                   "is complete", output_dir, previous)
    return previous


def discard_previous_run(output_dir: str | os.PathLike) -> None:
    """Delete `.previous_run` once the run that replaces it is complete."""
    previous = Path(output_dir) / PREVIOUS_RUN
    if previous.is_dir():
        shutil.rmtree(previous)
        logger.info("deleted the replaced run %s", previous)


