"""Sentence embeddings computed once per unique sentence and stored on disk (safetensors shards), keyed by
encoder name + revision + pooling + a digest of each text, reused across configs and runs.

Each shard carries a SHA-256 of its tensors in its metadata. A shard that is unreadable, fails its checksum,
is malformed or holds non-finite numbers is reported in one line, deleted, and its sentences are embedded
again; an encoder that produces non-finite embeddings is an error (nothing is written)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file
from tqdm.auto import tqdm
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from builders.atomic import atomic_path
from builders.digest import code_digest

from .encoders import pool, token_states
from .errors import CorruptInputError, DataError, UsageError

logger = logging.getLogger(__name__)
DIGEST_SIZE = 16
CHECKSUM_KEY = "sha256"


def default_cache_dir() -> Path:
    """`$BLM_EMBEDDING_CACHE`, else `~/.cache/blm_toolkit/embeddings`."""
    explicit = os.environ.get("BLM_EMBEDDING_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "blm_toolkit" / "embeddings"


def text_digest(text: str) -> bytes:
    """16-byte digest of a sentence: its identity in the cache."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=DIGEST_SIZE).digest()


@functools.cache
def embedding_code_digest() -> str:
    """Digest of the code an embedding comes from (tokenising and truncating, batching, the layer's states,
    pooling): part of every cache key, so changed code never serves the vectors the old code made."""
    from . import encoders, finetune, layer_embeddings

    return code_digest(SentenceEmbedder, layer_embeddings.AllLayerEmbedder, encoders.token_states, encoders.pool,
                       encoders.prepare_tokenizer, encoders.load_encoder, finetune.states_at, finetune.layer_stack, finetune.cut_at)


@dataclass(frozen=True)
class EncoderKey:
    """What makes two embeddings of the same text interchangeable."""

    name: str
    revision: str
    pooling: str
    max_length: int
    layer: int = -1
    code: str = field(default_factory=lambda: embedding_code_digest())

    @property
    def folder_name(self) -> str:
        """Readable, filesystem-safe folder name with a digest of the full key."""
        readable = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(self.name).name or self.name)[-40:]
        digest = hashlib.blake2b(json.dumps(asdict(self), sort_keys=True).encode(), digest_size=8).hexdigest()
        return f"{readable}-{self.pooling}-{digest}"


class SentenceEmbedder:
    """Embeds sentences with a frozen encoder: tokenise all at once, sort by length, batch, pool."""

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        pooling: str = "mean",
        max_length: int = 128,
        batch_size: int = 64,
        layer: int = -1,
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.pooling = pooling
        self.max_length = max_length
        self.batch_size = batch_size
        self.layer = layer

    def tokenize(self, sentences: Sequence[str]) -> list[list[int]]:
        """Token ids of every sentence, unpadded (one fast-tokenizer call)."""
        encoded = self.tokenizer(list(sentences), truncation=True, max_length=self.max_length, padding=False)
        return encoded["input_ids"]

    def batches(self, token_ids: Sequence[Sequence[int]]) -> Iterator[tuple[list[int], dict[str, torch.Tensor]]]:
        """(positions, padded model inputs) for batches of similar length, longest first, so padding is minimal."""
        order = sorted(range(len(token_ids)), key=lambda i: -len(token_ids[i]))
        pad_id = self.tokenizer.pad_token_id or 0
        device = self.model.device
        for start in range(0, len(order), self.batch_size):
            positions = order[start : start + self.batch_size]
            width = len(token_ids[positions[0]])
            input_ids = torch.full((len(positions), width), pad_id, dtype=torch.long)
            attention_mask = torch.zeros((len(positions), width), dtype=torch.long)
            for row, position in enumerate(positions):
                ids = token_ids[position]
                input_ids[row, : len(ids)] = torch.as_tensor(ids, dtype=torch.long)
                attention_mask[row, : len(ids)] = 1
            yield positions, {"input_ids": input_ids.to(device), "attention_mask": attention_mask.to(device)}

    @torch.no_grad()
    def embed(self, sentences: Sequence[str], progress: bool = True) -> torch.Tensor:
        """Float32 embeddings [N, d] in the order of `sentences`."""
        token_ids = self.tokenize(sentences)
        output: torch.Tensor | None = None
        with tqdm(total=len(sentences), desc="embedding sentences", unit="sent", disable=not progress) as bar:
            for positions, inputs in self.batches(token_ids):
                hidden = token_states(self.model, inputs["input_ids"], inputs["attention_mask"], self.layer)
                pooled = pool(hidden, inputs["attention_mask"], self.pooling).float().cpu()
                if output is None:
                    output = torch.empty((len(sentences), pooled.shape[-1]), dtype=torch.float32)
                output[torch.as_tensor(positions)] = pooled
                bar.update(len(positions))
        if output is None:
            return torch.empty((0, self.model.config.hidden_size), dtype=torch.float32)
        return output


