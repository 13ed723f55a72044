"""Makes ``datasets.load_dataset("blm", NAME)`` reach the builder of this package.

datasets 5 has no public hook for builders living in an installed package, so we wrap
``dataset_module_factory`` (a private function, hence the pinned datasets range in setup.cfg and
the test in tests/test_builder.py): for the path ``"blm"`` (unless a local folder has that name) and for
``GENERATOR`` it returns a module pointing at ``blm_datasets.builder``; every other path goes to the original
function.
"""

from __future__ import annotations

import functools
import os

import datasets.inspect
import datasets.load

from blm_datasets.digest import source_digest

DATASET_NAME = "blm"
# what the toolkit's own loaders ask for: always this package's builder, even where the working folder holds a
# folder named "blm" (which `load_dataset("blm")` reads instead, as datasets does for any local folder)
GENERATOR = "blm_datasets.builder:blm"


def _blm_module() -> datasets.load.DatasetModule:
    return datasets.load.DatasetModule(
        module_path="blm_datasets.builder",
        hash=source_digest(),
        builder_kwargs={"dataset_name": DATASET_NAME},
    )


def install() -> None:
    """Idempotently wrap the datasets module factory."""
    original = datasets.load.dataset_module_factory
    if getattr(original, "_blm_wrapped", False):
        return

    @functools.wraps(original)
    def factory(path, *args, **kwargs):
        if path == GENERATOR or (path == DATASET_NAME and not os.path.exists(path)):
            return _blm_module()
        return original(path, *args, **kwargs)

    factory._blm_wrapped = True
    datasets.load.dataset_module_factory = factory
    datasets.inspect.dataset_module_factory = factory
