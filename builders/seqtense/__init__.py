"""Italian sequence of tense (SeqTense) and its mixture with agreement (Mixture)."""

from builders.seqtense.generator import MixtureGenerator, SeqTenseGenerator

__all__ = ["SeqTenseGenerator", "MixtureGenerator"]
