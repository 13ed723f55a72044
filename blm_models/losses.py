"""Scoring of candidate answers against a predicted embedding, the max-margin loss and the VAE KL term."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from .errors import UsageError

MASKED_SCORE = -1e9  # score of padded candidates: never picked, never a violating negative


class CandidateScorer(nn.Module):
    """score(e_i, e_pred) for every candidate: dot product (002 §6.1) or cosine (003 §3.1, 004 §4.2)."""

    def __init__(self, kind: str = "dot") -> None:
        super().__init__()
        if kind not in ("dot", "cosine"):
            raise UsageError(f"unknown score {kind!r}: use 'dot' or 'cosine'")
        self.kind = kind

    def forward(self, prediction: torch.Tensor, candidates: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """Scores [..., A] of candidates [..., A, d] against predictions [..., d] (any leading dimensions: a batch,
        or heads x batch); padded candidates get MASKED_SCORE."""
        if self.kind == "cosine":
            prediction = F.normalize(prediction, dim=-1)
            candidates = F.normalize(candidates, dim=-1)
        scores = torch.einsum("...ad,...d->...a", candidates, prediction)
        if mask is not None:
            scores = scores.masked_fill(~mask.bool(), MASKED_SCORE)
        return scores


def centre_on_context(context: torch.Tensor, answers: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Context [..., C, d] and answers [..., A, d] less the mean of the context sentences (--center_context)."""
    centre = context.mean(dim=-2, keepdim=True)
    return context - centre, answers - centre


class MaxMarginLoss(nn.Module):
    """Hinge between the gold score and the wrong ones: sum of [m - s_c + s_i]+ (002 eq. 1) or
    [m - s_c + mean_i s_i]+ (002 eq. 3); padded candidates are ignored; averaged over the batch."""

    def __init__(self, margin: float = 1.0, reduction: str = "sum") -> None:
        super().__init__()
        if reduction not in ("sum", "mean"):
            raise UsageError(f"unknown max-margin reduction {reduction!r}: use 'sum' or 'mean'")
        self.margin = margin
        self.reduction = reduction

    def forward(self, scores: torch.Tensor, gold: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """Loss from scores [B, A], gold indices [B] and a candidate mask [B, A] (True = real candidate)."""
        return self.per_instance(scores, gold, mask).mean()

    def per_instance(self, scores: torch.Tensor, gold: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """The hinge of each instance [...] from scores [..., A] and gold indices [...] (any leading dimensions)."""
        if mask is None:
            mask = torch.ones_like(scores, dtype=torch.bool)
        gold = gold.long().unsqueeze(-1)
        gold_score = scores.gather(-1, gold)  # [..., 1]
        negatives = mask.bool().clone()
        negatives.scatter_(-1, gold, False)
        if self.reduction == "sum":
            return ((self.margin - gold_score + scores).clamp(min=0) * negatives).sum(dim=-1)
        mean_negative = (scores * negatives).sum(dim=-1) / negatives.sum(dim=-1).clamp(min=1)
        return (self.margin - gold_score.squeeze(-1) + mean_negative).clamp(min=0)


def gaussian_kl(mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
    """KL(N(mu, exp(logvar)) || N(0, 1)) summed over the last dimension."""
    return -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=-1)


def sample_latent(mu: torch.Tensor, logvar: torch.Tensor, training: bool) -> torch.Tensor:
    """Reparameterised sample while training; the mean at evaluation, so predictions are deterministic."""
    if not training:
        return mu
    return mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
