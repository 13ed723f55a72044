"""The embedding cache: each unique sentence embedded once, reused across runs, split across processes."""

from __future__ import annotations

import threading
import time

import pytest
import torch
from conftest_models import tiny_encoder_dir, single_torch_thread  # noqa: F401 (fixtures)

from blm_models.embedding_cache import EmbeddingCache, EncoderKey, SentenceEmbedder
from blm_models.encoders import encoder_revision_id, load_encoder, pool

SENTENCES = [
    "The dog near the tree is barking .",
    "The dogs near the trees are barking .",
    "The dog near the trees of the park is barking .",
    "The computer with the program is broken .",
    "The computers with the programs of the experiment are broken .",
    "The lamp is new .",
]


class CountingEncoder(torch.nn.Module):
    """Wraps an encoder and counts how many sentences went through its forward pass."""

    def __init__(self, encoder) -> None:
        super().__init__()
        self.encoder = encoder
        self.config = encoder.config
        self.sentences_seen = 0

    @property
    def device(self) -> torch.device:
        return self.encoder.device

    def forward(self, **inputs):
        self.sentences_seen += inputs["input_ids"].shape[0]
        return self.encoder(**inputs)


@pytest.fixture(scope="module")
def encoder_and_tokenizer(tiny_encoder_dir):
    return load_encoder(str(tiny_encoder_dir))


def key_for(directory, encoder, pooling: str = "mean") -> EncoderKey:
    return EncoderKey(str(directory), encoder_revision_id(str(directory), None, encoder), pooling, 128)


def test_each_unique_sentence_is_embedded_once_and_reused_by_the_next_run(
    tmp_path, tiny_encoder_dir, encoder_and_tokenizer
):
    encoder, tokenizer = encoder_and_tokenizer
    counting = CountingEncoder(encoder)
    embedder = SentenceEmbedder(counting, tokenizer, batch_size=4)
    cache = EmbeddingCache(tmp_path, key_for(tiny_encoder_dir, encoder))
    occurrences = SENTENCES * 3 + SENTENCES[:2]
    table, stats = cache.embed(occurrences, embedder, progress=False)
    assert counting.sentences_seen == len(SENTENCES)
    assert stats == {"requested": len(occurrences), "unique": len(SENTENCES), "cached": 0, "computed": len(SENTENCES)}
    assert torch.equal(table[0], table[len(SENTENCES)])
    again, stats = EmbeddingCache(tmp_path, key_for(tiny_encoder_dir, encoder)).embed(SENTENCES, embedder, progress=False)
    assert counting.sentences_seen == len(SENTENCES) and stats["computed"] == 0
    assert torch.equal(again, table[: len(SENTENCES)])
    assert all(path.suffix == ".safetensors" for path in cache.directory.iterdir())


def test_length_sorted_batches_give_the_embeddings_of_one_sentence_at_a_time(encoder_and_tokenizer):
    encoder, tokenizer = encoder_and_tokenizer
    batched = SentenceEmbedder(encoder, tokenizer, batch_size=3).embed(SENTENCES, progress=False)
    for i, sentence in enumerate(SENTENCES):
        inputs = tokenizer([sentence], return_tensors="pt")
        with torch.no_grad():
            alone = pool(encoder(**inputs).last_hidden_state, inputs["attention_mask"], "mean")[0]
        assert torch.allclose(batched[i], alone, atol=1e-5)
    lengths = [len(ids) for ids in SentenceEmbedder(encoder, tokenizer).tokenize(SENTENCES)]
    widths = [inputs["input_ids"].shape[1] for _, inputs in SentenceEmbedder(encoder, tokenizer, 2).batches(
        SentenceEmbedder(encoder, tokenizer).tokenize(SENTENCES))]
    assert widths == sorted(widths, reverse=True) and widths[0] == max(lengths)


