"""Heads, scoring and losses of blm_models: shapes, masking, the papers' equations."""

from __future__ import annotations

import pytest
import torch
from transformers import BertConfig

from conftest_models import single_torch_thread  # noqa: F401 (fixture)

from blm_models import BlmConfig, BlmModel, grid_shape
from blm_models.heads import HEAD_CLASSES, build_head
from blm_models.losses import CandidateScorer, MaxMarginLoss, gaussian_kl

TINY_BERT = BertConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64, vocab_size=50)


def config(**overrides) -> BlmConfig:
    """A BlmConfig over a 32-d encoder config."""
    return BlmConfig(encoder_config=TINY_BERT, **overrides)


def test_grid_shape_is_32x24_for_768_as_in_the_paper_and_near_4_to_3_otherwise():
    assert grid_shape(768) == (32, 24)
    assert grid_shape(384) == (24, 16)
    rows, cols = grid_shape(32)
    assert rows * cols == 32


@pytest.mark.parametrize("head", sorted(HEAD_CLASSES))
@pytest.mark.parametrize("context_length", [7, 4])
def test_every_head_maps_a_context_to_one_embedding(head, context_length):
    torch.manual_seed(0)
    module = build_head(config(head=head, context_length=context_length))
    output = module(torch.randn(5, context_length, 32))
    assert output.prediction.shape == (5, 32)
    if head in ("sentence_vae", "two_level_vae"):
        assert output.auxiliary_loss is not None and output.auxiliary_loss.ndim == 0
    else:
        assert output.auxiliary_loss is None


def test_ffnn_layers_follow_7d_to_3_5d_to_3_5d_to_d():
    module = build_head(config(head="ffnn"))
    shapes = [tuple(layer.weight.shape) for layer in module.layers if isinstance(layer, torch.nn.Linear)]
    assert shapes == [(112, 224), (112, 112), (32, 112)]


def test_a_context_of_the_wrong_length_is_a_clear_error():
    module = build_head(config(head="ffnn", context_length=7))
    with pytest.raises(ValueError, match="contexts of 7 sentences"):
        module(torch.randn(2, 4, 32))


def test_unknown_head_or_score_names_list_the_valid_ones():
    with pytest.raises(ValueError, match="ffnn, cnn, sentence_vae, two_level_vae"):
        config(head="transformer")
    with pytest.raises(ValueError, match="dot, cosine"):
        config(score="euclid")


def test_max_margin_sum_is_equation_1_and_mean_is_equation_3():
    scores = torch.tensor([[0.9, 0.5, 0.2]])
    gold = torch.tensor([0])
    expected_sum = (1 - 0.9 + 0.5) + (1 - 0.9 + 0.2)
    expected_mean = 1 - 0.9 + (0.5 + 0.2) / 2
    assert MaxMarginLoss(reduction="sum")(scores, gold).item() == pytest.approx(expected_sum)
    assert MaxMarginLoss(reduction="mean")(scores, gold).item() == pytest.approx(expected_mean)


def test_padded_candidates_change_neither_scores_nor_loss():
    torch.manual_seed(0)
    prediction, answers = torch.randn(2, 8), torch.randn(2, 3, 8)
    padded = torch.cat([answers, torch.randn(2, 2, 8) * 100], dim=1)
    mask = torch.tensor([[True] * 3 + [False] * 2] * 2)
    scorer, loss = CandidateScorer("dot"), MaxMarginLoss()
    gold = torch.tensor([1, 2])
    plain = scorer(prediction, answers)
    masked = scorer(prediction, padded, mask)
    assert torch.allclose(masked[:, :3], plain)
    assert (masked.argmax(-1) < 3).all()
    assert loss(masked, gold, mask).item() == pytest.approx(loss(plain, gold).item())


def test_cosine_scores_ignore_vector_length():
    prediction, answers = torch.randn(1, 8), torch.randn(1, 4, 8)
    scorer = CandidateScorer("cosine")
    assert torch.allclose(scorer(prediction, answers), scorer(prediction * 7, answers * 3), atol=1e-6)


def test_kl_of_the_standard_normal_is_zero():
    assert gaussian_kl(torch.zeros(3, 5), torch.zeros(3, 5)).abs().max().item() == 0.0
    assert (gaussian_kl(torch.ones(3, 5), torch.zeros(3, 5)) > 0).all()


@pytest.mark.parametrize("head", ["sentence_vae", "two_level_vae"])
def test_vae_heads_sample_while_training_and_use_the_mean_when_evaluating(head):
    torch.manual_seed(0)
    module = build_head(config(head=head))
    context = torch.randn(3, 7, 32)
    module.eval()
    assert torch.equal(module(context).prediction, module(context).prediction)
    module.train()
    assert not torch.equal(module(context).prediction, module(context).prediction)


def test_two_level_vae_loss_adds_the_sentence_level_terms_of_equation_6():
    torch.manual_seed(0)
    module = build_head(config(head="two_level_vae", kl_weight=0.0)).eval()
    context = torch.randn(2, 7, 32)
    latents, sentence_loss = module.sentence_level(context)
    assert latents.shape == (2, 7, 5)
    assert module(context).auxiliary_loss.item() == pytest.approx(sentence_loss.item())
    assert sentence_loss.item() > 0


def test_model_loss_is_max_margin_plus_the_head_terms():
    torch.manual_seed(0)
    model = BlmModel(config(head="sentence_vae", kl_weight=0.5)).eval()
    context, answers = torch.randn(4, 7, 32), torch.randn(4, 6, 32)
    labels = torch.tensor([0, 1, 2, 3])
    output = model(context_embeddings=context, answer_embeddings=answers, labels=labels)
    head_output = model.head(context)
    margin = model.margin_loss(model.scorer(head_output.prediction, answers), labels)
    assert output.loss.item() == pytest.approx((margin + head_output.auxiliary_loss).item(), rel=1e-5)
    assert output.logits.shape == (4, 6)


def test_center_context_makes_picks_blind_to_what_all_sentences_of_an_instance_share():
    torch.manual_seed(0)
    context, answers = torch.randn(8, 7, 32), torch.randn(8, 6, 32)
    shared = 5 * torch.randn(8, 1, 32)  # e.g. the words every sentence of a type I instance repeats
    centred = BlmModel(config(head="ffnn", center_context=True)).eval()
    plain = BlmModel(config(head="ffnn")).eval()
    plain.load_state_dict(centred.state_dict())
    with torch.no_grad():
        before = centred(context_embeddings=context, answer_embeddings=answers).logits
        after = centred(context_embeddings=context + shared, answer_embeddings=answers + shared).logits
        plain_before = plain(context_embeddings=context, answer_embeddings=answers).logits.argmax(-1)
        plain_after = plain(context_embeddings=context + shared, answer_embeddings=answers + shared).logits.argmax(-1)
    assert torch.equal(before.argmax(-1), after.argmax(-1))
    assert torch.allclose(before - before.mean(-1, keepdim=True), after - after.mean(-1, keepdim=True), atol=1e-3)
    assert not torch.equal(plain_before, plain_after)  # without centring the shift does change picks
