"""The Hugging Face builder exposing every registered BLM config."""

from __future__ import annotations

import logging

import datasets

from blm_datasets.digest import files_digest, source_digest
from blm_datasets.features import FEATURES
from builders import registry
from builders.generate import Options, generate

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


class BlmConfig(datasets.BuilderConfig):
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

    BUILDER_CONFIG_CLASS = BlmConfig
    BUILDER_CONFIGS = [BlmConfig(name=name) for name in registry.config_names()]
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

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description="Blackbird Language Matrices: " + self.config.name,
            features=FEATURES,
            citation=_CITATION,
            homepage="https://github.com/CLCL-Geneva/BLM-SNFDisentangling",
            license="apache-2.0",
        )

    def download_and_prepare(self, *args, num_proc: int | None = None, **kwargs):
        self._generation_num_proc = num_proc or 1
        return super().download_and_prepare(*args, num_proc=num_proc, **kwargs)

    def _split_generators(self, dl_manager):
        spec = registry.get_spec(self.config.name)
        opts = self.config.options
        shards = max(1, self._generation_num_proc)
        out = []
        for split, result in generate(spec, opts, num_proc=self._generation_num_proc, progress=False).items():
            logger.info("%s %s: %d instances (%d planned)", spec.name, split, len(result.records), result.planned)
            records = result.records
            size = -(-len(records) // shards) if records else 1
            chunks = [records[i:i + size] for i in range(0, len(records), size)] or [[]]
            out.append(datasets.SplitGenerator(name=split, gen_kwargs={"chunks": chunks}))
        return out

    def _generate_examples(self, chunks):
        for chunk in chunks:
            for record in chunk:
                yield record["id"], record
