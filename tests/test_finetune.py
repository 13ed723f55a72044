"""Fast fine-tuning: the encoder truncated at the pooled layer, only the top layers trained, the frozen layers run
once, and early stopping on validation accuracy."""

from __future__ import annotations

import json

import pytest
import torch
from conftest_models import (  # noqa: F401 (fixtures)
    embedding_cache_dir,
    make_agreement_dataset,
    single_torch_thread,
    small_agreement_dir,
    tiny_encoder_dir,
)
from safetensors.torch import load_file
from transformers import AutoModel, BertConfig, BertModel, GPT2Config, GPT2Model

from blm_models import BlmModel
from blm_models.collator import FrozenStateCollator, TokenizingCollator
from blm_models.data import SentenceIndex
from blm_models.encoders import load_encoder, pool, token_states
from blm_models.errors import UsageError
from blm_models.finetune import (
    cached_path_agrees,
    frozen_state_table,
    layer_stack,
    length_buckets,
    truncate_encoder,
    truncation_depth,
)
from blm_models.train_job import main


def tiny_bert(layers: int = 4, dropout: float = 0.1, seed: int = 0) -> BertModel:
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=60, hidden_size=32, num_hidden_layers=layers, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=32, hidden_dropout_prob=dropout,
                        attention_probs_dropout_prob=dropout)
    return BertModel(config).eval()


