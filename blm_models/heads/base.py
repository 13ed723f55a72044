"""What every head returns, and the base class heads share."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ..configuration import BlmConfig
from ..errors import UsageError


@dataclass
class HeadOutput:
    """A head's answer: the predicted embedding of the missing sentence, plus any loss of its own (KL, sentence level)."""

    prediction: torch.Tensor
    auxiliary_loss: torch.Tensor | None = None


class BlmHead(nn.Module):
    """Maps the context embeddings [B, C, d] to a predicted answer embedding [B, d]."""

    def __init__(self, config: BlmConfig) -> None:
        super().__init__()
        self.context_length = config.context_length
        self.embedding_dim = config.require_embedding_dim()

    def check_context(self, context: torch.Tensor) -> None:
        """Fail clearly when the data's context length differs from the one the head was built for."""
        if context.dim() != 3 or context.shape[1:] != (self.context_length, self.embedding_dim):
            raise UsageError(
                f"{type(self).__name__} was built for contexts of {self.context_length} sentences of "
                f"size {self.embedding_dim}, got a batch of shape {tuple(context.shape)}; set "
                "BlmConfig.context_length from the data (train.py does this)."
            )
