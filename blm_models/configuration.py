"""`BlmConfig`: which encoder embeds the sentences, how they are pooled, and which head solves the puzzle."""

from __future__ import annotations

from typing import ClassVar

from transformers import AutoConfig, PretrainedConfig
from transformers.configuration_utils import SubConfigSpec

from .errors import UsageError

HEADS = ("ffnn", "cnn", "sentence_vae", "two_level_vae")
POOLINGS = ("mean", "first")
SCORES = ("dot", "cosine")
MARGIN_REDUCTIONS = ("sum", "mean")
# the code a saved checkpoint carries for `trust_remote_code` loading (files written by blm_models.remote_code)
AUTO_MAP = {"AutoConfig": "configuration_blm.BlmConfig", "AutoModel": "modeling_blm.BlmModel"}


def grid_shape(dim: int) -> tuple[int, int]:
    """2-D shape (rows, cols) for a `dim`-sized embedding, closest to 4:3 (768 -> 32x24, 384 -> 24x16)."""
    pairs = [(dim // w, w) for w in range(1, int(dim**0.5) + 1) if dim % w == 0]
    return min(pairs, key=lambda hw: abs(hw[0] / hw[1] - 4 / 3))


class BlmConfig(PretrainedConfig):
    """Configuration of a BLM solver: encoder (by name and/or sub-config), pooling, head, scoring and loss.

    `encoder_config` describes the encoder (its hidden size is the sentence-embedding size `d`);
    `encoder_name_or_path` / `encoder_revision` say where its weights come from. With
    `train_encoder=False` (the papers' setting) the encoder is frozen, sentences are embedded once
    through the embedding cache and checkpoints hold the head only; with `train_encoder=True` the
    encoder is part of the model and fine-tuned end to end: when a middle layer is pooled, the layers above it are
    dropped (`truncated_to`), and `train_top_layers` limits training to the top kept layers.
    """

    model_type: ClassVar[str] = "blm"
    sub_configs_defaults = {
        "encoder_config": SubConfigSpec(config_class=AutoConfig, model_type="bert", optional=True),
    }
    keys_to_ignore_at_inference: ClassVar[list[str]] = ["predicted_embedding"]

    encoder_config: PretrainedConfig | dict | None = None
    encoder_name_or_path: str | None = None
    encoder_revision: str | None = None
    pooling: str = "mean"
    hidden_layer: int = -1  # whose token states are pooled: -1 the last (the papers), 0 the input embeddings
    max_length: int = 128
    train_encoder: bool = False
    # the fine-tuned encoder keeps its layers up to the pooled one (encoder_config says as many); None: all of them
    truncated_to: int | None = None
    train_top_layers: int = 0  # with train_encoder: only the top N kept layers train (0: the whole encoder)

    head: str = "ffnn"
    context_length: int = 7
    score: str = "dot"
    margin: float = 1.0
    margin_reduction: str | None = None
    # subtract the mean of an instance's context embeddings from its context and answers: removes what all
    # its sentences share (in type I, the words), leaving the differences the puzzle is about
    center_context: bool = False

    ffnn_hidden_factor: float = 3.5
    cnn_channels: list[int] | tuple[int, ...] = (8, 8, 8)
    cnn_kernel_size: int = 3
    vae_grid: list[int] | tuple[int, ...] | None = None
    vae_kernel_size: int = 15
    vae_channels: int = 8
    latent_size: int = 5
    task_latent_size: int = 5
    task_hidden_size: int = 64
    kl_weight: float = 0.01  # 1.0 = 002 eqs. 2, 4-5 literally; measured: chance-level picks with it (README)

    answer_label_names: list[str] | None = None
    error_class_names: list[str] | None = None

    def __post_init__(self, **kwargs) -> None:
        """Validate choices early so a wrong flag fails with the list of valid values."""
        super().__post_init__(**kwargs)
        for name, value, allowed in (
            ("head", self.head, HEADS),
            ("pooling", self.pooling, POOLINGS),
            ("score", self.score, SCORES),
        ):
            if value not in allowed:
                raise UsageError(f"BlmConfig.{name}={value!r} is not one of {', '.join(allowed)}.")
        if self.margin_reduction is not None and self.margin_reduction not in MARGIN_REDUCTIONS:
            raise UsageError(
                f"BlmConfig.margin_reduction={self.margin_reduction!r} is not one of {MARGIN_REDUCTIONS}."
            )
        if self.train_top_layers < 0:
            raise UsageError(f"BlmConfig.train_top_layers must be >= 0 (0 trains every layer), got {self.train_top_layers}.")
        if self.context_length < 1:
            raise UsageError(f"BlmConfig.context_length must be positive, got {self.context_length}.")
        if self.vae_grid is not None and self.embedding_dim is not None:
            rows, cols = self.vae_grid
            if rows * cols != self.embedding_dim:
                raise UsageError(
                    f"vae_grid {rows}x{cols} does not hold a {self.embedding_dim}-d embedding; "
                    f"use e.g. {grid_shape(self.embedding_dim)}."
                )

    @property
    def embedding_dim(self) -> int | None:
        """Sentence-embedding size d: the encoder's hidden size."""
        if self.encoder_config is None:
            return None
        for attribute in ("hidden_size", "d_model", "n_embd", "dim"):
            value = getattr(self.encoder_config, attribute, None)
            if isinstance(value, int):
                return value
        raise UsageError(f"cannot tell the hidden size of encoder config {type(self.encoder_config).__name__}")

    @property
    def grid(self) -> tuple[int, int]:
        """Rows x cols the VAE heads reshape an embedding into."""
        if self.vae_grid is not None:
            return int(self.vae_grid[0]), int(self.vae_grid[1])
        return grid_shape(self.require_embedding_dim())

    @property
    def effective_margin_reduction(self) -> str:
        """How wrong answers enter the answer-level hinge: `sum` (002 eq. 1) unless set.

        002 eq. 5 writes the two-level VAE's task loss with eq. 3's mean over negatives; that form can
        reach zero while a wrong answer still outscores the gold one (measured: chance-level picks on
        the synthetic agreement set for both VAE heads), so eq. 1 is the default for every head and
        `margin_reduction="mean"` gives eq. 3/5 literally. The sentence level (eq. 4) always uses eq. 3.
        """
        return self.margin_reduction or "sum"

    def require_embedding_dim(self) -> int:
        """The embedding size, or a clear error when no encoder config was given."""
        dim = self.embedding_dim
        if dim is None:
            raise UsageError(
                "BlmConfig has no encoder_config, so the embedding size is unknown; build the model with "
                "BlmModel.from_encoder(name_or_model, ...) or pass encoder_config=AutoConfig.from_pretrained(name)."
            )
        return dim
