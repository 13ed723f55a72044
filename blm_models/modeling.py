"""`BlmModel`: a Hugging Face encoder (frozen or fine-tuned) plus a BLM head, scoring candidate answers."""

from __future__ import annotations

import copy
import importlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from transformers import AutoModel, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase
from transformers.utils import ModelOutput

from .collator import SentenceBatcher
from .configuration import AUTO_MAP, BlmConfig
from .encoders import (
    DEFAULT_ENCODER_ALIAS,
    load_encoder,
    load_tokenizer,
    pool,
    prepare_tokenizer,
    public_encoder_name,
    token_states,
)
from .errors import BlmError, UsageError
from .finetune import (
    embed_in_buckets,
    freeze_below_top_layers,
    run_top_layers,
    set_depth,
    set_frozen_to_eval,
    truncation_depth,
)
from .heads import build_head
from .losses import CandidateScorer, MaxMarginLoss, centre_on_context


class CheckpointMismatchError(BlmError, ValueError):
    """A checkpoint's weights do not fit the head or encoder the config asks for."""


@dataclass
class BlmOutput(ModelOutput):
    """Loss (max-margin + head terms), candidate scores [B, A] (padded candidates very low) and the predicted embedding."""

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    predicted_embedding: torch.Tensor | None = None


class BlmModel(PreTrainedModel):
    """Encoder + head. With `config.train_encoder` the encoder is a submodule trained end to end; otherwise it is
    frozen, lives outside the state dict (checkpoints hold the head only) and is reloaded by name when text
    must be embedded. The forward pass takes cached embeddings or token ids."""

    config_class = BlmConfig
    base_model_prefix = "blm"
    main_input_name = "context_embeddings"
    _no_split_modules: list[str] = []

    def __init__(self, config: BlmConfig) -> None:
        super().__init__(config)
        config.require_embedding_dim()
        self.encoder = AutoModel.from_config(config.encoder_config) if config.train_encoder else None
        if self.encoder is not None:
            freeze_below_top_layers(self.encoder, config.train_top_layers)
        self.head = build_head(config)
        self.scorer = CandidateScorer(config.score)
        self.margin_loss = MaxMarginLoss(config.margin, config.effective_margin_reduction)
        self.__dict__["_frozen_encoder"] = None  # not a submodule: never saved, never wrapped by DDP
        self.__dict__["_tokenizer"] = None
        self.post_init()

    def _init_weights(self, module: torch.nn.Module) -> None:
        """Heads keep PyTorch's default initialisation (as in the papers' code); the encoder keeps its own."""
        if hasattr(module, "reset_parameters") and not isinstance(module, PreTrainedModel):
            module.reset_parameters()

    @classmethod
    def from_encoder(
        cls,
        encoder: str | PreTrainedModel | None,
        *,
        revision: str | None = None,
        tokenizer: PreTrainedTokenizerBase | None = None,
        encoder_name_or_path: str | None = None,
        **config_kwargs,
    ) -> BlmModel:
        """A fresh head on top of an encoder given by Hub id / local path (loaded) or as a model object."""
        if encoder is None or isinstance(encoder, str):
            encoder_name_or_path = encoder_name_or_path or encoder or DEFAULT_ENCODER_ALIAS
            encoder, loaded_tokenizer = load_encoder(encoder, revision)
            tokenizer = tokenizer or loaded_tokenizer
        encoder_config = copy.deepcopy(encoder.config)
        # a fine-tuned encoder keeps only the layers up to the pooled one: the ones above would never be used
        keep = truncation_depth(encoder, config_kwargs.get("hidden_layer", -1)) if config_kwargs.get(
            "train_encoder") else None
        if keep is not None:
            set_depth(encoder_config, keep)
        config = BlmConfig(
            encoder_config=encoder_config,
            encoder_name_or_path=public_encoder_name(encoder_name_or_path or encoder.config.name_or_path or None),
            encoder_revision=revision,
            truncated_to=keep,
            **config_kwargs,
        )
        model = cls(config)
        if config.train_encoder:
            wanted = model.encoder.state_dict()
            model.encoder.load_state_dict({name: value for name, value in encoder.state_dict().items() if name in wanted})
        else:
            model.attach_frozen_encoder(encoder)
        if tokenizer is not None:
            model.attach_tokenizer(tokenizer)
        return model

    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path: str | os.PathLike, *args, **kwargs) -> BlmModel:
        """Load a BLM checkpoint (safetensors only); a head or encoder that does not fit the weights is an error."""
        kwargs.setdefault("use_safetensors", True)
        want_info = kwargs.pop("output_loading_info", False)
        config = kwargs.get("config")
        requested_head = kwargs.get("head") or (config.head if isinstance(config, BlmConfig) else None)
        saved = None
        config_file = Path(pretrained_model_name_or_path) / "config.json"
        if config_file.is_file():
            saved = BlmConfig.from_json_file(str(config_file))
            if requested_head is not None and requested_head != saved.head:
                raise CheckpointMismatchError(
                    f"checkpoint {pretrained_model_name_or_path} holds a {saved.head!r} head, but the config asks "
                    f"for {requested_head!r}; heads cannot be swapped on load. Load it without overriding the head, "
                    f"or train a {requested_head!r} model."
                )
        tolerate_mismatch = kwargs.pop("ignore_mismatched_sizes", False)
        model, info = super().from_pretrained(
            pretrained_model_name_or_path, *args, output_loading_info=True, ignore_mismatched_sizes=True, **kwargs
        )
        names = ("missing_keys", "unexpected_keys") + (() if tolerate_mismatch else ("mismatched_keys",))
        bad = {name: info.get(name) for name in names if info.get(name)}
        if bad:
            details = "; ".join(f"{name}: {sorted(map(str, keys))[:6]}" for name, keys in bad.items())
            raise CheckpointMismatchError(
                f"checkpoint {pretrained_model_name_or_path} does not match a {model.config.head!r} head "
                f"(train_encoder={model.config.train_encoder}, d={model.config.embedding_dim}, "
                f"context_length={model.config.context_length}): {details}. Load it with the config it was saved with."
            )
        return (model, info) if want_info else model

    def save_pretrained(self, save_directory: str | os.PathLike, *args, **kwargs) -> None:
        """Weights and config, plus the model's code (`auto_map`), so that `trust_remote_code=True` loads the
        folder where the toolkit is not installed, and the attached tokenizer, so that the stock `push_to_hub`
        uploads a repo that predicts. Loaded through remote code, transformers copies the code itself."""
        self.config.auto_map = {**(getattr(self.config, "auto_map", None) or {}), **AUTO_MAP}
        super().save_pretrained(save_directory, *args, **kwargs)
        if kwargs.get("is_main_process", True) and self._tokenizer is not None:
            self._tokenizer.save_pretrained(save_directory)
        if kwargs.get("is_main_process", True) and __package__ == "blm_models":
            # imported by name: the generator is not part of the bundle it writes
            importlib.import_module(".remote_code", __package__).write_remote_code(save_directory)

    # --- encoder access -------------------------------------------------------------------------------

    def attach_frozen_encoder(self, encoder: PreTrainedModel) -> None:
        """Use `encoder` (frozen, outside the state dict) to embed raw text."""
        encoder.requires_grad_(False)
        encoder.eval()
        self.__dict__["_frozen_encoder"] = encoder

    def attach_tokenizer(self, tokenizer: PreTrainedTokenizerBase) -> None:
        """Tokenizer used by `predict` and the end-to-end collator."""
        self.__dict__["_tokenizer"] = prepare_tokenizer(tokenizer)

    def sentence_encoder(self) -> PreTrainedModel:
        """The encoder that embeds sentences: the trained submodule, or the frozen one (loaded by name on first use)."""
        if self.encoder is not None:
            return self.encoder
        if self._frozen_encoder is None:
            if not self.config.encoder_name_or_path:
                raise UsageError("this model records no encoder name: call attach_frozen_encoder(encoder) first")
            encoder, tokenizer = load_encoder(self.config.encoder_name_or_path, self.config.encoder_revision)
            self.attach_frozen_encoder(encoder.to(self.device))
            if self._tokenizer is None:
                self.attach_tokenizer(tokenizer)
        return self._frozen_encoder

    def tokenizer(self) -> PreTrainedTokenizerBase:
        """The encoder's tokenizer: attached, saved in the checkpoint folder, or loaded by the encoder's name."""
        if self._tokenizer is None:
            checkpoint = self.config.name_or_path
            if checkpoint and (Path(checkpoint) / "tokenizer_config.json").is_file():
                # config given: the checkpoint's own config would need trust_remote_code where the toolkit is not installed
                self.attach_tokenizer(AutoTokenizer.from_pretrained(checkpoint, config=self.config))
            elif self.config.encoder_name_or_path:
                self.attach_tokenizer(load_tokenizer(self.config.encoder_name_or_path, self.config.encoder_revision))
            else:
                raise UsageError("no tokenizer: pass one to attach_tokenizer() or save one with the checkpoint")
        return self._tokenizer

    def embed_tokens(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Sentence embeddings [U, d] from token ids, pooled as the config says (sentences run in length buckets)."""
        encoder = self.sentence_encoder()
        if encoder.device != input_ids.device:  # the frozen encoder is not a submodule, so .to() does not move it
            encoder.to(input_ids.device)
        layer = -1 if self.config.truncated_to is not None else self.config.hidden_layer

        def embed(ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            return pool(token_states(encoder, ids, mask, layer), mask, self.config.pooling)

        return embed_in_buckets(embed, input_ids, attention_mask)

    def embed_frozen_states(self, frozen_states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Sentence embeddings [U, d] from the token states entering the trained top layers (computed once by the
        frozen layers below them): the top layers run, in length buckets, then pooling."""
        if self.encoder is None or not self.config.train_top_layers:
            raise UsageError("frozen_states need a fine-tuned encoder with train_top_layers > 0")

        def embed(states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            hidden = run_top_layers(self.encoder, states, mask, self.config.train_top_layers)
            return pool(hidden, mask, self.config.pooling)

        return embed_in_buckets(embed, frozen_states, attention_mask)

    def train(self, mode: bool = True) -> BlmModel:
        """Training mode, except for the frozen part of a fine-tuned encoder, which always runs as in evaluation."""
        super().train(mode)
        if self.encoder is not None:
            set_frozen_to_eval(self.encoder, self.config.train_top_layers)
        return self

    # --- forward --------------------------------------------------------------------------------------

    def forward(
        self,
        context_embeddings: torch.Tensor | None = None,
        answer_embeddings: torch.Tensor | None = None,
        answer_mask: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
        input_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        context_index: torch.Tensor | None = None,
        answer_index: torch.Tensor | None = None,
        frozen_states: torch.Tensor | None = None,
        answer_label_ids: torch.Tensor | None = None,
        answer_class_ids: torch.Tensor | None = None,
    ) -> BlmOutput:
        """Score candidates: from cached embeddings (context [B, C, d], answers [B, A, d]), or from a batch's unique
        sentences plus index tensors into them (fine-tuning): as token ids, or as the token states [U, T, d] the
        frozen layers below the trained ones produce (`frozen_states`, with `attention_mask`).

        `answer_label_ids` / `answer_class_ids` (each candidate's label and error class, as the toolkit's collators
        give them for the metrics) are accepted and unused, so a plain `transformers.Trainer` can pass whole batches."""
        if context_embeddings is None:
            if (input_ids is None and frozen_states is None) or context_index is None or answer_index is None:
                raise UsageError("pass context_embeddings/answer_embeddings, or input_ids (or frozen_states) with "
                                 "context_index/answer_index")
            if frozen_states is not None:
                sentences = self.embed_frozen_states(frozen_states, attention_mask)
            else:
                sentences = self.embed_tokens(input_ids, attention_mask)
            context_embeddings = torch.nn.functional.embedding(context_index, sentences)  # sentences[context_index]
            answer_embeddings = torch.nn.functional.embedding(answer_index.clamp(min=0), sentences)
            if answer_mask is None:
                answer_mask = answer_index >= 0
        if answer_embeddings is None:
            raise UsageError("answer_embeddings are required with context_embeddings")
        if self.config.center_context:
            context_embeddings, answer_embeddings = centre_on_context(context_embeddings, answer_embeddings)
        head_output = self.head(context_embeddings)
        scores = self.scorer(head_output.prediction, answer_embeddings, answer_mask)
        loss = None
        if labels is not None:
            loss = self.margin_loss(scores, labels, answer_mask)
            if head_output.auxiliary_loss is not None:
                loss = loss + head_output.auxiliary_loss
        return BlmOutput(loss=loss, logits=scores, predicted_embedding=head_output.prediction)

    @torch.no_grad()
    def predict(self, instances: Sequence[Mapping], batch_size: int = 64) -> list[int]:
        """Index of the highest-scoring answer for each record (with `context` and `answers`), from raw text."""
        self.eval()
        batcher = SentenceBatcher(self.tokenizer(), self.config.max_length)
        picks: list[int] = []
        for start in range(0, len(instances), batch_size):
            chunk = [instances[i] for i in range(start, min(start + batch_size, len(instances)))]  # lists or Datasets
            inputs = batcher.batch([row["context"] for row in chunk], [row["answers"] for row in chunk])
            inputs = {name: tensor.to(self.device) for name, tensor in inputs.items()}
            picks.extend(self(**inputs).logits.argmax(dim=-1).tolist())
        return picks
