"""Embedding cache vs the encoder's raw forward pass over the same unique sentences, and passes saved by de-duplication.

    python benchmarks/bench_embed.py --dataset_config agr_en_typeI [--encoder all-MiniLM-L6-v2] [--repeats 3]

Raw forward time = only `model(**batch)` over pre-built, length-sorted batches of the unique sentences.
Embedding wall time = `EmbeddingCache.embed` into an empty cache: digests, de-duplication, tokenisation,
batching, forward, pooling, writing the shard and reading it back. Target: embedding <= 1.25 x raw forward.
Matmul floor = the encoder's matrix-product FLOPs over those batches (padding included) divided by this CPU's
fp32 rate on a product of the encoder's own shape: the time no implementation of fp32 arithmetic beats here.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from blm_models.data import load_splits  # noqa: E402
from blm_models.embedding_cache import EmbeddingCache, EncoderKey, SentenceEmbedder  # noqa: E402
from blm_models.encoders import DEFAULT_ENCODER_ALIAS, load_encoder  # noqa: E402


def sentence_occurrences(dataset_config: str | None, dataset_path: str | None) -> list[str]:
    """Every context and answer sentence of every split, with repeats."""
    splits = load_splits(dataset_config, dataset_path)
    found: list[str] = []
    for split in splits.values():
        for context, answers in zip(split["context"], split["answers"]):
            found.extend(context)
            found.extend(answers)
    return found


@torch.no_grad()
def raw_forward_seconds(embedder: SentenceEmbedder, sentences: list[str]) -> float:
    """Time of the encoder's forward calls alone over the embedder's own batches."""
    batches = [inputs for _, inputs in embedder.batches(embedder.tokenize(sentences))]
    start = time.perf_counter()
    for inputs in batches:
        embedder.model(**inputs)
    return time.perf_counter() - start


def matmul_floor_seconds(embedder: SentenceEmbedder, sentences: list[str]) -> tuple[float, float]:
    """Seconds the encoder's matrix products over the embedder's batches need at this CPU's fp32 matmul rate, and
    that rate (GFLOP/s). Per token and layer: the Q, K, V and output projections (4 d^2 multiply-adds), the
    feed-forward pair (2 d f) and attention over the padded width (2 T d)."""
    config = embedder.model.config
    d, f, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    flop = 0
    for _, inputs in embedder.batches(embedder.tokenize(sentences)):
        rows, width = inputs["input_ids"].shape
        flop += 2 * rows * width * layers * (4 * d * d + 2 * d * f + 2 * width * d)
    a, w = torch.randn(1024, d), torch.randn(d, f)
    for _ in range(3):
        a @ w
    start = time.perf_counter()
    for _ in range(50):
        a @ w
    rate = 50 * 2 * 1024 * d * f / (time.perf_counter() - start)
    return flop / rate, rate / 1e9


def cache_seconds(embedder: SentenceEmbedder, sentences: list[str], key: EncoderKey) -> tuple[float, float]:
    """Wall time of embedding into an empty cache, and of a second, fully cached call."""
    with tempfile.TemporaryDirectory() as root:
        cache = EmbeddingCache(root, key)
        start = time.perf_counter()
        cache.embed(sentences, embedder, progress=False)
        cold = time.perf_counter() - start
        start = time.perf_counter()
        cache.embed(sentences, embedder, progress=False)
        return cold, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset_config", default="agr_en_typeI")
    parser.add_argument("--dataset_path", default=None)
    parser.add_argument("--encoder", default=DEFAULT_ENCODER_ALIAS)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--max_sentences", type=int, default=0, help="time only the first N unique sentences (0 = all)")
    parser.add_argument("--repeats", type=int, default=3, help="alternate raw/cached measurements, report medians")
    parser.add_argument("--output", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    occurrences = sentence_occurrences(None if args.dataset_path else args.dataset_config, args.dataset_path)
    unique = list(dict.fromkeys(occurrences))
    timed = unique[: args.max_sentences] if args.max_sentences > 0 else unique
    timed_occurrences = [s for s in occurrences if s in set(timed)]
    model, tokenizer = load_encoder(args.encoder)
    embedder = SentenceEmbedder(model, tokenizer, batch_size=args.batch_size)
    key = EncoderKey(args.encoder, "benchmark", "mean", 128)
    raw_forward_seconds(embedder, timed[: args.batch_size])  # warm-up

    raw, cold, warm = [], [], []
    for _ in range(args.repeats):
        raw.append(raw_forward_seconds(embedder, timed))
        c, w = cache_seconds(embedder, timed_occurrences, key)
        cold.append(c)
        warm.append(w)
    floor, rate = matmul_floor_seconds(embedder, timed)
    figures = {
        "dataset": args.dataset_path or args.dataset_config,
        "encoder": args.encoder,
        "sentence_occurrences": len(occurrences),
        "unique_sentences": len(unique),
        "forward_passes_saved_by_dedup": len(occurrences) - len(unique),
        "dedup_factor": round(len(occurrences) / len(unique), 2),
        "timed_unique_sentences": len(timed),
        "raw_forward_s": round(statistics.median(raw), 2),
        "embedding_cold_cache_s": round(statistics.median(cold), 2),
        "embedding_warm_cache_s": round(statistics.median(warm), 3),
        "embedding_over_raw_forward": round(statistics.median(c / r for c, r in zip(cold, raw)), 3),
        "matmul_floor_s": round(floor, 2),
        "fp32_matmul_gflops": round(rate, 1),
        "raw_forward_over_floor": round(statistics.median(raw) / floor, 2),
        "target_ratio": 1.25,
        "repeats": args.repeats,
        "torch_threads": torch.get_num_threads(),
    }
    print(json.dumps(figures, indent=2))
    if args.output:
        Path(args.output).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
