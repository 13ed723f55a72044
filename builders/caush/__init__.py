"""Hebrew binyanim (CausH): natural UD sentences or verb forms in PAAL, NIFAL, HIFIL, HUFAL."""

from builders.caush.generator import CausHGenerator

__all__ = ["CausHGenerator"]
