"""The Jinja environment of the card templates (``hub_cards/*.j2``)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2


@functools.cache
def environment() -> jinja2.Environment:
    """Templates load from this package folder; undefined variables fail loudly instead of rendering empty."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(template: str, **context: Any) -> str:
    """Render ``template`` with ``context``."""
    return environment().get_template(template).render(**context)
