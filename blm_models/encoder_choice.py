"""`--encoder auto`: the encoder and layer measured best for a dataset config's phenomenon and language.

The measurements are in encoder_choice.yaml (made by benchmarks/encoder_layers.py: frozen encoders, FFNN head,
held-out lemmas, the layer picked on validation accuracy). A config is looked up by its family (the name
without `_typeX` / `_balanced`), then by phenomenon and language; a config the table does not cover gets the
MiniLM alias at its last layer, with a one-line note.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from .errors import UsageError
from builders.base import ConfigSpec

from .encoders import AUTO_ENCODER, DEFAULT_ENCODER_ALIAS

logger = logging.getLogger(__name__)
TABLE_FILE = Path(__file__).with_name("encoder_choice.yaml")


@dataclass(frozen=True)
class EncoderChoice:
    """What `auto` resolved to, and why (recorded in metrics.json under config.encoder.encoder_choice)."""

    requested: str
    encoder: str
    layer: int
    matched: str | None  # the table entry used, None for the fallback
    note: str


def config_family(name: str) -> str:
    """`cosplus_decase_t2i_typeIII_balanced` -> `cosplus_decase_t2i` (a family name is its own family)."""
    spec = ConfigSpec.parse(name)
    return spec.family if spec else name


@lru_cache(maxsize=4)
def load_table(path: str | None = None) -> dict[str, dict]:
    """The `choices` of encoder_choice.yaml, by config family; a malformed entry is an error naming it."""
    file = Path(path) if path else TABLE_FILE
    with open(file, encoding="utf-8") as handle:
        data = yaml.safe_load(handle) or {}
    choices = data.get("choices") or {}
    for family, entry in choices.items():
        missing = [key for key in ("phenomenon", "language", "encoder", "layer") if key not in (entry or {})]
        if missing:
            raise UsageError(f"{file}: entry {family!r} lacks {', '.join(missing)}")
    return choices


def choose_encoder(dataset_config: str | None, table: dict[str, dict] | None = None) -> EncoderChoice:
    """The measured best encoder and layer for a config name; the MiniLM alias (last layer) when not measured."""
    table = load_table() if table is None else table
    if dataset_config:
        family = config_family(dataset_config)
        tokens = family.split("_")
        entry, matched = table.get(family), family
        if entry is None and len(tokens) > 1:  # same phenomenon and language, another variant (e.g. i2t for t2i)
            matched = next((name for name, e in table.items()
                            if e["phenomenon"] == tokens[0] and e["language"] == tokens[1]), None)
            entry = table.get(matched) if matched else None
        if entry is not None:
            source = "its own family" if matched == family else f"{matched} (same phenomenon and language)"
            return EncoderChoice(AUTO_ENCODER, entry["encoder"], int(entry["layer"]), matched,
                                 f"--encoder auto: {entry['encoder']} layer {entry['layer']} for {dataset_config}, "
                                 f"measured on {source}")
    what = dataset_config or "data given by --dataset_path only"
    return EncoderChoice(AUTO_ENCODER, DEFAULT_ENCODER_ALIAS, -1, None,
                         f"--encoder auto: {what} is not in the measured table (blm_models/encoder_choice.yaml); "
                         f"using {DEFAULT_ENCODER_ALIAS} at its last layer")


def apply_auto_encoder(data_args, encoder_args) -> EncoderChoice | None:
    """With `--encoder auto`, set the encoder (and the layer, unless --hidden_layer was given) from the table and
    record the choice on `encoder_args.encoder_choice`; other encoders are left alone (returns None)."""
    if encoder_args.encoder != AUTO_ENCODER:
        return None
    choice = choose_encoder(getattr(data_args, "dataset_config", None))
    encoder_args.encoder = choice.encoder
    if encoder_args.hidden_layer == -1:
        encoder_args.hidden_layer = choice.layer
    encoder_args.encoder_choice = asdict(choice)
    if choice.matched is None:
        print(choice.note, flush=True)  # the one-line note of a fallback
    else:
        logger.info(choice.note)
    return choice
