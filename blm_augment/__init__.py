"""Lexical augmentation (``blm augment``): propose new entries for one slot of a lexicon with a
language model, filter them (spelling, morphology and validator, frequency band, novelty, type III
stems), and write a reviewable YAML patch that ``blm augment --apply`` merges (SPEC §5).
"""

from blm_augment.errors import AugmentError
from blm_augment.run import augment

__all__ = ["AugmentError", "augment"]
