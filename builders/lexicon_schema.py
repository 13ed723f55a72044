"""The pieces every lexicon schema is built from (pydantic): non-empty text, lists without repeats, and sections
where a key written without a value (``acc_sg:``) is an error rather than a key left out."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, model_validator

from builders.errors import InputError
from builders.template import Strict


def filled(text: str) -> str:
    """``text``, unless it is empty or blank."""
    if not text.strip():
        raise InputError("is empty")
    return text


def distinct(items: tuple) -> tuple:
    """``items``, unless one repeats (phrases compare by their ``text``)."""
    texts = [getattr(item, "text", item) for item in items]
    repeated = sorted({t for t in texts if texts.count(t) > 1})
    if repeated:
        raise InputError(f"repeats {', '.join(repeated)}")
    return items


def not_boolean(value: Any) -> Any:
    """``value``, unless YAML read it as a boolean (a bare ``on``, ``no`` … where a word was meant)."""
    if isinstance(value, bool):
        raise InputError("reads as a boolean: quote it (YAML takes on/off/yes/no for true/false)")
    return value


Text = Annotated[str, AfterValidator(filled)]
Words = Annotated[tuple[Text, ...], AfterValidator(distinct)]
Preposition = Annotated[Text, BeforeValidator(not_boolean)]   # "on", "off" are prepositions too


class Section(Strict):
    """A mapping of the lexicon in which a key written with no value is an error, not a key left out."""

    @model_validator(mode="before")
    @classmethod
    def _no_nulls(cls, value: Any) -> Any:
        if isinstance(value, dict):
            for key, item in value.items():
                if item is None and key in cls.model_fields:
                    raise InputError(f"{key!r} has no value; give one or leave the key out")
        return value
