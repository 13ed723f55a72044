"""Two-level VAE (002 §8): a sentence-level VAE compresses each context sentence to a small latent, a task-level
VAE reads the sequence of latents and decodes the answer; losses combined as 002 equations 4-6."""

from __future__ import annotations

import torch
from torch import nn

from ..configuration import BlmConfig
from ..losses import CandidateScorer, MaxMarginLoss, gaussian_kl, sample_latent
from .base import BlmHead, HeadOutput
from .vae import GridDecoder, GridEncoder, clipped_kernel


class TwoLevelVaeHead(BlmHead):
    """Sentence level: e_si -> z_i -> ê_i, trained with maxM(ê_i, e_si, {e_sk, k != i}) + KL(z_i) (eq. 4).
    Task level: [z_1..z_C] -> z_S -> sentence latent -> shared sentence decoder -> predicted answer,
    whose maxM against the answer set + KL_seq(z_S) is eq. 5; the head returns the sum over sentences
    of eq. 4 plus the KL_seq part of eq. 5, and the model adds the answer max-margin (eq. 6)."""

    def __init__(self, config: BlmConfig) -> None:
        super().__init__(config)
        self.grid = config.grid
        kernel = clipped_kernel(config.vae_kernel_size, self.grid)
        latent, task_latent, hidden = config.latent_size, config.task_latent_size, config.task_hidden_size
        self.sentence_encoder = GridEncoder(1, self.grid, kernel, config.vae_channels, latent)
        self.sentence_decoder = GridDecoder(self.grid, kernel, config.vae_channels, latent)
        self.task_encoder = nn.Sequential(
            nn.Linear(self.context_length * latent, hidden), nn.ReLU(), nn.Linear(hidden, 2 * task_latent)
        )
        self.task_decoder = nn.Sequential(nn.Linear(task_latent, hidden), nn.ReLU(), nn.Linear(hidden, latent))
        self.scorer = CandidateScorer(config.score)
        self.sentence_margin = MaxMarginLoss(config.margin, reduction="mean")
        self.kl_weight = config.kl_weight

    def sentence_level(self, context: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Sampled sentence latents [B, C, latent] and the per-instance sentence-level loss (eq. 4 summed, eq. 6)."""
        batch, length, dim = context.shape
        mu, logvar = self.sentence_encoder(context.reshape(batch * length, 1, *self.grid))
        latents = sample_latent(mu, logvar, self.training)
        decoded = self.sentence_decoder(latents).view(batch, length, dim)
        # each decoded sentence is scored against all context sentences: itself is the positive, the others negatives
        scores = torch.einsum("bid,bkd->bik", self._normalise(decoded), self._normalise(context))
        scores = scores.reshape(batch * length, length)
        own_index = torch.arange(length, device=context.device).repeat(batch)
        margin = self.sentence_margin(scores, own_index) * length  # mean over B*C -> sum over sentences
        kl = gaussian_kl(mu, logvar).view(batch, length).sum(dim=1).mean()
        return latents.view(batch, length, -1), margin + self.kl_weight * kl

    def _normalise(self, embeddings: torch.Tensor) -> torch.Tensor:
        """Unit-normalise for cosine scoring, pass through for dot products."""
        if self.scorer.kind == "cosine":
            return nn.functional.normalize(embeddings, dim=-1)
        return embeddings

    def forward(self, context: torch.Tensor) -> HeadOutput:
        """Decoded answer embedding, with the sentence-level losses and the task-level KL as auxiliary loss."""
        self.check_context(context)
        latents, sentence_loss = self.sentence_level(context)
        task_mu, task_logvar = self.task_encoder(latents.flatten(1)).chunk(2, dim=-1)
        task_latent = sample_latent(task_mu, task_logvar, self.training)
        prediction = self.sentence_decoder(self.task_decoder(task_latent))
        task_kl = gaussian_kl(task_mu, task_logvar).mean()
        return HeadOutput(prediction=prediction, auxiliary_loss=sentence_loss + self.kl_weight * task_kl)
