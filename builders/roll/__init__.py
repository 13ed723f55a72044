"""Roll-verb causative alternation BLMs (BLM-Rolle, en): two-paradigm template, lexicon, generator."""

from builders.roll.generator import RollGenerator

GENERATOR = RollGenerator
