"""Subject-verb agreement BLMs (fr, en, it, ro): template, lexicons and generator."""

from builders.agr.generator import AgrGenerator

GENERATOR = AgrGenerator
