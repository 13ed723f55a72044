"""Spray/load alternation BLMs (BLM-s/lE, en): templates ALT-ATL and ATL-ALT, lexicon and generator."""

from builders.sprayload.generator import SprayLoadGenerator

GENERATOR = SprayLoadGenerator
