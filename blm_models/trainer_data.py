"""BLM data for your own `transformers.Trainer`: `prepare_for_trainer(data, model)` indexes the unique sentences,
embeds them once with the model's frozen encoder (or tokenises them for a fine-tuned one) and returns the datasets,
collator and metric functions a plain `Trainer` takes (`train.py` adds the embedding cache, lemma-grouped batches,
checkpoint checks and the model card on top of the same pieces)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import datasets

from .collator import CachedEmbeddingCollator, TokenizingCollator
from .data import ERROR_CLASSES, IndexedBlmDataset, SentenceIndex, answer_label_vocabulary, context_length_of
from .embedding_cache import SentenceEmbedder
from .errors import DataError
from .metrics import BlmMetrics, pick_highest_score
from .modeling import BlmModel


@dataclass
class TrainerData:
    """The splits as `Trainer` datasets (`data["train"]`), and the `Trainer` arguments that go with them."""

    datasets: dict[str, IndexedBlmDataset]
    data_collator: Callable
    compute_metrics: BlmMetrics
    preprocess_logits_for_metrics: Callable = pick_highest_score

    def __getitem__(self, split: str) -> IndexedBlmDataset:
        return self.datasets[split]

    def trainer_kwargs(self) -> dict:
        """`data_collator`, `compute_metrics` and `preprocess_logits_for_metrics`, to pass as `Trainer(**…)`."""
        return {"data_collator": self.data_collator, "compute_metrics": self.compute_metrics,
                "preprocess_logits_for_metrics": self.preprocess_logits_for_metrics}


def prepare_for_trainer(data: Mapping[str, datasets.Dataset], model: BlmModel, batch_size: int = 64,
                        progress: bool = False) -> TrainerData:
    """Index the BLM records of every split of `data` (a DatasetDict in the toolkit's schema), record the answer
    labels in the model's config, and build the collator: cached embeddings from the frozen encoder, or token ids
    when the model fine-tunes its encoder. Use `TrainingArguments(remove_unused_columns=False)`."""
    context_length = context_length_of(data.values())
    if context_length != model.config.context_length:
        raise DataError(f"the data's contexts hold {context_length} sentences, but the model's head was built for "
                        f"{model.config.context_length}; build the model with context_length={context_length}")
    config = model.config
    config.answer_label_names = config.answer_label_names or answer_label_vocabulary(data.values())
    config.error_class_names = config.error_class_names or list(ERROR_CLASSES)
    index = SentenceIndex(config.answer_label_names, config.error_class_names)
    indexed = {name: index.index(split) for name, split in data.items()}
    if config.train_encoder:
        collator = TokenizingCollator(index.sentences, model.tokenizer(), config.max_length)
    else:
        embedder = SentenceEmbedder(model.sentence_encoder(), model.tokenizer(), config.pooling, config.max_length,
                                    batch_size, config.hidden_layer)
        collator = CachedEmbeddingCollator(embedder.embed(index.sentences, progress=progress))
    return TrainerData(indexed, collator, BlmMetrics(config.answer_label_names, config.error_class_names))
