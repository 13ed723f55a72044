"""Sentence embeddings of several encoder layers from one forward pass per batch, stored in the embedding cache
under the same keys `train.py --hidden_layer L` uses, so a layer sweep embeds every sentence once and later
runs on any of its layers find their embeddings cached."""

from __future__ import annotations

import os
from collections.abc import Sequence

import torch
from tqdm.auto import tqdm

from .embedding_cache import EmbeddingCache, EncoderKey, SentenceEmbedder
from .encoders import encoder_revision_id, load_encoder, pool, resolve_encoder_name
from .finetune import cut_at, layer_stack
from .errors import UsageError


class AllLayerEmbedder(SentenceEmbedder):
    """Pools every hidden layer (0 = the input embeddings … N = the last) in one forward pass and remembers them,
    so the caches of the other layers are filled without running the encoder again. With `upto`, a BERT-like
    encoder stops at that layer: the layers above it are never computed (their pooled states are not kept)."""

    def __init__(self, *args, upto: int | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.upto = upto
        self.memo: dict[str, torch.Tensor] = {}  # sentence -> [layers + 1, d] (upto + 1 when cut)

    def hidden_states(self, inputs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, ...]:
        """Hidden states 0 … upto (0 … N when the encoder cannot be cut there)."""
        stack = layer_stack(self.model)
        if self.upto is None or stack is None or not 0 <= self.upto < len(stack):
            return self.model(**inputs, output_hidden_states=True).hidden_states
        with cut_at(self.model, self.upto):
            return self.model(**inputs, output_hidden_states=True).hidden_states

    @torch.no_grad()
    def compute(self, sentences: Sequence[str], progress: bool = True) -> None:
        """Pooled states of every layer for the sentences not computed yet."""
        missing = list(dict.fromkeys(s for s in sentences if s not in self.memo))
        if not missing:
            return
        token_ids = self.tokenize(missing)
        with tqdm(total=len(missing), desc="embedding sentences (all layers)", unit="sent",
                  disable=not progress) as bar:
            for positions, inputs in self.batches(token_ids):
                states = self.hidden_states(inputs)
                pooled = torch.stack([pool(h, inputs["attention_mask"], self.pooling) for h in states], dim=1)
                for row, position in enumerate(positions):
                    self.memo[missing[position]] = pooled[row].float().cpu()
                bar.update(len(positions))

    def for_layer(self, layer: int) -> SentenceEmbedder:
        """An embedder of one layer (what `EmbeddingCache.embed` calls) served from the shared pass."""
        parent = self

        class OneLayer(SentenceEmbedder):
            def __init__(self) -> None:
                super().__init__(parent.model, parent.tokenizer, parent.pooling, parent.max_length,
                                 parent.batch_size, layer)

            def embed(self, sentences: Sequence[str], progress: bool = True) -> torch.Tensor:
                parent.compute(sentences, progress)
                if not sentences:
                    return torch.empty((0, parent.model.config.hidden_size))
                return torch.stack([parent.memo[s][layer] for s in sentences])

        return OneLayer()


def encoder_depth(model: torch.nn.Module) -> int:
    """Number of transformer layers (hidden states are 0 … depth)."""
    config = model.config
    for name in ("num_hidden_layers", "n_layer", "num_layers"):
        value = getattr(config, name, None)
        if isinstance(value, int):
            return value
    raise UsageError(f"cannot tell how many layers {type(model).__name__} has")


def layer_tables(
    sentences: Sequence[str],
    encoder: str,
    layers: Sequence[int] | None = None,
    cache_dir: str | os.PathLike | None = None,
    pooling: str = "mean",
    max_length: int = 128,
    batch_size: int = 64,
    progress: bool = True,
    loaded: tuple | None = None,
    revision: str | None = None,
) -> tuple[torch.Tensor, list[int], dict]:
    """Embeddings [len(layers), S, d] of `sentences` at each layer (default: every layer 0 … N), read from the
    embedding cache or computed in one pass; returns (tables, layers, counts of cached/computed sentences).
    `revision` is the encoder's cache-key revision when the caller has it (else the weights are read for it)."""
    model, tokenizer = loaded or load_encoder(encoder)
    depth = encoder_depth(model)
    layers = list(range(depth + 1)) if layers is None else [depth if l == -1 else l for l in layers]
    bad = [l for l in layers if not 0 <= l <= depth]
    if bad:
        raise UsageError(f"layers {bad}: {encoder} has layers 0 (the input embeddings) to {depth}")
    revision = revision or encoder_revision_id(resolve_encoder_name(encoder), None, model)
    embedder = AllLayerEmbedder(model, tokenizer, pooling, max_length, batch_size, upto=max(layers, default=None))
    tables, computed = [], 0
    for layer in layers:
        key = EncoderKey(name=encoder, revision=revision, pooling=pooling, max_length=max_length, layer=layer)
        table, stats = EmbeddingCache(cache_dir, key).embed(list(sentences), embedder.for_layer(layer),
                                                            progress=progress)
        computed = max(computed, stats["computed"])
        tables.append(table)
    return torch.stack(tables), layers, {"sentences": len(set(sentences)), "computed": computed}
