"""BLM heads, one module each; `build_head` picks the one a `BlmConfig` names."""

from __future__ import annotations

from ..configuration import BlmConfig
from .base import BlmHead, HeadOutput
from .cnn import CnnHead
from .ffnn import FfnnHead
from .two_level_vae import TwoLevelVaeHead
from .vae import SentenceVaeHead
from ..errors import UsageError

HEAD_CLASSES: dict[str, type[BlmHead]] = {
    "ffnn": FfnnHead,
    "cnn": CnnHead,
    "sentence_vae": SentenceVaeHead,
    "two_level_vae": TwoLevelVaeHead,
}


def build_head(config: BlmConfig) -> BlmHead:
    """The head named by `config.head`, built for the config's context length and embedding size."""
    try:
        head_class = HEAD_CLASSES[config.head]
    except KeyError:
        raise UsageError(f"unknown head {config.head!r}; choose one of {', '.join(HEAD_CLASSES)}") from None
    return head_class(config)


__all__ = ["BlmHead", "HeadOutput", "HEAD_CLASSES", "build_head", "FfnnHead", "CnnHead", "SentenceVaeHead", "TwoLevelVaeHead"]
