"""Placeholder while the generator is written (no lexicon file yet, so no configs)."""
from builders.base import Generator


class RollGenerator(Generator):
    phenomenon = "roll"
    context_size = 7
    lexical_types = ("I", "II")
