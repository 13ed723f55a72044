"""Upload an export folder (or a checkpoint) to the Hugging Face Hub in one commit, merging the card.

The Hub is reached through an ``HfApi`` (injectable, so tests pass a ``create_autospec`` mock). The
repo is created if needed; a card already there is merged (hand-written text and YAML kept),
stale parquet shards of the uploaded configs are deleted in the same commit, and connection
failures become a ValueError that says the folder is ready and what to do.
"""

from __future__ import annotations

import contextlib
import fnmatch
import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi
from huggingface_hub.errors import (
    EntryNotFoundError,
    HfHubHTTPError,
    LocalEntryNotFoundError,
    LocalTokenNotFoundError,
    OfflineModeIsEnabled,
    RepositoryNotFoundError,
)

from blm_datasets.export_folder import OLD_PREFIX, TMP_PREFIX, is_shard_folder
from blm_datasets.sources import hub_offline
from builders.errors import InputError
from hub_cards.sections import fill_repo_id, merge_card, split_card

CARD = "README.md"


def _network_errors() -> tuple[type[BaseException], ...]:
    """Exception types that mean 'the Hub could not be reached' for the HTTP stack installed."""
    found: list[type[BaseException]] = [ConnectionError, TimeoutError, OfflineModeIsEnabled, LocalEntryNotFoundError]
    for module, names in (("httpx2", ("TransportError",)), ("httpx", ("TransportError",)),
                          ("requests.exceptions", ("ConnectionError", "Timeout"))):
        with contextlib.suppress(ImportError):
            mod = importlib.import_module(module)
            found += [getattr(mod, n) for n in names if hasattr(mod, n)]
    return tuple(found)


def unreachable(folder: Path, why: str) -> InputError:
    """The error publishing raises when the Hub cannot be reached."""
    return InputError(f"cannot reach the Hugging Face Hub ({why}); the folder {folder} is ready, "
                      "run again with network")


@contextlib.contextmanager
def hub_errors(folder: Path) -> Iterator[None]:
    """Turn network, auth and permission failures of Hub calls into ValueErrors with a next step."""
    try:
        yield
    except OfflineModeIsEnabled as err:
        raise unreachable(folder, "HF_HUB_OFFLINE is set") from err
    except _network_errors() as err:
        raise unreachable(folder, f"no network: {err}") from err
    except LocalTokenNotFoundError as err:
        raise InputError("not logged in to the Hugging Face Hub: run `hf auth login` or set HF_TOKEN, "
                         f"then publish {folder} again") from err
    except RepositoryNotFoundError as err:
        raise InputError(f"the Hub repo was not found or is not yours: {err}") from err
    except HfHubHTTPError as err:
        status = getattr(getattr(err, "response", None), "status_code", None)
        if status in (401, 403):
            raise InputError(f"the Hub refused the upload (HTTP {status}): log in with a token that can write "
                             f"to this repo (`hf auth login` or HF_TOKEN); {folder} is ready") from err
        raise InputError(f"the Hub answered with an error: {err}") from err


def remote_card(api: HfApi, repo_id: str, repo_type: str, files: list[str]) -> str | None:
    """The README.md already in the repo, or None."""
    if CARD not in files:
        return None
    try:
        path = api.hf_hub_download(repo_id, CARD, repo_type=repo_type)
    except LocalEntryNotFoundError:
        raise
    except EntryNotFoundError:
        return None
    return Path(path).read_text(encoding="utf-8")


def local_files(folder: Path, ignore: tuple[str, ...] = ()) -> list[str]:
    """Files to upload, relative to ``folder``: hidden ones, the card (handled apart) and ``ignore`` globs left out."""
    out = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        skipped = any(part.startswith(".") or any(fnmatch.fnmatch(part, g) for g in ignore) for part in rel.parts)
        if path.is_file() and not skipped and rel.as_posix() != CARD:
            out.append(rel.as_posix())
    return out


def _check_merged(card: str, repo_type: str, repo_id: str) -> None:
    """The merged card must still pass the schema check (foreign keys allowed)."""
    from hub_cards.schema import check_dataset_card_data, check_model_card_data, require_valid

    check = check_dataset_card_data if repo_type == "dataset" else check_model_card_data
    require_valid(check(split_card(card)[0], strict=False), f"the card merged with the one in {repo_id}")


