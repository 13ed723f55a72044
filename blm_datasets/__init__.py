"""BLM datasets: the record schema, the Hugging Face builder and its ``load_dataset("blm")`` hook."""

from __future__ import annotations

from builders.library_versions import check_supported

check_supported()  # before datasets: an old one fails inside the import

from blm_datasets.features import FEATURES  # noqa: E402
from blm_datasets.hub_hook import install as _install_hook
from builders import registry

_install_hook()


def load_blm(name: str, **kwargs):
    """``datasets.load_dataset("blm", name, **kwargs)`` (config kwargs: seed, size, split_mode, test_size), from
    this package's builder even where the working folder holds a folder named ``blm``."""
    import datasets

    from blm_datasets.hub_hook import GENERATOR

    return datasets.load_dataset(GENERATOR, name, **kwargs)


def config_names() -> list[str]:
    return registry.config_names()


__all__ = ["FEATURES", "load_blm", "config_names"]
