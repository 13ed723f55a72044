"""COS+ BLMs (en, it, de-case, de-mix; T2I and I2T): template, lexicons and generator (000 §4.2)."""

from builders.cosplus.generator import CosPlusGenerator

GENERATOR = CosPlusGenerator
