"""Fast fine-tuning: drop the encoder layers above the pooled one, train only the top kept layers, and run the frozen
layers below them once (their token states cached in memory) instead of at every step.

Truncation applies to BERT-like encoders (BERT, ELECTRA, RoBERTa, XLM-R, MiniLM...: a stack at `encoder.layer`
whose last output is the last hidden state). Encoders with a final norm after their stack (GPT-2) or another
layout are left whole; their middle layers are still pooled through `output_hidden_states`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import contextmanager

import torch
from torch import nn
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from .errors import UsageError

try:
    from transformers.utils.output_capturing import maybe_install_capturing_hooks
except ImportError:  # transformers < 5 collects hidden states without hooks
    maybe_install_capturing_hooks = None

logger = logging.getLogger(__name__)

DEPTH_ATTRIBUTES = ("num_hidden_layers", "n_layer", "num_layers")


def encoder_depth(config) -> int | None:
    """Number of transformer layers an encoder config declares (None when it names none)."""
    return next((getattr(config, name) for name in DEPTH_ATTRIBUTES if isinstance(getattr(config, name, None), int)),
                None)


def layer_stack(encoder: nn.Module) -> nn.ModuleList | None:
    """The encoder's stack of layers when it is BERT-like (`encoder.layer`, as long as the config says), else None."""
    inner = getattr(encoder, "encoder", None)
    stack = getattr(inner, "layer", None)
    if isinstance(stack, nn.ModuleList) and len(stack) == encoder_depth(getattr(encoder, "config", None)):
        return stack
    return None


def truncation_depth(encoder: nn.Module, hidden_layer: int) -> int | None:
    """How many layers to keep so that the pooled layer is the last one: `hidden_layer` when it is a middle layer of
    a BERT-like encoder, None when nothing can or need be dropped (-1, 0, the last layer, other layouts)."""
    stack = layer_stack(encoder)
    if stack is None or not 1 <= hidden_layer < len(stack):
        return None
    return hidden_layer


def truncate_encoder(encoder: PreTrainedModel, layers: int) -> PreTrainedModel:
    """Keep the embeddings and layers 1..`layers` of a BERT-like encoder, in place; its config says so
    (num_hidden_layers), so `AutoModel.from_config(encoder.config)` builds the same shape again."""
    stack = layer_stack(encoder)
    if stack is None:
        raise UsageError(f"{type(encoder).__name__} has no BERT-like layer stack to truncate")
    if not 1 <= layers <= len(stack):
        raise UsageError(f"cannot keep {layers} of {len(stack)} layers")
    del stack[layers:]
    set_depth(encoder.config, layers)
    return encoder


def set_depth(config, layers: int) -> None:
    """Make an encoder config declare `layers` layers (whatever its attribute is called)."""
    for name in DEPTH_ATTRIBUTES:
        if isinstance(getattr(config, name, None), int):
            setattr(config, name, layers)


def check_train_top_layers(encoder: nn.Module, hidden_layer: int, top_layers: int) -> None:
    """--train_top_layers against the layers a fine-tuned encoder keeps (up to --hidden_layer when that is a middle
    layer); a UsageError naming the flag when there are fewer."""
    if not top_layers:
        return
    depth = truncation_depth(encoder, hidden_layer) or encoder_depth(getattr(encoder, "config", None))
    if depth is None:
        raise UsageError(f"--train_top_layers {top_layers}: cannot tell the layers of {type(encoder).__name__}; "
                         "pass 0 to fine-tune all of it")
    if top_layers > depth:
        raise UsageError(f"--train_top_layers {top_layers}: the encoder keeps {depth} layers (up to --hidden_layer "
                         f"{hidden_layer}); train at most {depth}, or 0 for all of them")


def trained_layers(encoder: nn.Module, top_layers: int) -> list[nn.Module]:
    """The top `top_layers` layers of the encoder's stack (BERT-like `encoder.layer`, else the ModuleList as long as
    the encoder is deep: GPT-2 `h`, DistilBERT `transformer.layer`)."""
    stack = layer_stack(encoder) or _any_layer_stack(encoder)
    if stack is None:
        raise UsageError(f"--train_top_layers {top_layers}: {type(encoder).__name__} has no layer stack this "
                         "toolkit recognises; pass 0 to fine-tune all of it")
    if not 1 <= top_layers <= len(stack):
        raise UsageError(f"cannot train the top {top_layers} of {len(stack)} layers")
    return list(stack[len(stack) - top_layers:])