def test_pooling_and_weights_are_part_of_the_cache_key(tmp_path, tiny_encoder_dir, encoder_and_tokenizer):
    encoder, _ = encoder_and_tokenizer
    mean_key, first_key = key_for(tiny_encoder_dir, encoder, "mean"), key_for(tiny_encoder_dir, encoder, "first")
    assert mean_key.folder_name != first_key.folder_name
    other = load_encoder(str(tiny_encoder_dir))[0]
    torch.nn.init.normal_(other.embeddings.word_embeddings.weight)
    assert encoder_revision_id(None, None, other) != encoder_revision_id(None, None, encoder)
    assert encoder_revision_id("any/name", "abc123", other) == "abc123"


def test_two_processes_split_the_missing_sentences_and_both_read_all_of_them(
    tmp_path, tiny_encoder_dir, encoder_and_tokenizer
):
    encoder, tokenizer = encoder_and_tokenizer
    barrier = threading.Barrier(2)
    counters = [CountingEncoder(encoder), CountingEncoder(encoder)]
    results: dict[int, torch.Tensor] = {}

    def run(rank: int) -> None:
        time.sleep(0.5 * rank)  # rank 1 starts late: rank 0 must not write before rank 1 knows what is missing
        cache = EmbeddingCache(tmp_path, key_for(tiny_encoder_dir, encoder))
        embedder = SentenceEmbedder(counters[rank], tokenizer)
        results[rank] = cache.embed(SENTENCES, embedder, rank=rank, world_size=2, barrier=barrier.wait,
                                    progress=False)[0]

    threads = [threading.Thread(target=run, args=(rank,)) for rank in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [c.sentences_seen for c in counters] == [3, 3]
    assert torch.equal(results[0], results[1])
    assert len(list(EmbeddingCache(tmp_path, key_for(tiny_encoder_dir, encoder)).directory.glob("shard-*"))) == 2


def test_the_pooled_layer_is_part_of_the_cache_key_and_changes_the_embedding(encoder_and_tokenizer, tiny_encoder_dir):
    encoder, tokenizer = encoder_and_tokenizer
    last = SentenceEmbedder(encoder, tokenizer).embed(SENTENCES, progress=False)
    also_last = SentenceEmbedder(encoder, tokenizer, layer=encoder.config.num_hidden_layers).embed(SENTENCES, progress=False)
    first_layer = SentenceEmbedder(encoder, tokenizer, layer=1).embed(SENTENCES, progress=False)
    assert torch.allclose(last, also_last, atol=1e-6)
    assert not torch.allclose(last, first_layer, atol=1e-3)
    key = key_for(tiny_encoder_dir, encoder)
    assert EncoderKey(key.name, key.revision, key.pooling, key.max_length, layer=1).folder_name != key.folder_name
    with pytest.raises(ValueError, match="out of range: this encoder has layers 0"):
        SentenceEmbedder(encoder, tokenizer, layer=99).embed(SENTENCES[:1], progress=False)


def test_a_change_to_the_pooling_code_is_never_served_the_old_vectors(
    tmp_path, tiny_encoder_dir, encoder_and_tokenizer, monkeypatch
):
    import blm_models.embedding_cache as embedding_cache
    import blm_models.encoders as encoders

    encoder, tokenizer = encoder_and_tokenizer
    before, _ = EmbeddingCache(tmp_path, key_for(tiny_encoder_dir, encoder)).embed(
        SENTENCES, SentenceEmbedder(encoder, tokenizer), progress=False)

    def pool(hidden, attention_mask, pooling):  # "edited" pooling: twice the mean
        return 2 * encoders.pool.__wrapped__(hidden, attention_mask, pooling)

    pool.__wrapped__ = encoders.pool
    monkeypatch.setattr(encoders, "pool", pool)
    monkeypatch.setattr(embedding_cache, "pool", pool)
    embedding_cache.embedding_code_digest.cache_clear()
    try:
        key = key_for(tiny_encoder_dir, encoder)
        after, stats = EmbeddingCache(tmp_path, key).embed(SENTENCES, SentenceEmbedder(encoder, tokenizer),
                                                           progress=False)
    finally:
        embedding_cache.embedding_code_digest.cache_clear()
    assert stats["computed"] == len(SENTENCES) and stats["cached"] == 0
    assert torch.allclose(after, 2 * before, atol=1e-5)
    assert len([path for path in tmp_path.iterdir() if path.is_dir()]) == 2  # one folder per code version
