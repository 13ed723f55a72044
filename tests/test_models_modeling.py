"""BlmModel: Auto* registration, save/load round trips, safetensors only, clear errors on bad input."""

from __future__ import annotations

import datasets
import pytest
import torch
from conftest_models import make_agreement_dataset, tiny_encoder_dir, single_torch_thread  # noqa: F401 (fixtures)
from safetensors.torch import load_file
from transformers import AutoConfig, AutoModel

from blm_models import BlmConfig, BlmModel, CheckpointMismatchError
from blm_models.encoders import UnknownEncoderError, load_encoder


@pytest.fixture(scope="module")
def records():
    return [make_agreement_dataset(n_train=1, n_test=6, seed=11)["test"][i] for i in range(6)]


@pytest.mark.parametrize("train_encoder", [False, True], ids=["frozen", "end_to_end"])
def test_automodel_loads_a_saved_checkpoint_with_identical_predictions(tmp_path, tiny_encoder_dir, records,
                                                                        train_encoder):
    torch.manual_seed(0)
    model = BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn", train_encoder=train_encoder)
    before = model.predict(records)
    scores = model(**_raw_inputs(model, records)).logits
    model.save_pretrained(tmp_path / "ckpt")
    loaded = AutoModel.from_pretrained(tmp_path / "ckpt")
    assert isinstance(loaded, BlmModel) and isinstance(AutoConfig.from_pretrained(tmp_path / "ckpt"), BlmConfig)
    assert loaded.predict(records) == before
    assert torch.equal(loaded(**_raw_inputs(loaded, records)).logits, scores)
    saved = set(load_file(str(tmp_path / "ckpt" / "model.safetensors")))
    assert any(name.startswith("encoder.") for name in saved) == train_encoder
    assert not list((tmp_path / "ckpt").glob("*.bin"))


def _raw_inputs(model: BlmModel, records) -> dict:
    from blm_models.collator import SentenceBatcher

    return SentenceBatcher(model.tokenizer()).batch([r["context"] for r in records], [r["answers"] for r in records])


@pytest.mark.parametrize("head", ["cnn", "two_level_vae"])
def test_vae_and_cnn_checkpoints_round_trip_too(tmp_path, tiny_encoder_dir, records, head):
    torch.manual_seed(0)
    model = BlmModel.from_encoder(str(tiny_encoder_dir), head=head)
    model.save_pretrained(tmp_path / head)
    assert AutoModel.from_pretrained(tmp_path / head).predict(records) == model.predict(records)


def test_loading_a_checkpoint_with_another_head_is_a_clear_error(tmp_path, tiny_encoder_dir):
    BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn").save_pretrained(tmp_path / "ffnn")
    with pytest.raises(CheckpointMismatchError, match="holds a 'ffnn' head, but the config asks for 'cnn'"):
        AutoModel.from_pretrained(tmp_path / "ffnn", head="cnn")
    config = BlmConfig.from_pretrained(tmp_path / "ffnn")
    config.context_length = 4
    with pytest.raises(CheckpointMismatchError, match="does not (match|fit)"):
        BlmModel.from_pretrained(tmp_path / "ffnn", config=config)


def test_only_safetensors_checkpoints_are_loaded(tmp_path, tiny_encoder_dir):
    model = BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn")
    model.save_pretrained(tmp_path / "pickled")
    state = load_file(str(tmp_path / "pickled" / "model.safetensors"))
    (tmp_path / "pickled" / "model.safetensors").unlink()
    torch.save(state, tmp_path / "pickled" / "pytorch_model.bin")
    with pytest.raises(OSError, match="safetensors"):
        BlmModel.from_pretrained(tmp_path / "pickled")


def test_an_unknown_encoder_name_says_what_to_pass_instead():
    with pytest.raises(UnknownEncoderError, match="cannot load encoder 'no-such-org/no-such-encoder'.*offline"):
        load_encoder("no-such-org/no-such-encoder")
    with pytest.raises(UnknownEncoderError, match="all-MiniLM-L6-v2"):
        BlmModel.from_encoder("/definitely/not/a/folder")


def test_frozen_model_reloads_its_encoder_by_name_to_read_raw_text(tmp_path, tiny_encoder_dir, records):
    torch.manual_seed(0)
    model = BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn")
    model.save_pretrained(tmp_path / "frozen")
    loaded = BlmModel.from_pretrained(tmp_path / "frozen")
    assert loaded.encoder is None and loaded.config.encoder_name_or_path == str(tiny_encoder_dir)
    assert loaded.predict(records) == model.predict(records)
    assert loaded.predict(datasets.Dataset.from_list(records)) == model.predict(records)
    assert all(not p.requires_grad for p in loaded.sentence_encoder().parameters())


def test_picks_from_raw_text_equal_picks_from_cached_embeddings(tiny_encoder_dir, records):
    from blm_models.embedding_cache import SentenceEmbedder

    torch.manual_seed(0)
    model = BlmModel.from_encoder(str(tiny_encoder_dir), head="ffnn").eval()
    embedder = SentenceEmbedder(model.sentence_encoder(), model.tokenizer())
    picks = []
    for record in records:
        table = embedder.embed(record["context"] + record["answers"], progress=False)
        output = model(context_embeddings=table[None, :7], answer_embeddings=table[None, 7:])
        picks.append(int(output.logits.argmax()))
    assert model.predict(records) == picks
