"""The Hugging Face builder exposing every registered BLM config."""

from __future__ import annotations

import logging
import shutil
import tempfile
import weakref
from pathlib import Path

import datasets

from blm_datasets.digest import files_digest, source_digest
from blm_datasets.features import FEATURES
from builders import registry
from builders.generate import Options, SpilledShard, generate_split, plan_splits, read_shard, spill_split
from builders.licences import config_licence

logger = logging.getLogger(__name__)

_CITATION = """\
@article{merlo2023blackbird,
  title={Blackbird Language Matrices (BLM), a new task for rule-like generalization in neural networks: Can Large Language Models pass the test?},
  author={Merlo, Paola and Jiang, Chunyang and Samo, Giuseppe and Nastase, Vivi},
  journal={Computational Linguistics}, year={2025}
}
@inproceedings{an2023blmagrf,
  title={{BLM}-{A}gr{F}: A New {F}rench Benchmark to Investigate Generalization of Agreement in Neural Networks},
  author={An, Aixiu and Jiang, Chunyang and Rodriguez, Maria A. and Nastase, Vivi and Merlo, Paola},
  booktitle={Proceedings of EACL}, year={2023}
}"""


STREAM_CHUNK = 1000  # records per shard of a streamed (not prepared) config


class BlmBuilderConfig(datasets.BuilderConfig):
    """A BLM config: its name fixes phenomenon, language, variant and lexical type."""

    def __init__(self, *args, seed: int = 42, size: int | None = None, split_mode: str = "lemma",
                 test_size: float | None = None, sources: list[str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.seed, self.size, self.split_mode, self.test_size = seed, size, split_mode, test_size
        self.sources = sources

    @property
    def options(self) -> Options:
        sources = tuple(self.sources) if self.sources else None
        return Options(seed=self.seed, size=self.size, split=self.split_mode, test_size=self.test_size,
                       sources=sources)


class BlmBuilder(datasets.GeneratorBasedBuilder):
    """Generates BLM instances from the templates and lexicons shipped with the package."""

    BUILDER_CONFIG_CLASS = BlmBuilderConfig
    BUILDER_CONFIGS = [BlmBuilderConfig(name=name) for name in registry.config_names()]
    DEFAULT_CONFIG_NAME = "agr_en_typeI"
    VERSION = datasets.Version("0.1.0")

    def __init__(self, *args, **kwargs):
        name = kwargs.get("config_name")
        if name is not None:
            registry.get_spec(name)  # unknown names fail with the list of valid ones
        if kwargs.get("hash") is None:
            kwargs["hash"] = source_digest()
        if kwargs.get("sources"):  # corpus files edited in place must not be served stale
            kwargs["hash"] += "-" + files_digest(kwargs["sources"])
        if kwargs.get("dataset_name") is None:
            kwargs["dataset_name"] = "blm"
        super().__init__(*args, **kwargs)
        self._generation_num_proc = 1
        self._generation_progress = False
        self._spill_dir: Path | None = None

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description="Blackbird Language Matrices: " + self.config.name,
            features=FEATURES,
            citation=_CITATION,
            homepage="https://github.com/CLCL-Geneva/BLM-SNFDisentangling",
            license=self._licence(),
        )

    def _licence(self) -> str:
        """The config's licence (builders.licences): apache-2.0 for generated data, the corpus's for derived data."""
        try:
            found = config_licence(registry.get_spec(self.config.name), self.config.sources, "apache-2.0", None)
        except ValueError:  # sources of no known corpus: their licence is the user's to state (blm export --license)
            return "unknown (derived from user-given source files)"
        return " and ".join(found.ids)

    def download_and_prepare(self, *args, num_proc: int | None = None, generation_progress: bool = False,
                             **kwargs):
        """datasets' prepare step; `generation_progress` shows a bar per split while instances are generated."""
        self._generation_num_proc = num_proc or 1
        self._generation_progress = generation_progress
        # instances are realised and checked into pickled chunks here, then read back shard by shard: peak memory
        # does not grow with --size (a dict of every record did)
        root = Path(self._cache_dir_root)
        root.mkdir(parents=True, exist_ok=True)
        self._spill_dir = Path(tempfile.mkdtemp(prefix=".blm-spill-", dir=root))
        cleanup = weakref.finalize(self, shutil.rmtree, self._spill_dir, ignore_errors=True)
        try:
            return super().download_and_prepare(*args, num_proc=num_proc, **kwargs)
        finally:
            cleanup()
            self._spill_dir = None

    def _split_generators(self, dl_manager):
        spec = registry.get_spec(self.config.name)
        opts = self.config.options
        out = []
        for split, plans in plan_splits(spec, opts).items():
            if self._spill_dir is None:  # as_streaming_dataset: no prepare step owns a spill folder; rows in memory
                records = generate_split(spec, split, plans, opts, num_proc=self._generation_num_proc)
                shards = [records[i:i + STREAM_CHUNK] for i in range(0, len(records), STREAM_CHUNK)]
            else:
                shards = spill_split((spec,), split, plans, opts, self._generation_num_proc, self._spill_dir,
                                     progress=self._generation_progress)[0]
            logger.info("%s %s: %d instances", spec.name, split, len(plans))
            out.append(datasets.SplitGenerator(name=split, gen_kwargs={"shards": shards}))
        return out

    def _generate_examples(self, shards):
        for shard in shards:
            for record in read_shard(shard) if isinstance(shard, SpilledShard) else shard:
                yield record["id"], record
