"""FFNN baseline (002 §6.1, 003 §3.1, 004 §4.2): C·d -> 3.5·d -> 3.5·d -> d over the concatenated context."""

from __future__ import annotations

import torch
from torch import nn

from ..configuration import BlmConfig
from .base import BlmHead, HeadOutput


class FfnnHead(BlmHead):
    """Three fully connected layers that compress the concatenated context to one sentence embedding."""

    def __init__(self, config: BlmConfig) -> None:
        super().__init__(config)
        d = self.embedding_dim
        hidden = int(round(config.ffnn_hidden_factor * d))
        self.layers = nn.Sequential(
            nn.Linear(self.context_length * d, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, d),
        )

    def forward(self, context: torch.Tensor) -> HeadOutput:
        """Predicted answer embedding from the flattened context."""
        self.check_context(context)
        return HeadOutput(prediction=self.layers(context.flatten(1)))