def commit_folder(api: HfApi, folder: Path, repo_id: str, repo_type: str, card: str | None, *,
                  private: bool = False, commit_message: str, stale_prefixes: tuple[str, ...] = (),
                  ignore: tuple[str, ...] = (), files: dict[str, bytes | str] | None = None) -> Any:
    """Create the repo if needed and upload ``folder`` plus the (merged) card in one commit.

    ``files`` ({path in repo: bytes, or a path under ``folder``}) uploads exactly those instead of the whole
    folder. Remote files under ``stale_prefixes`` that the folder no longer has are deleted in that commit.
    """
    with hub_errors(folder):
        api.create_repo(repo_id, repo_type=repo_type, private=private, exist_ok=True)
        remote = list(api.list_repo_files(repo_id, repo_type=repo_type))
        chosen = files if files is not None else {rel: rel for rel in local_files(folder, ignore)}
        uploads = list(chosen)
        operations: list[Any] = [
            CommitOperationAdd(path_in_repo=rel,
                               path_or_fileobj=data if isinstance(data, bytes) else str(folder / data))
            for rel, data in chosen.items()]
        if card is not None:
            old = remote_card(api, repo_id, repo_type, remote)
            text = merge_card(old, card, keep_foreign_configs=True) if old else card
            _check_merged(text, repo_type, repo_id)
            operations.append(CommitOperationAdd(path_in_repo=CARD, path_or_fileobj=text.encode("utf-8")))
        keep = set(uploads)
        operations += [CommitOperationDelete(path_in_repo=path) for path in remote
                       if path not in keep and path.startswith(stale_prefixes) and path.endswith(".parquet")]
        return api.create_commit(repo_id, operations=operations, commit_message=commit_message, repo_type=repo_type)


def read_export(folder: str | Path) -> tuple[Path, str, list[str]]:
    """(folder, card text, config names) of a `blm export` folder; a clear error when it is not one."""
    from hub_cards.schema import check_dataset_card_data, require_valid

    folder = Path(folder)
    card_path = folder / CARD
    if not folder.is_dir() or not card_path.is_file():
        raise InputError(f"{folder} is not a `blm export` folder (no {CARD}); run `blm export ... --out {folder}`")
    card = card_path.read_text(encoding="utf-8")
    data, _ = split_card(card)
    require_valid(check_dataset_card_data(data, strict=False), str(card_path))
    names = [c["config_name"] for c in data["configs"]]
    missing = [n for n in names if not any((folder / n).glob("*.parquet"))]
    if missing:
        raise InputError(f"{folder}: the card lists configs with no parquet files: {', '.join(missing)}")
    unfinished = sorted(p.name for p in folder.iterdir() if p.name.startswith((TMP_PREFIX, OLD_PREFIX)))
    unlisted = sorted(p.name for p in folder.iterdir()
                      if p.is_dir() and not p.name.startswith(".") and p.name not in names and is_shard_folder(p))
    if unfinished or unlisted:
        raise InputError(f"the export in {folder} did not finish ({', '.join(unfinished + unlisted)} left over); "
                         "run the same `blm export … --out` again, then publish")
    return folder, card, names


def publish(folder: str | Path, repo_id: str, private: bool = False, api: HfApi | None = None,
            commit_message: str | None = None, token: str | None = None) -> Any:
    """Upload an export folder to the dataset repo ``repo_id`` in one commit; returns the CommitInfo."""
    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise InputError(f"--repo must be ORG/NAME, got {repo_id!r}")
    folder, card, names = read_export(folder)
    if api is None:
        if hub_offline():
            raise unreachable(folder, "HF_HUB_OFFLINE is set")
        api = HfApi(token=token)
    message = commit_message or f"Upload {len(names)} BLM config{'s' if len(names) != 1 else ''} (blm export)"
    return commit_folder(api, folder, repo_id, "dataset", fill_repo_id(card, repo_id), private=private,
                         commit_message=message, stale_prefixes=tuple(f"{n}/" for n in names))
