"""From records to batches: validation carving, sentence indexing, collators for variable answer sets, metrics."""

from __future__ import annotations

import datasets
import numpy as np
import pytest
import torch
from conftest_models import make_agreement_dataset, tiny_encoder_dir, single_torch_thread  # noqa: F401 (fixtures)
from transformers import EvalPrediction

from blm_models.collator import CachedEmbeddingCollator, SentenceBatcher, TokenizingCollator
from blm_models.data import (
    MissingSplitError,
    SentenceIndex,
    answer_label_vocabulary,
    carve_validation,
    context_length_of,
    instance_key,
    load_splits,
)
from blm_models.metrics import BlmMetrics, nest_metrics, pick_highest_score


@pytest.fixture(scope="module")
def agreement() -> datasets.DatasetDict:
    return make_agreement_dataset(n_train=120, n_test=40, seed=3)


def test_validation_is_20_percent_of_train_and_shares_no_instance_with_it(agreement):
    train = agreement["train"]
    doubled = datasets.concatenate_datasets([train, train.select(range(30))])  # 30 exact duplicates
    kept, validation = carve_validation(doubled, fraction=0.2, seed=1)
    assert len(kept) + len(validation) == len(doubled)
    assert abs(len(validation) - 0.2 * len(doubled)) <= 2
    assert not {instance_key(r) for r in kept} & {instance_key(r) for r in validation}


def test_validation_carving_is_reproducible_for_a_seed(agreement):
    first = carve_validation(agreement["train"], 0.2, seed=5)[1]["id"]
    again = carve_validation(agreement["train"], 0.2, seed=5)[1]["id"]
    other = carve_validation(agreement["train"], 0.2, seed=6)[1]["id"]
    assert first == again and first != other


def test_a_dataset_without_a_test_split_is_a_clear_error(agreement, tmp_path):
    datasets.DatasetDict({"train": agreement["train"]}).save_to_disk(str(tmp_path / "no_test"))
    with pytest.raises(MissingSplitError, match="no 'test' split"):
        load_splits(dataset_path=str(tmp_path / "no_test"))


def test_context_length_comes_from_the_data_and_mixed_lengths_are_refused(agreement):
    assert context_length_of([agreement["train"]]) == 7
    short = agreement["test"].map(lambda row: {"context": row["context"][:4]})
    with pytest.raises(ValueError, match="different lengths"):
        context_length_of([agreement["train"], short])


def test_every_sentence_is_stored_once_and_instances_point_back_to_their_text(agreement):
    labels = answer_label_vocabulary([agreement["train"]])
    assert labels[0] == "Correct"
    index = SentenceIndex(labels)
    indexed = index.index(agreement["train"])
    assert len(index.sentences) == len(set(index.sentences)) < index.occurrences
    row, record = indexed[5], agreement["train"][5]
    assert [index.sentences[i] for i in row["context_ids"]] == record["context"]
    assert [index.sentences[i] for i in row["answer_ids"]] == record["answers"]
    assert [labels[i] for i in row["answer_label_ids"]] == record["answer_labels"]
    assert int(row["labels"]) == record["label"]


def test_cached_collator_pads_variable_answer_sets_and_masks_the_padding(agreement):
    index = SentenceIndex(answer_label_vocabulary([agreement["train"]]))
    indexed = index.index(agreement["train"])
    sizes = [len(indexed[i]["answer_ids"]) for i in range(len(indexed))]
    rows = [indexed[sizes.index(min(sizes))], indexed[sizes.index(max(sizes))]]
    table = torch.randn(len(index.sentences), 6)
    batch = CachedEmbeddingCollator(table)(rows)
    assert batch["context_embeddings"].shape == (2, 7, 6)
    assert batch["answer_embeddings"].shape == (2, max(sizes), 6)
    assert batch["answer_mask"].sum(dim=1).tolist() == [min(sizes), max(sizes)]
    assert (batch["answer_label_ids"][0, min(sizes):] == -100).all()
    assert torch.equal(batch["answer_embeddings"][1], table[rows[1]["answer_ids"]])


def test_tokenizing_collator_indexes_each_batch_sentence_once(agreement, tiny_encoder_dir):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_encoder_dir)
    index = SentenceIndex(answer_label_vocabulary([agreement["train"]]))
    indexed = index.index(agreement["train"])
    rows = [indexed[0], indexed[1]]
    batch = TokenizingCollator(index.sentences, tokenizer)(rows)
    texts = tokenizer.batch_decode(batch["input_ids"], skip_special_tokens=True)
    assert len(texts) == len(set(texts))
    for b, row in enumerate(rows):
        decoded = [texts[i] for i in batch["context_index"][b]]
        assert decoded == [index.sentences[i].lower() for i in row["context_ids"]]
        real = batch["answer_index"][b][batch["answer_mask"][b]]
        assert [texts[i] for i in real] == [index.sentences[i].lower() for i in row["answer_ids"]]


def test_sentence_batcher_builds_the_same_indices_from_raw_records(agreement, tiny_encoder_dir):
    from transformers import AutoTokenizer

    records = [agreement["test"][0], agreement["test"][1]]
    batch = SentenceBatcher(AutoTokenizer.from_pretrained(tiny_encoder_dir)).batch(
        [r["context"] for r in records], [r["answers"] for r in records]
    )
    assert batch["context_index"].shape == (2, 7)
    assert batch["answer_mask"].sum(dim=1).tolist() == [len(r["answers"]) for r in records]


def test_metrics_give_accuracy_and_picks_per_label_and_per_error_class():
    labels = ["Correct", "WN1", "AEV"]
    scores = torch.tensor([[0.9, 0.1, 0.0], [0.1, 0.8, 0.0], [0.0, 0.1, 0.7]])
    picks = pick_highest_score(scores).numpy()
    gold = np.array([0, 0, 0])
    label_ids = np.array([[0, 1, 2], [0, 1, 2], [0, 1, -100]])
    class_ids = np.array([[0, 1, 2], [0, 1, 2], [0, 1, -100]])
    metrics = BlmMetrics(labels)(EvalPrediction(predictions=picks, label_ids=(gold, label_ids, class_ids)))
    assert metrics["accuracy"] == pytest.approx(1 / 3)
    nested = nest_metrics({f"test_{k}": v for k, v in metrics.items()}, "test_")
    assert nested["picks_per_label"] == {"Correct": 1, "WN1": 1, "AEV": 0, "UNKNOWN": 1}
    assert nested["picks_per_class"] == {"CORRECT": 1, "SEQUENCE": 1, "GRAMMAR": 0}
