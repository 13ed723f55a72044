"""BLM solvers: an encoder (frozen over cached embeddings, or fine-tuned) plus an FFNN, CNN or VAE head.

Importing the package registers `BlmConfig` / `BlmModel` with `AutoConfig` / `AutoModel`, so
`AutoModel.from_pretrained(checkpoint)` loads a saved BLM model. `prepare_for_trainer(data, model)` gives what a plain
`transformers.Trainer` needs to train one.
"""

from __future__ import annotations

from builders.library_versions import check_supported

check_supported()  # before transformers: an old one fails deep inside the import

from transformers import AutoConfig, AutoModel  # noqa: E402

from .configuration import HEADS, BlmConfig, grid_shape
from .modeling import BlmModel, BlmOutput, CheckpointMismatchError

AutoConfig.register(BlmConfig.model_type, BlmConfig, exist_ok=True)
AutoModel.register(BlmConfig, BlmModel, exist_ok=True)

__all__ = ["BlmConfig", "BlmModel", "BlmOutput", "CheckpointMismatchError", "HEADS", "grid_shape", "prepare_for_trainer"]


def __getattr__(name: str):
    """`prepare_for_trainer` (data for a plain transformers.Trainer), imported on first use: it loads `datasets`."""
    if name == "prepare_for_trainer":
        from .trainer_data import prepare_for_trainer

        return prepare_for_trainer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