def _any_layer_stack(encoder: nn.Module) -> nn.ModuleList | None:
    """The first ModuleList whose length is the encoder's depth."""
    depth = encoder_depth(getattr(encoder, "config", None))
    return next((m for m in encoder.modules() if isinstance(m, nn.ModuleList) and len(m) == depth), None)


def freeze_below_top_layers(encoder: nn.Module, top_layers: int) -> None:
    """Only the top `top_layers` layers keep gradients (0: the whole encoder); the pooler, never used, never trains."""
    encoder.requires_grad_(not top_layers)
    if top_layers:
        for layer in trained_layers(encoder, top_layers):
            layer.requires_grad_(True)
    pooler = getattr(encoder, "pooler", None)
    if pooler is not None:
        pooler.requires_grad_(False)


def set_frozen_to_eval(encoder: nn.Module, top_layers: int) -> None:
    """In training mode, the frozen part (embeddings, lower layers) still runs without dropout, so its token states
    are the same at every step (and can be computed once)."""
    if not top_layers or not encoder.training:
        return
    encoder.eval()
    for layer in trained_layers(encoder, top_layers):
        layer.train()


# --- sentences of similar length together --------------------------------------------------------------------

# A fine-tuning batch holds a few hundred unique sentences of 10-23 tokens: padded to the longest, about a third of
# the tokens the trained layers compute are padding (agr_en_typeI, MiniLM). Run in length buckets instead, each
# padded to its own longest: 1.36 -> 1.12 tokens computed per real token with 3 buckets of 370 sentences.
MIN_BUCKET = 64
MAX_BUCKETS = 4


