"""CNN baseline (003 §3.1, 004 §4.2): three 3x3 convolutions over the C x d context array, then a linear layer to d."""

from __future__ import annotations

import torch
from torch import nn

from ..configuration import BlmConfig
from .base import BlmHead, HeadOutput
from ..errors import UsageError


class CnnHead(BlmHead):
    """Convolutions (stride 1, no dilation) look for local patterns across neighbouring sentences and dimensions.

    The sentence axis is zero-padded so that short contexts (COS+ has 4 sentences) survive three
    3x3 kernels; the embedding axis is not padded, as in the papers.
    """

    def __init__(self, config: BlmConfig) -> None:
        super().__init__(config)
        kernel = config.cnn_kernel_size
        layers: list[nn.Module] = []
        in_channels, width = 1, self.embedding_dim
        for out_channels in config.cnn_channels:
            layers += [nn.Conv2d(in_channels, out_channels, kernel, stride=1, padding=(kernel // 2, 0)), nn.ReLU()]
            in_channels, width = out_channels, width - (kernel - 1)
        if width < 1:
            raise UsageError(f"embedding size {self.embedding_dim} is too small for {len(config.cnn_channels)} convolutions")
        self.convolutions = nn.Sequential(*layers)
        self.project = nn.Linear(in_channels * self.context_length * width, self.embedding_dim)

    def forward(self, context: torch.Tensor) -> HeadOutput:
        """Predicted answer embedding from the context treated as a one-channel image."""
        self.check_context(context)
        features = self.convolutions(context.unsqueeze(1))
        return HeadOutput(prediction=self.project(features.flatten(1)))
