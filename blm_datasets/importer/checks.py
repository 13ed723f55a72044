"""The validator (blm_datasets.validate) on imported rows, saying which of its checks apply.

Imported configs are checked against the registered spec of the same name. Two checks compare
with the toolkit's own templates and cannot judge the release: ``gold_is_next_step`` needs the
toolkit's pattern notation (the releases write ``Subj_sg P1_sg P2_None V_sg`` or nothing), and
``chunks_match`` is empty when the release has no chunks (each sentence is then one chunk). Those
are reported as not applicable, with the reason, instead of failing every row.
"""

from __future__ import annotations

from typing import Any

from blm_datasets.validate import validate_rows
from builders import registry


def validate_config(name: str, records: list[dict[str, Any]], has_chunks: bool) -> dict[str, Any]:
    """{"registered", "failures" (applicable checks), "not_applicable" {check: reason}, "gold_position_pvalue"}."""
    try:
        spec = registry.get_spec(name)
        generator = registry.generator(spec.phenomenon, spec.language)
    except ValueError as err:
        return {"registered": False, "reason": f"not a registered config ({str(err).split('. ')[0]}); "
                                               "the validator needs the toolkit's template for it"}
    not_applicable = {}
    if not has_chunks:
        not_applicable["chunks_match"] = "the release has no chunks (each sentence is stored as one chunk)"
    if not _patterns_known(generator, spec, records):
        example = next((p for r in records for p in r["context_patterns"] if p), "")
        not_applicable["gold_is_next_step"] = (
            f"the release's patterns (e.g. {example!r}) are not the toolkit's template notation" if example
            else "the release has no patterns")
    sizes = sorted({len(r["context"]) for r in records})
    if sizes != [generator.context_size]:
        not_applicable["(all but lengths)"] = (f"the release's contexts have {'/'.join(map(str, sizes))} sentences, "
                                               f"the toolkit's template {generator.context_size}: the validator stops "
                                               "at the lengths check")
    report = validate_rows(records, spec)
    failures = {k: v for k, v in report["failures"].items() if k not in not_applicable}
    return {"registered": True, "rows": report["rows"], "failures": failures, "not_applicable": not_applicable,
            "gold_position_pvalue": report["gold_position_pvalue"]}


def _patterns_known(generator, spec, records: list[dict[str, Any]]) -> bool:
    """True when the toolkit's template knows the context patterns of some row (then the check means something)."""
    for record in records[:200]:
        try:
            if generator.next_patterns(spec, record["template"], record["context_patterns"]):
                return True
        except Exception:  # noqa: BLE001 - a template that cannot read foreign patterns does not know them
            return False
    return False