def tensor_checksum(tensors: dict[str, torch.Tensor]) -> str:
    """SHA-256 over the names, shapes, dtypes and bytes of a shard's tensors (stored in the shard's metadata)."""
    digest = hashlib.sha256()
    for name in sorted(tensors):
        tensor = tensors[name].contiguous()
        digest.update(f"{name}:{tuple(tensor.shape)}:{tensor.dtype}".encode())
        digest.update(tensor.view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return digest.hexdigest()


def read_shard(path: Path) -> tuple[dict[str, torch.Tensor] | None, str | None]:
    """(tensors, None) for a sound shard, (None, what is wrong) for a damaged one."""
    from safetensors import safe_open

    try:
        with safe_open(str(path), "pt") as handle:
            metadata = handle.metadata() or {}
        tensors = load_file(str(path))
    except Exception as error:  # safetensors reports any damage to a file as its own error type
        return None, f"unreadable: {' '.join(str(error).split())}"
    embeddings, digests = tensors.get("embeddings"), tensors.get("digests")
    shapes_ok = embeddings is not None and digests is not None and embeddings.dim() == 2
    if not shapes_ok or digests.shape != (len(embeddings), DIGEST_SIZE):
        return None, "malformed: expected embeddings [n, d] and digests [n, 16]"
    expected = metadata.get(CHECKSUM_KEY)
    if expected is not None and tensor_checksum(tensors) != expected:
        return None, "its content does not match the checksum in its metadata"
    if not bool(torch.isfinite(embeddings).all()):
        return None, "it holds non-finite embeddings"
    return tensors, None


class EmbeddingCache:
    """A folder of safetensors shards (`embeddings` [n, d] float32, `digests` [n, 16] uint8) for one encoder key."""

    def __init__(self, root: str | os.PathLike | None, key: EncoderKey) -> None:
        self.key = key
        self.directory = Path(root or default_cache_dir()) / key.folder_name

    def _load_index(self) -> dict[bytes, torch.Tensor]:
        """Every cached embedding of this key, by text digest; damaged shards are reported and deleted."""
        index: dict[bytes, torch.Tensor] = {}
        for shard in sorted(self.directory.glob("shard-*.safetensors")):
            tensors, problem = read_shard(shard)
            if problem is not None:
                logger.warning("embedding cache: %s is corrupt (%s); deleted, its sentences are embedded again",
                               shard, problem)
                with contextlib.suppress(OSError):  # another process may have deleted it first; a read-only cache
                    shard.unlink()

                continue
            for digest, row in zip(tensors["digests"].numpy(), tensors["embeddings"]):
                index[digest.tobytes()] = row
        return index

    def _write_shard(self, digests: Sequence[bytes], embeddings: torch.Tensor) -> Path:
        """Write one shard atomically; its name is a digest of its content, so re-writing is harmless."""
        self.directory.mkdir(parents=True, exist_ok=True)
        name = hashlib.blake2b(b"".join(digests), digest_size=12).hexdigest()
        path = self.directory / f"shard-{name}.safetensors"
        digest_tensor = torch.frombuffer(bytearray(b"".join(digests)), dtype=torch.uint8).view(-1, DIGEST_SIZE)
        tensors = {"embeddings": embeddings.contiguous(), "digests": digest_tensor.clone()}
        with atomic_path(path) as tmp:
            save_file(tensors, str(tmp), metadata={"key": json.dumps(asdict(self.key)),
                                                   CHECKSUM_KEY: tensor_checksum(tensors)})
        return path

    def embed(
        self,
        sentences: Sequence[str],
        embedder: SentenceEmbedder,
        rank: int = 0,
        world_size: int = 1,
        barrier: Callable[[], None] | None = None,
        progress: bool = True,
    ) -> tuple[torch.Tensor, dict[str, int]]:
        """Embeddings [N, d] of `sentences` (in order), computing only those not cached yet.

        With several processes, each embeds its own slice of the missing sentences and writes its own
        shard; `barrier` (e.g. `PartialState().wait_for_everyone`) makes all agree on what is missing
        before anyone writes, and all shards exist before anyone reads them back.
        Returns the table and counts (`requested`, `unique`, `cached`, `computed`).
        """
        digests = [text_digest(text) for text in sentences]
        unique: dict[bytes, str] = {}
        for digest, text in zip(digests, sentences):
            unique.setdefault(digest, text)
        if world_size > 1 and barrier is None:
            raise UsageError("several processes share the cache: pass barrier= (e.g. PartialState().wait_for_everyone)")
        index = self._load_index()
        missing = sorted(digest for digest in unique if digest not in index)
        if world_size > 1:
            barrier()  # every process has its list of missing sentences before any process writes a shard
        mine = missing[rank::world_size]
        unwritten: dict[bytes, torch.Tensor] = {}
        if mine:
            vectors = embedder.embed([unique[digest] for digest in mine], progress=progress)
            bad = int((~torch.isfinite(vectors)).any(dim=-1).sum())
            if bad:
                raise CorruptInputError(
                    f"encoder {self.key.name!r} gave non-finite embeddings for {bad} of {len(mine)} sentences (its "
                    "weights hold NaN or inf, or it overflows); nothing was cached. Check the encoder's weights, or "
                    "pass another --encoder"
                )
            try:
                self._write_shard(mine, vectors)
            except OSError as err:  # a read-only or full cache: one process goes on without it, several cannot
                where = f"{self.directory} ({err.strerror or err})"
                if world_size > 1:
                    raise UsageError(f"the embedding cache {where} cannot be written, and the processes share "
                                     "embeddings through it; pass --embedding_cache_dir with a writable folder") from None
                logger.warning("embedding cache %s cannot be written; the embeddings of this run are kept in memory "
                               "only (pass --embedding_cache_dir with a writable folder to cache them)", where)
                unwritten = dict(zip(mine, vectors))
        if world_size > 1:
            barrier()  # every shard is written before any process reads them back
        if missing:
            index = {**self._load_index(), **unwritten}
        lost = [digest for digest in unique if digest not in index]
        if lost:
            raise DataError(
                f"{len(lost)} sentences are missing from the embedding cache {self.directory} after embedding; "
                "were processes started with different data? Delete the folder and run again."
            )
        table = torch.stack([index[digest] for digest in digests]) if digests else torch.empty(0)
        stats = {"requested": len(sentences), "unique": len(unique), "cached": len(unique) - len(missing),
                 "computed": len(missing)}
        return table, stats
