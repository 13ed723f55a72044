"""All layers from one pass (blm_models/layer_embeddings.py) equal what train.py embeds one layer at a time, under
the same embedding-cache keys."""

from __future__ import annotations

import torch
from conftest_models import build_tiny_encoder, single_torch_thread  # noqa: F401 (fixture)

from blm_models.embedding_cache import EmbeddingCache, EncoderKey, SentenceEmbedder
from blm_models.encoders import encoder_revision_id, load_encoder
from blm_models.layer_embeddings import layer_tables

SENTENCES = ["The dog with the program is new .", "The dogs near the trees are new .", "The song is ready .",
             "The dog with the program is new ."]


def test_every_layer_in_one_pass_matches_single_layer_embedding_and_fills_the_same_cache(tmp_path):
    encoder_dir = str(build_tiny_encoder(tmp_path / "encoder"))
    cache = tmp_path / "cache"
    tables, layers, counts = layer_tables(SENTENCES, encoder_dir, None, cache, progress=False)
    assert layers == [0, 1, 2] and tables.shape == (3, 4, 32)
    assert counts == {"sentences": 3, "computed": 3}
    model, tokenizer = load_encoder(encoder_dir)
    revision = encoder_revision_id(encoder_dir, None, model)
    for position, layer in enumerate(layers):
        alone = SentenceEmbedder(model, tokenizer, "mean", 128, 64, layer).embed(SENTENCES, progress=False)
        torch.testing.assert_close(tables[position], alone, atol=1e-5, rtol=1e-5)

        class Refuses(SentenceEmbedder):
            def embed(self, sentences, progress=True):
                raise AssertionError(f"layer {layer} was not cached: {sentences}")

        key = EncoderKey(name=encoder_dir, revision=revision, pooling="mean", max_length=128, layer=layer)
        cached, stats = EmbeddingCache(cache, key).embed(SENTENCES, Refuses(model, tokenizer), progress=False)
        assert stats["computed"] == 0
        torch.testing.assert_close(cached, tables[position])
    again, _, counts = layer_tables(SENTENCES, encoder_dir, [-1], cache, progress=False)
    assert counts["computed"] == 0
    torch.testing.assert_close(again[0], tables[2])


def test_a_middle_layer_alone_never_runs_the_layers_above_it(tmp_path):
    encoder_dir = str(build_tiny_encoder(tmp_path / "encoder"))
    model, tokenizer = load_encoder(encoder_dir)
    top_calls = []
    model.encoder.layer[-1].register_forward_hook(lambda *args: top_calls.append(1))
    tables, layers, _ = layer_tables(SENTENCES, encoder_dir, [1], tmp_path / "cache", progress=False,
                                     loaded=(model, tokenizer))
    assert layers == [1] and not top_calls
    assert len(model.encoder.layer) == 2  # the stack is whole again
    full = SentenceEmbedder(model, tokenizer, "mean", 128, 64, 1).embed(SENTENCES, progress=False)
    torch.testing.assert_close(tables[0], full, atol=1e-5, rtol=1e-5)
    everything, _, _ = layer_tables(SENTENCES, encoder_dir, [2], tmp_path / "other", progress=False,
                                    loaded=(model, tokenizer))
    assert top_calls  # the last layer asked for does run
