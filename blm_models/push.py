"""Pushing a trained checkpoint to a Hub model repo: what is uploaded, and the check a run makes before it trains.

A checkpoint is uploaded as others need it: the card, the config (with `auto_map`), the model's code
(`remote_code.py`), the weights and the tokenizer, in one commit. Local absolute paths (the encoder's folder,
`_name_or_path`) are taken out of the uploaded JSON; metrics.json (the run's record, with its paths), optimizer
state, `checkpoint-*` folders, logs and training_args.bin stay local.
"""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import Path
from typing import Any

from hub_cards.model_card import CARD_FILE, METRICS_FILE, write_model_card
from hub_cards.sections import fill_repo_id

from .encoders import public_encoder_name
from .errors import UsageError
from .configuration import AUTO_MAP, BlmConfig
from .remote_code import BUNDLE, bundle_sources

UPLOAD_PATTERNS = ("config.json", "generation_config.json", "*.safetensors", "model.safetensors.index.json",
                   "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
                   "vocab.txt", "vocab.json", "merges.txt", "*.model", "chat_template.jinja", *BUNDLE.values())
SCRUBBED_JSON = ("config.json", "tokenizer_config.json", "generation_config.json")
_ABSOLUTE = re.compile(r"^(/|~[/\\]|[A-Za-z]:[/\\]|\\\\)")


def is_local_path(value: Any) -> bool:
    """True for a string that is an absolute (or home-relative) local path."""
    return isinstance(value, str) and bool(_ABSOLUTE.match(value))


def without_local_paths(value: Any) -> Any:
    """A JSON value with every local absolute path taken out: `*name_or_path` keys dropped (a nested encoder
    config's `_name_or_path`), other values set to null (the frozen encoder's folder: attach it after loading)."""
    if isinstance(value, dict):
        return {key: (None if is_local_path(item) else without_local_paths(item)) for key, item in value.items()
                if not (is_local_path(item) and key.endswith("name_or_path") and key != "encoder_name_or_path")}
    if isinstance(value, list):
        return [None if is_local_path(item) else without_local_paths(item) for item in value]
    return value


def upload_files(folder: str | Path) -> dict[str, bytes | str]:
    """{path in repo: bytes or file name} of what a checkpoint folder uploads (the card apart); a folder saved
    without the model's code gets the code of the toolkit installed here."""
    folder = Path(folder)
    files: dict[str, bytes | str] = {}
    for path in sorted(p for p in folder.iterdir() if p.is_file()):
        if not any(fnmatch.fnmatch(path.name, pattern) for pattern in UPLOAD_PATTERNS):
            continue
        if path.name in SCRUBBED_JSON:
            public = without_local_paths(json.loads(path.read_text(encoding="utf-8")))
            if path.name == "config.json" and public.get("model_type") == BlmConfig.model_type:
                public["auto_map"] = {**(public.get("auto_map") or {}), **AUTO_MAP}
                public["encoder_name_or_path"] = public_encoder_name(public.get("encoder_name_or_path"))
            files[path.name] = (json.dumps(public, indent=2, sort_keys=True) + "\n").encode("utf-8")
        else:
            files[path.name] = path.name
    if "config.json" in files:  # a checkpoint saved before its code was: the installed toolkit's code
        files.update({name: text.encode("utf-8") for name, text in bundle_sources().items() if name not in files})
    return files


def check_checkpoint(folder: str | Path) -> Path:
    """The folder, when it holds a saved model; a ValueError saying what is missing otherwise."""
    folder = Path(folder)
    if not (folder / "config.json").is_file():
        raise UsageError(f"{folder} holds no saved model (config.json); train or save_pretrained first")
    if not any(folder.glob("*.safetensors")):
        raise UsageError(f"{folder} holds no weights (model.safetensors); save the model with save_pretrained")
    return folder


def push_checkpoint(output_dir: str | Path, repo_id: str, private: bool = False, api: Any = None,
                    commit_message: str | None = None, token: str | None = None) -> Any:
    """Upload a checkpoint folder (card, config, code, weights, tokenizer) to the model repo `repo_id` in one commit.

    The card is `output_dir/README.md` (written from metrics.json, or from the config alone, when missing); a card
    already in the repo is merged.
    """
    from huggingface_hub import HfApi

    from blm_datasets.publish import commit_folder, hub_offline, unreachable

    folder = check_checkpoint(output_dir)
    card_path = folder / CARD_FILE
    if not card_path.is_file():
        if (folder / METRICS_FILE).is_file():
            write_model_card(folder)
        else:
            write_model_card(folder, {"config": {"model": json.loads((folder / "config.json").read_text("utf-8"))}})
    card = fill_repo_id(card_path.read_text(encoding="utf-8"), repo_id)
    if api is None:
        if hub_offline():
            raise unreachable(folder, "HF_HUB_OFFLINE is set")
        api = HfApi(token=token)
    return commit_folder(api, folder, repo_id, "model", card, private=private, files=upload_files(folder),
                         commit_message=commit_message or "Upload BLM checkpoint and model card")


def check_hub_access(repo_id: str, token: str | None = None, api: Any = None) -> None:
    """Before a run that ends with --push_to_hub: a UsageError when the Hub is offline, unreachable or the user is
    not logged in, so the run fails in seconds rather than after training."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError, LocalTokenNotFoundError

    from blm_datasets.publish import _network_errors, hub_offline

    later = ("or drop --push_to_hub and push the checkpoint afterwards with "
             f"`blm push-model OUTPUT_DIR --repo {repo_id}`")
    if hub_offline():
        raise UsageError(f"--push_to_hub: the Hugging Face Hub is offline (HF_HUB_OFFLINE is set); unset it, {later}")
    api = api or HfApi(token=token)
    try:
        api.whoami()
    except LocalTokenNotFoundError:
        raise UsageError(f"--push_to_hub: not logged in to the Hugging Face Hub; run `hf auth login` or set "
                         f"HF_TOKEN, {later}") from None
    except _network_errors() as error:
        cause = " ".join(str(error).split())[:200]
        raise UsageError(f"--push_to_hub: cannot reach the Hugging Face Hub ({type(error).__name__}: {cause}); "
                         f"check the network, {later}") from None
    except HfHubHTTPError as error:
        status = getattr(getattr(error, "response", None), "status_code", None)
        raise UsageError(f"--push_to_hub: the Hub refused the token (HTTP {status}); log in again with "
                         f"`hf auth login`, {later}") from None