def length_buckets(attention_mask: torch.Tensor) -> list[tuple[torch.Tensor, int]]:
    """Rows of a right-padded batch in buckets of similar length: (row positions, their longest length) each; one
    bucket for small batches."""
    lengths = attention_mask.sum(dim=1)
    count = min(MAX_BUCKETS, max(1, len(lengths) // MIN_BUCKET))
    order = torch.argsort(lengths, stable=True)
    return [(rows, max(1, int(lengths[rows].max()))) for rows in order.chunk(count) if len(rows)]


def embed_in_buckets(embed, states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """`embed(states, mask) -> [n, d]` over length buckets of the rows, back in the rows' order. `states` is token
    states [N, T, d] or token ids [N, T]; positions past a row's length are padding, so each bucket is cut to its
    own longest row and the result is that of one padded pass."""
    buckets = length_buckets(attention_mask)
    if len(buckets) == 1:
        return embed(states, attention_mask)
    parts = [embed(states[rows, :width], attention_mask[rows, :width]) for rows, width in buckets]
    out = torch.empty((len(states), parts[0].shape[-1]), dtype=parts[0].dtype, device=parts[0].device)
    for (rows, _), part in zip(buckets, parts):
        out[rows.to(out.device)] = part
    return out


# --- the frozen layers run once ------------------------------------------------------------------------------


def _layer_output(output) -> torch.Tensor:
    return output[0] if isinstance(output, tuple) else output


def run_top_layers(encoder: PreTrainedModel, states: torch.Tensor, attention_mask: torch.Tensor,
                   top_layers: int) -> torch.Tensor:
    """Token states after the top `top_layers` layers of a BERT-like encoder, from the token states entering them."""
    from transformers.masking_utils import create_bidirectional_mask

    stack = layer_stack(encoder)
    mask = create_bidirectional_mask(config=encoder.config, inputs_embeds=states, attention_mask=attention_mask)
    for layer in stack[len(stack) - top_layers:]:
        states = _layer_output(layer(states, mask))
    return states


class FrozenStateTable:
    """Token states entering the first trained layer, for every sentence of the run: [N, T, d] right-padded, with
    each sentence's length. Computed once with the frozen layers in eval mode."""

    def __init__(self, states: torch.Tensor, lengths: torch.Tensor) -> None:
        self.states = states
        self.lengths = lengths

    def gather(self, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """States [U, width, d] and attention mask [U, width] of the sentences at `positions`, padded to the longest."""
        lengths = self.lengths[positions]
        width = int(lengths.max()) if len(lengths) else 1
        mask = (torch.arange(width).unsqueeze(0) < lengths.unsqueeze(1)).long()
        rows = torch.nn.functional.embedding(positions, self.states.view(len(self.states), -1))  # fast row gather
        return rows.view(len(positions), *self.states.shape[1:])[:, :width], mask


@torch.no_grad()
def frozen_state_table(encoder: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, sentences: Sequence[str],
                       top_layers: int, max_length: int, batch_size: int = 64) -> FrozenStateTable:
    """Run every sentence through the frozen part once (length-sorted batches) and keep the states entering the top
    `top_layers` layers."""
    token_ids = tokenizer(list(sentences), truncation=True, max_length=max_length, padding=False)["input_ids"]
    lengths = torch.tensor([len(ids) for ids in token_ids], dtype=torch.long)
    depth = len(layer_stack(encoder))
    boundary = depth - top_layers  # index into hidden_states: 0 = the embeddings' output
    width = int(lengths.max()) if len(lengths) else 1
    device = next(encoder.parameters()).device
    states = torch.zeros((len(token_ids), width, encoder.config.hidden_size), dtype=torch.float32)
    was_training = encoder.training
    encoder.eval()
    order = sorted(range(len(token_ids)), key=lambda i: -len(token_ids[i]))
    pad_id = tokenizer.pad_token_id or 0
    for start in range(0, len(order), batch_size):
        positions = order[start:start + batch_size]
        longest = len(token_ids[positions[0]])
        input_ids = torch.full((len(positions), longest), pad_id, dtype=torch.long)
        mask = torch.zeros((len(positions), longest), dtype=torch.long)
        for row, position in enumerate(positions):
            input_ids[row, : len(token_ids[position])] = torch.as_tensor(token_ids[position])
            mask[row, : len(token_ids[position])] = 1
        hidden = states_at(encoder, input_ids.to(device), mask.to(device), boundary)
        states[torch.as_tensor(positions), :longest] = hidden.float().cpu()
    encoder.train(was_training)
    return FrozenStateTable(states, lengths)


@contextmanager
def cut_at(encoder: PreTrainedModel, layers: int):
    """Within the block, a BERT-like encoder has only its first `layers` layers (restored after it)."""
    # transformers 5 hooks the layers present at the first output_hidden_states call and never again: hook the
    # whole stack before cutting it, or a later full pass returns too few hidden states
    if maybe_install_capturing_hooks is not None and isinstance(encoder, PreTrainedModel):
        maybe_install_capturing_hooks(encoder)
    stack = layer_stack(encoder)
    removed = stack[layers:]
    del stack[layers:]
    try:
        yield encoder
    finally:
        stack.extend(removed)


def states_at(encoder: PreTrainedModel, input_ids: torch.Tensor, mask: torch.Tensor, boundary: int) -> torch.Tensor:
    """Token states after `boundary` layers (0: the embeddings' output) of a BERT-like encoder, computing no layer
    above them."""
    with cut_at(encoder, boundary):
        return encoder(input_ids=input_ids, attention_mask=mask).last_hidden_state


def cached_path_agrees(encoder: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, sentences: Sequence[str],
                       top_layers: int, max_length: int) -> bool:
    """Whether the top layers run on cached states reproduce the encoder's own forward pass (checked on a few
    sentences, in eval mode): guards the cached path against an encoder whose layers take other arguments."""
    sample = list(sentences[:8])
    if not sample or layer_stack(encoder) is None:
        return False
    was_training = encoder.training
    encoder.eval()
    try:
        with torch.no_grad():
            table = frozen_state_table(encoder, tokenizer, sample, top_layers, max_length)
            states, mask = table.gather(torch.arange(len(sample)))
            device = next(encoder.parameters()).device
            cached = run_top_layers(encoder, states.to(device), mask.to(device), top_layers)
            encoded = tokenizer(sample, truncation=True, max_length=max_length, padding=True, return_tensors="pt")
            full = encoder(input_ids=encoded["input_ids"].to(device),
                           attention_mask=encoded["attention_mask"].to(device)).last_hidden_state
        real = mask.bool().to(device)
        agrees = cached.shape == full.shape and torch.allclose(cached[real], full[real], atol=1e-4, rtol=1e-4)
    except (TypeError, ValueError, RuntimeError) as error:
        logger.info("cached frozen layers unavailable for %s: %s", type(encoder).__name__, error)
        agrees = False
    finally:
        encoder.train(was_training)
    return agrees