def token_batch(seed: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """Three sentences of different lengths (right-padded)."""
    generator = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(5, 60, (3, 10), generator=generator)
    attention_mask = torch.ones_like(input_ids)
    attention_mask[1, 6:] = 0
    attention_mask[2, 3:] = 0
    return input_ids, attention_mask


@pytest.mark.parametrize("layer", [1, 2, 3])
def test_a_truncated_encoder_pools_the_states_of_the_full_encoder_at_that_layer(layer):
    full = tiny_bert()
    input_ids, mask = token_batch()
    expected = full(input_ids=input_ids, attention_mask=mask, output_hidden_states=True).hidden_states[layer]
    cut = truncate_encoder(tiny_bert(), layer)
    assert len(cut.encoder.layer) == cut.config.num_hidden_layers == layer
    states = cut(input_ids=input_ids, attention_mask=mask).last_hidden_state
    assert torch.allclose(pool(states, mask, "mean"), pool(expected, mask, "mean"), atol=1e-6)
    assert torch.allclose(states[mask.bool()], expected[mask.bool()], atol=1e-6)


def test_a_middle_layer_is_computed_without_the_layers_above_it_and_the_encoder_is_left_whole():
    encoder = tiny_bert()
    input_ids, mask = token_batch()
    hidden = encoder(input_ids=input_ids, attention_mask=mask, output_hidden_states=True).hidden_states
    calls = []
    handle = encoder.encoder.layer[3].register_forward_hook(lambda *args: calls.append(1))
    for layer in range(5):
        assert torch.equal(token_states(encoder, input_ids, mask, layer), hidden[layer])
    assert len(calls) == 1  # layer 4's states only (the last one, through last_hidden_state)
    handle.remove()
    assert len(encoder.encoder.layer) == encoder.config.num_hidden_layers == 4


def test_only_bert_like_middle_layers_are_truncated():
    assert truncation_depth(tiny_bert(), 2) == 2
    assert truncation_depth(tiny_bert(), -1) is None and truncation_depth(tiny_bert(), 4) is None
    assert truncation_depth(tiny_bert(), 0) is None
    gpt = GPT2Model(GPT2Config(n_embd=32, n_layer=3, n_head=2, vocab_size=60, n_positions=32))
    assert layer_stack(gpt) is None and truncation_depth(gpt, 2) is None  # its last states pass a final norm


def test_a_fine_tuned_model_keeps_the_layers_up_to_the_pooled_one_and_reloads_identically(tmp_path):
    encoder = tiny_bert()
    model = BlmModel.from_encoder(encoder, train_encoder=True, hidden_layer=2, context_length=3)
    assert model.config.truncated_to == 2 and len(model.encoder.encoder.layer) == 2
    assert model.config.encoder_config.num_hidden_layers == 2
    input_ids, mask = token_batch()
    model.eval()
    expected = pool(encoder(input_ids=input_ids, attention_mask=mask, output_hidden_states=True).hidden_states[2],
                    mask, "mean")
    assert torch.allclose(model.embed_tokens(input_ids, mask), expected, atol=1e-6)
    model.save_pretrained(tmp_path / "ckpt")
    assert not any(".layer.2." in name for name in load_file(str(tmp_path / "ckpt" / "model.safetensors")))
    loaded = AutoModel.from_pretrained(tmp_path / "ckpt").eval()
    assert loaded.config.truncated_to == 2 and len(loaded.encoder.encoder.layer) == 2
    inputs = {"input_ids": input_ids, "attention_mask": mask, "context_index": torch.tensor([[0, 1, 2]]),
              "answer_index": torch.tensor([[2, 1, 0]])}
    assert torch.equal(loaded.embed_tokens(input_ids, mask), model.embed_tokens(input_ids, mask))
    assert torch.allclose(loaded(**inputs).logits, model(**inputs).logits, atol=1e-6)  # the head's matmul, not bitwise


def test_only_the_top_layers_train_and_the_frozen_part_runs_without_dropout():
    model = BlmModel.from_encoder(tiny_bert(), train_encoder=True, hidden_layer=3, train_top_layers=1,
                                  context_length=3)
    trainable = {name for name, parameter in model.encoder.named_parameters() if parameter.requires_grad}
    assert trainable and all(name.startswith("encoder.layer.2.") for name in trainable)
    assert all(p.requires_grad for p in model.head.parameters())
    model.train()
    assert model.encoder.encoder.layer[2].training and model.head.training
    assert not model.encoder.embeddings.training and not model.encoder.encoder.layer[1].training


def test_top_layers_on_cached_frozen_states_give_the_same_scores_and_gradients_as_the_full_pass(tiny_encoder_dir):
    records = make_agreement_dataset(n_train=4, n_test=1, seed=3)["train"]
    encoder, tokenizer = load_encoder(str(tiny_encoder_dir))
    encoder.config.hidden_dropout_prob = encoder.config.attention_probs_dropout_prob = 0.0
    torch.manual_seed(0)
    model = BlmModel.from_encoder(encoder, tokenizer=tokenizer, train_encoder=True, hidden_layer=2,
                                  train_top_layers=1, context_length=7)
    index = SentenceIndex(["Correct", "Coord", "WNA", "WN1", "WN2", "AEV", "AEN1", "AEN2"])
    rows = list(index.index(records))
    assert cached_path_agrees(model.encoder, tokenizer, index.sentences, 1, 128)
    table = frozen_state_table(model.encoder, tokenizer, index.sentences, 1, 128)
    results = []
    for collator in (TokenizingCollator(index.sentences, tokenizer), FrozenStateCollator(table)):
        model.zero_grad()
        batch = collator(rows)
        inputs = {k: v for k, v in batch.items() if k not in ("answer_label_ids", "answer_class_ids")}
        model.train()
        output = model(**inputs)
        output.loss.backward()
        top = model.encoder.encoder.layer[1].output.dense.weight.grad.clone()
        results.append((output.logits.detach(), top))
    assert torch.allclose(results[0][0], results[1][0], atol=1e-5)
    assert torch.allclose(results[0][1], results[1][1], atol=1e-5)
    assert model.encoder.encoder.layer[0].output.dense.weight.grad is None


def test_length_buckets_cover_every_row_once_and_group_similar_lengths():
    lengths = torch.tensor([5, 1, 9, 3] * 50)
    mask = (torch.arange(9).unsqueeze(0) < lengths.unsqueeze(1)).long()
    buckets = length_buckets(mask)
    assert len(buckets) == 3  # 200 rows: one bucket per 64, at most 4
    rows = torch.cat([rows for rows, _ in buckets])
    assert sorted(rows.tolist()) == list(range(200))
    widths = [width for _, width in buckets]
    assert widths == sorted(widths) and widths[0] < 9 and widths[-1] == 9
    assert all(int(lengths[rows].max()) == width for rows, width in buckets)
    assert len(length_buckets(mask[:100])) == 1


@pytest.mark.parametrize("cached", [False, True])
def test_sentences_run_in_length_buckets_give_the_padded_pass_s_embeddings_and_gradients(tiny_encoder_dir, cached,
                                                                                          monkeypatch):
    encoder, tokenizer = load_encoder(str(tiny_encoder_dir))
    encoder.config.hidden_dropout_prob = encoder.config.attention_probs_dropout_prob = 0.0
    torch.manual_seed(0)
    model = BlmModel.from_encoder(encoder, tokenizer=tokenizer, train_encoder=True, hidden_layer=2,
                                  train_top_layers=1, context_length=7)
    words = "the cat dog house red blue runs sleeps quickly near old".split()
    rng = __import__("random").Random(0)
    sentences = sorted({" ".join(rng.choices(words, k=rng.randint(2, 12))) for _ in range(300)})
    model.train()
    results = []
    for buckets in (4, 1):
        monkeypatch.setattr("blm_models.finetune.MAX_BUCKETS", buckets)
        model.zero_grad()
        if cached:
            table = frozen_state_table(model.encoder, tokenizer, sentences, 1, 128)
            states, mask = table.gather(torch.arange(len(sentences)))
            embeddings = model.embed_frozen_states(states, mask)
        else:
            encoded = tokenizer(sentences, padding=True, return_tensors="pt")
            embeddings = model.embed_tokens(encoded["input_ids"], encoded["attention_mask"])
        (embeddings * torch.linspace(-1, 1, embeddings.shape[-1])).sum().backward()
        results.append((embeddings.detach(), model.encoder.encoder.layer[1].output.dense.weight.grad.clone()))
    assert torch.allclose(results[0][0], results[1][0], atol=1e-5)
    assert torch.allclose(results[0][1], results[1][1], atol=1e-4)


def test_train_py_fine_tunes_only_the_top_layer_on_cached_frozen_states(tmp_path, small_agreement_dir,
                                                                         tiny_encoder_dir, embedding_cache_dir):
    report = main(["--dataset_path", str(small_agreement_dir), "--encoder", str(tiny_encoder_dir),
                   "--embedding_cache_dir", str(embedding_cache_dir), "--output_dir", str(tmp_path),
                   "--train_encoder", "true", "--hidden_layer", "1", "--train_top_layers", "1",
                   "--encoder_learning_rate", "1e-3", "--num_train_epochs", "2", "--disable_tqdm", "true",
                   "--logging_strategy", "no", "--per_device_train_batch_size", "16"])
    assert report["data"]["sentences"]["frozen_layers_cached"] is True
    saved = json.loads((tmp_path / "config.json").read_text())
    assert saved["truncated_to"] == 1 and saved["train_top_layers"] == 1
    assert saved["encoder_config"]["num_hidden_layers"] == 1
    weights = load_file(str(tmp_path / "model.safetensors"))
    original = load_file(str(tiny_encoder_dir / "model.safetensors"))
    assert torch.equal(weights["encoder.embeddings.word_embeddings.weight"], original["embeddings.word_embeddings.weight"])
    name = "encoder.layer.0.output.dense.weight"
    assert not torch.equal(weights[f"encoder.{name}"], original[name])
    assert not any(".layer.1." in key for key in weights)


def test_training_stops_once_validation_accuracy_stops_improving(tmp_path, small_agreement_dir, tiny_encoder_dir,
                                                                 embedding_cache_dir):
    def run(folder, *extra):
        return main(["--dataset_path", str(small_agreement_dir), "--encoder", str(tiny_encoder_dir),
                     "--embedding_cache_dir", str(embedding_cache_dir), "--output_dir", str(tmp_path / folder),
                     "--learning_rate", "1e-12", "--num_train_epochs", "4", "--disable_tqdm", "true",
                     "--per_device_train_batch_size", "32", *extra])

    # a learning rate of 1e-12 changes nothing: the first evaluation is the best one
    stopped = run("stopped", "--early_stopping_patience", "1")
    assert stopped["training"]["epoch"] == 2 and stopped["training"]["best_epoch"] == 1
    full = run("full", "--early_stopping_patience", "0")
    assert full["training"]["epoch"] == 4


@pytest.mark.parametrize("flags, message", [
    (["--train_top_layers", "1"], "only applies with --train_encoder"),
    (["--train_top_layers", "-1", "--train_encoder", "true"], "must be >= 0"),
    (["--early_stopping_patience", "-2"], "must be >= 0"),
    (["--eval_strategy", "no", "--save_strategy", "no", "--load_best_model_at_end", "false"],
     "needs an evaluation strategy"),
])
def test_fine_tuning_and_early_stopping_flags_are_checked(tmp_path, flags, message):
    from blm_models.arguments import parse_arguments

    with pytest.raises(UsageError, match=message):
        parse_arguments(["--dataset_config", "agr_en_typeI", "--output_dir", str(tmp_path), *flags])


def test_more_top_layers_than_the_encoder_keeps_is_one_line_naming_the_flag(tmp_path, capsys, small_agreement_dir,
                                                                           tiny_encoder_dir, embedding_cache_dir):
    with pytest.raises(SystemExit) as stopped:
        main(["--dataset_path", str(small_agreement_dir), "--encoder", str(tiny_encoder_dir),
              "--embedding_cache_dir", str(embedding_cache_dir), "--output_dir", str(tmp_path / "out"),
              "--train_encoder", "true", "--hidden_layer", "1", "--train_top_layers", "2"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "--train_top_layers 2: the encoder keeps 1 layers (up to --hidden_layer 1)" in err
    assert not (tmp_path / "out").exists()


def test_grouped_batches_hold_few_lemmas_and_change_every_epoch_reproducibly():
    from blm_models.trainer import GroupedBatchSampler

    groups = [f"lemma{i % 7}" for i in range(70)]  # 7 lemmas of 10 instances, interleaved
    sampler = GroupedBatchSampler(groups, batch_size=5, seed=3)
    orders = []
    for epoch in range(3):
        sampler.set_epoch(epoch)
        order = list(sampler)
        assert sorted(order) == list(range(70))
        batches = [order[i:i + 5] for i in range(0, 70, 5)]
        assert all(len({groups[i] for i in batch}) == 1 for batch in batches)  # 10 per lemma: 2 whole batches each
        orders.append(order)
    assert orders[0] != orders[1] != orders[2]
    sampler.set_epoch(1)
    assert list(sampler) == orders[1]
    assert list(GroupedBatchSampler(groups, 5, seed=4)) != orders[0]


def test_bf16_on_a_machine_without_gpu_trains_on_the_cpu(tmp_path):
    from blm_models.arguments import parse_arguments

    *_, training_args = parse_arguments(["--dataset_config", "agr_en_typeI", "--output_dir", str(tmp_path),
                                         "--bf16", "true"])
    assert training_args.bf16 and (training_args.use_cpu or torch.cuda.is_available())


def test_an_interrupted_run_with_early_stopping_stops_at_the_same_epoch_once_resumed(
        tmp_path, small_agreement_dir, tiny_encoder_dir, embedding_cache_dir):
    from transformers import TrainerCallback

    class InterruptAfterEpoch(TrainerCallback):
        def on_save(self, args, state, control, **kwargs):
            if state.epoch >= 2:
                raise KeyboardInterrupt("interrupted after epoch 2")

    def run(folder, *extra, callbacks=None):
        return main(["--dataset_path", str(small_agreement_dir), "--encoder", str(tiny_encoder_dir),
                     "--embedding_cache_dir", str(embedding_cache_dir), "--output_dir", str(tmp_path / folder),
                     "--learning_rate", "1e-12", "--num_train_epochs", "8", "--disable_tqdm", "true",
                     "--per_device_train_batch_size", "32", "--early_stopping_patience", "3",
                     "--save_strategy", "epoch", "--save_total_limit", "2", *extra], callbacks=callbacks)

    whole = run("whole")
    assert whole["training"]["epoch"] == 4  # best at 1, then 3 evaluations without improvement
    with pytest.raises(KeyboardInterrupt):
        run("resumed", callbacks=[InterruptAfterEpoch()])
    resumed = run("resumed", "--resume_from_checkpoint")
    assert resumed["training"]["epoch"] == 4  # the patience counter (1 after epoch 2) was restored


def test_training_stops_at_perfect_validation_accuracy_only_with_early_stopping(tmp_path):
    from transformers import TrainerControl, TrainerState

    from blm_models.arguments import parse_arguments
    from blm_models.train_job import StopAtPerfectValidation, training_callbacks

    def stops(accuracy: float) -> bool:
        control = TrainerControl()
        StopAtPerfectValidation().on_evaluate(training_args, TrainerState(), control,
                                              metrics={"eval_accuracy": accuracy, "eval_loss": 0.1})
        return control.should_training_stop

    *_, training_args = parse_arguments(["--dataset_config", "agr_en_typeI", "--output_dir", str(tmp_path)])
    assert stops(1.0) and not stops(0.999)
    assert any(isinstance(c, StopAtPerfectValidation) for c in training_callbacks(training_args, None))
    *_, fixed = parse_arguments(["--dataset_config", "agr_en_typeI", "--output_dir", str(tmp_path),
                                 "--early_stopping_patience", "0"])
    assert not any(isinstance(c, StopAtPerfectValidation) for c in training_callbacks(fixed, None))
