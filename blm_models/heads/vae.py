"""Sentence-level VAE (002 §7): embeddings reshaped to a 2-D grid (32x24 for d=768), a large-kernel CNN
encoder to a small latent, and a mirrored decoder back to an embedding."""

from __future__ import annotations

import torch
from torch import nn

from ..configuration import BlmConfig
from ..losses import gaussian_kl, sample_latent
from .base import BlmHead, HeadOutput


def clipped_kernel(kernel: int, grid: tuple[int, int]) -> int:
    """The configured kernel (15 in 002 §7), shrunk to fit small grids such as the ones of tiny test encoders."""
    return max(1, min(kernel, *grid))


class GridEncoder(nn.Module):
    """Grid(s) [B, channels, rows, cols] -> (mu, logvar) of a `latent_size` Gaussian, via one conv and one linear layer."""

    def __init__(self, in_channels: int, grid: tuple[int, int], kernel: int, channels: int, latent_size: int) -> None:
        super().__init__()
        rows, cols = grid
        self.conv = nn.Conv2d(in_channels, channels, kernel)
        self.to_latent = nn.Linear(channels * (rows - kernel + 1) * (cols - kernel + 1), 2 * latent_size)

    def forward(self, grids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Mean and log-variance of the latent."""
        features = torch.relu(self.conv(grids)).flatten(1)
        mu, logvar = self.to_latent(features).chunk(2, dim=-1)
        return mu, logvar


class GridDecoder(nn.Module):
    """Latent [B, latent_size] -> embedding [B, rows*cols]: the mirror of `GridEncoder` (linear, transposed conv)."""

    def __init__(self, grid: tuple[int, int], kernel: int, channels: int, latent_size: int) -> None:
        super().__init__()
        rows, cols = grid
        self.inner_shape = (channels, rows - kernel + 1, cols - kernel + 1)
        self.from_latent = nn.Linear(latent_size, channels * self.inner_shape[1] * self.inner_shape[2])
        self.deconv = nn.ConvTranspose2d(channels, 1, kernel)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        """Decoded sentence embedding, flattened back to d."""
        features = torch.relu(self.from_latent(latent)).view(-1, *self.inner_shape)
        return self.deconv(features).flatten(1)


class SentenceVaeHead(BlmHead):
    """VAE baseline: the context's sentences, each reshaped to a 2-D grid, are stacked as channels, encoded
    to a small latent (size 5 by default), sampled and decoded into the answer embedding; adds
    kl_weight * KL(z || N(0, 1)) to the max-margin loss."""

    def __init__(self, config: BlmConfig) -> None:
        super().__init__(config)
        self.grid = config.grid
        kernel = clipped_kernel(config.vae_kernel_size, self.grid)
        self.encoder = GridEncoder(self.context_length, self.grid, kernel, config.vae_channels, config.latent_size)
        self.decoder = GridDecoder(self.grid, kernel, config.vae_channels, config.latent_size)
        self.kl_weight = config.kl_weight

    def forward(self, context: torch.Tensor) -> HeadOutput:
        """Decoded answer embedding and the weighted KL term."""
        self.check_context(context)
        mu, logvar = self.encoder(context.view(context.shape[0], self.context_length, *self.grid))
        latent = sample_latent(mu, logvar, self.training)
        kl = gaussian_kl(mu, logvar).mean()
        return HeadOutput(prediction=self.decoder(latent), auxiliary_loss=self.kl_weight * kl)
