"""Change-of-state (COS) and object-drop (OD) verb alternations, English and Italian."""

from builders.cos_od.generator import CosGenerator, OdGenerator

__all__ = ["CosGenerator", "OdGenerator"]
