"""``blm import``: the BLM files the original authors released, read into the ``blm export`` layout.

Formats (one module each): the tab-separated "4dev" files (``fourdev``), the early BLM-AgrF CSVs
(``agrf_csv``), the CALAMITA JSON (``calamita_json``) and the release's split folders
(``split_files``); ``header_repair`` reads a corrupt 4dev header's layout from its rows. ``labels``
maps released label names to the toolkit's labels and classes, ``agreement`` labels agreement
candidates by their content (the names are only checked against it), ``infer`` decides phenomenon,
language, variant, lexical type and clause type, ``defects`` finds and repairs the release's defects,
``checks`` runs the validator, ``build`` puts it together (a file that cannot be imported is
reported, never stops the others; duplicate files are imported once) and ``report`` prints it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

import datasets

from blm_datasets.digest import files_digest, source_digest
from blm_datasets.importer import report
from blm_datasets.importer.build import ImportOptions, ImportResult, build
from blm_datasets.importer.rows import ReleaseError

DEFAULT_LICENSE = "unknown"


def generation_info(result: ImportResult, summary: dict[str, Any]) -> dict[str, Any]:
    """The manifest's and card's ``generation``: the keys of an export plus the import report under ``import``."""
    try:
        version = metadata.version("blm-toolkit")
    except metadata.PackageNotFoundError:
        version = "unknown"
    opts = result.options
    modes = {"random" if c.split.startswith("random") else "release" for c in result.config_reports.values()}
    options = json.dumps(asdict(opts), sort_keys=True)
    digest = hashlib.sha256((files_digest(result.inputs) + options).encode()).hexdigest()[:16]
    return {"toolkit_version": version, "datasets_version": datasets.__version__, "digest": source_digest(),
            "seed": opts.seed, "size": None, "split_mode": "/".join(sorted(modes)),
            "test_size": opts.test_size if "random" in modes else None,
            "sources": sorted({Path(p).name for p in result.inputs}), "sources_digest": digest, "import": summary}


def _shown(summary: dict[str, Any], srcs: list[str]) -> dict[str, Any]:
    """The summary with file paths written relative to the folder each SRC sits in (no local folders in the card)."""
    parents = {Path(s).expanduser().parent for s in srcs}
    prefixes = sorted({str(p) for p in parents if len(p.parts) > 1 or (p.parts and p.parts[0] not in ("/", "."))},
                      key=len, reverse=True)

    def fix(value: Any) -> Any:
        if isinstance(value, str):
            for prefix in prefixes:
                value = value.replace(prefix.rstrip("/") + "/", "")
            return value
        if isinstance(value, list):
            return [fix(v) for v in value]
        if isinstance(value, dict):
            return {fix(k): fix(v) for k, v in value.items()}
        return value

    return fix(summary)


def import_release(srcs: list[str], out: str | Path | None, opts: ImportOptions = ImportOptions(), *,
                   overwrite: bool = False, license_id: str = DEFAULT_LICENSE, default: str | None = None,
                   command: str | None = None, say: Callable[[str], None] | None = print):
    """Import ``srcs`` into the export folder ``out`` (None: only report).

    Returns (ImportResult, ExportResult | None); the report goes line by line to ``say``.
    """
    from blm_datasets.export import write_configs

    say = say or (lambda _line: None)
    result = build(srcs, opts)
    summary = result.as_dict()
    for line in report.lines(summary):
        say(line)
    if out is None:
        return result, None
    if default is not None and default not in result.configs:
        raise ReleaseError(f"--default {default!r} is not among the imported configs: {', '.join(result.configs)}")
    summary = _shown(summary, srcs)
    summary["command"] = command or " ".join(["blm", "import", *[Path(s).name for s in srcs], "--out", "DIR"])
    written = write_configs(out, result.configs, generation=generation_info(result, summary), default=default,
                            license_id=license_id, overwrite=overwrite)
    rows = sum(len(r) for splits in result.configs.values() for r in splits.values())
    say(f"wrote {written.out}: {len(result.configs)} config{'s' if len(result.configs) != 1 else ''}, {rows} rows "
        f"({', '.join(result.configs)})")
    return result, written


__all__ = ["ImportOptions", "ImportResult", "ReleaseError", "build", "import_release"]
