"""Stacked heads (blm_models/stacked_heads.py) train exactly like separate runs: same seeds, same weights."""

from __future__ import annotations

import pytest
import torch
from transformers import BertConfig

from blm_models.configuration import BlmConfig
from blm_models.modeling import BlmModel
from blm_models.stacked_heads import InstanceIndex, StackSettings, evaluate_stack, train_stack

D, C, A = 12, 3, 4


def tiny_config(**overrides) -> BlmConfig:
    encoder = BertConfig(hidden_size=D, num_hidden_layers=1, num_attention_heads=2, intermediate_size=16,
                         vocab_size=30)
    return BlmConfig(encoder_config=encoder, context_length=C, **overrides)


def toy_split(n: int, sentences: int, generator: torch.Generator) -> InstanceIndex:
    """Instances whose gold answer is the sentence closest to the mean of the context (learnable, not trivial)."""
    context = torch.randint(0, sentences, (n, C), generator=generator)
    answers = torch.randint(0, sentences, (n, A), generator=generator)
    answers[: n // 3, -1] = -1  # some answer sets are shorter: padding must never be picked
    gold = torch.randint(0, A - 1, (n,), generator=generator)
    return InstanceIndex(context, answers, gold)


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Tiny matmuls: a second thread only adds synchronisation (tens of ms per op on a loaded machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def data():
    generator = torch.Generator().manual_seed(7)
    tables = torch.randn(2, 60, D, generator=generator)  # two "layers"
    return tables, toy_split(90, 60, generator), toy_split(40, 60, generator), toy_split(30, 60, generator)


SETTINGS = StackSettings(epochs=12, patience=2, batch_size=32, learning_rate=3e-3)


def test_stacked_heads_match_separate_runs_with_early_stopping(data):
    tables, train, validation, test = data
    config = tiny_config(center_context=True)
    stacked = train_stack(config, [0, 1, 2], tables, train, validation, SETTINGS)
    picks = evaluate_stack(config, stacked, tables, test)
    for position, seed in enumerate([0, 1, 2]):
        alone = train_stack(config, [seed], tables, train, validation, SETTINGS)
        assert stacked.best_epoch[position] == alone.best_epoch[0]
        assert stacked.epochs_trained[position] == alone.epochs_trained[0]
        assert stacked.best_validation[position] == pytest.approx(alone.best_validation[0])
        for name, value in alone.parameters.items():
            torch.testing.assert_close(stacked.parameters[name][position], value[0], atol=2e-5, rtol=1e-4)
        assert torch.equal(picks[position], evaluate_stack(config, alone, tables, test)[0])
    # early stopping did stop heads at different epochs, and before the last epoch
    assert min(stacked.epochs_trained) < SETTINGS.epochs
    assert len(set(stacked.history[0])) > 1


def test_heads_reading_different_tables_match_runs_on_each_table(data):
    tables, train, validation, _ = data
    config = tiny_config()
    stacked = train_stack(config, [5, 5], tables, train, validation, SETTINGS, table_of=[0, 1])
    for layer in (0, 1):
        alone = train_stack(config, [5], tables[layer: layer + 1], train, validation, SETTINGS)
        assert stacked.best_validation[layer] == pytest.approx(alone.best_validation[0])
        for name, value in alone.parameters.items():
            torch.testing.assert_close(stacked.parameters[name][layer], value[0], atol=2e-5, rtol=1e-4)
    assert stacked.best_validation[0] != stacked.best_validation[1] or stacked.history[0] != stacked.history[1]


@pytest.mark.parametrize("overrides", [{"score": "cosine"}, {"score": "dot", "margin_reduction": "mean"}])
def test_one_stacked_head_trains_like_blm_model_with_adam(data, overrides):
    """The stack computes what BlmModel.forward computes (scores, max-margin loss of either reduction) under plain
    Adam."""
    tables, train, validation, _ = data
    config = tiny_config(center_context=True, **overrides)
    settings = StackSettings(epochs=3, patience=0, batch_size=32, learning_rate=3e-3)
    stacked = train_stack(config, [11], tables, train, validation, settings)

    torch.manual_seed(11)
    from blm_models.heads import build_head

    initial = build_head(config).state_dict()
    model = BlmModel(config)
    model.head.load_state_dict(initial)
    optimizer = torch.optim.Adam(model.parameters(), lr=settings.learning_rate)
    generator = torch.Generator().manual_seed(11)
    best, best_state = -1.0, None
    for _ in range(settings.epochs):
        model.train()
        order = torch.randperm(len(train), generator=generator)
        for begin in range(0, len(train), settings.batch_size):
            rows = order[begin: begin + settings.batch_size]
            answers = train.answers[rows]
            output = model(context_embeddings=tables[0][train.context[rows]],
                           answer_embeddings=tables[0][answers.clamp(min=0)], answer_mask=answers >= 0,
                           labels=train.gold[rows])
            optimizer.zero_grad()
            output.loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            answers = validation.answers
            scores = model(context_embeddings=tables[0][validation.context],
                           answer_embeddings=tables[0][answers.clamp(min=0)], answer_mask=answers >= 0).logits
        accuracy = (scores.argmax(-1) == validation.gold).float().mean().item()
        if accuracy > best:
            best, best_state = accuracy, {k: v.clone() for k, v in model.head.state_dict().items()}
    assert stacked.best_validation[0] == pytest.approx(best)
    for name, value in best_state.items():
        torch.testing.assert_close(stacked.parameters[name][0], value, atol=2e-5, rtol=1e-4)


def test_padded_candidates_are_never_picked(data):
    tables, train, validation, test = data
    config = tiny_config()
    result = train_stack(config, [3], tables, train, validation, StackSettings(epochs=1, patience=0, batch_size=32))
    picks = evaluate_stack(config, result, tables, test)[0]
    assert bool((test.answers[torch.arange(len(test)), picks] >= 0).all())


def test_a_table_per_head_is_checked(data):
    tables, train, validation, _ = data
    with pytest.raises(ValueError, match="one table per head"):
        train_stack(tiny_config(), [0, 1], tables, train, validation, SETTINGS, table_of=[0, 2])


def test_a_head_at_perfect_validation_stops_with_the_results_of_training_on(data):
    tables, train, _, _ = data
    config = tiny_config()
    validation = InstanceIndex(train.context[:2], train.answers[:2], train.gold[:2])  # 2 training instances: soon 1
    everything = train_stack(config, [4], tables, train, validation,
                             StackSettings(epochs=12, patience=0, batch_size=32, learning_rate=3e-3))
    assert 1.0 in everything.history[0] and everything.epochs_trained[0] == 12
    stopped = train_stack(config, [4], tables, train, validation,
                          StackSettings(epochs=12, patience=50, batch_size=32, learning_rate=3e-3))
    first_perfect = everything.history[0].index(1.0) + 1
    assert stopped.epochs_trained[0] == stopped.best_epoch[0] == everything.best_epoch[0] == first_perfect
    for name, value in everything.parameters.items():
        torch.testing.assert_close(stopped.parameters[name], value)
