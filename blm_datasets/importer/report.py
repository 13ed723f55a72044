"""The import report as console lines (the card renders the same data from ``ImportResult.as_dict``)."""

from __future__ import annotations

from typing import Any

from blm_datasets.importer.defects import DESCRIPTIONS, UNUSABLE
from blm_datasets.validate import format_pvalue


def _detail(finding: dict[str, Any], limit: int = 3) -> str:
    parts = [f"{k} {v}" for k, v in list(finding["detail"].items())[:limit]]
    more = len(finding["detail"]) - limit
    return ", ".join(parts) + (f", … {more} more" if more > 0 else "")


def defect_line(kind: str, finding: dict[str, Any]) -> str:
    """``duplicate_candidates 100 (AEN1 = AEN2 100; e.g. FILE:2)``."""
    example = f"; e.g. {finding['examples'][0]}" if finding.get("examples") else ""
    return f"{kind} {finding['count']} ({_detail(finding)}{example})"


def file_lines(report: dict[str, Any], repair: bool) -> list[str]:
    """The lines of one file: what it is, where it went, its defects and the repairs."""
    inferred = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in report["inferred"].items())
    lines = [f"{report['path']}: {report['format']}, {report['rows']} rows -> {report['config']} "
             f"({report['kept']} kept; split {report['split']})", f"  inferred: {inferred}"]
    lines += [f"  note: {note}" for note in report["notes"]]
    lines += content_lines(report.get("content_labels") or {})
    if report["defects"]:
        lines.append("  defects: " + "; ".join(defect_line(k, f) for k, f in report["defects"].items()))
    else:
        lines.append("  defects: none found")
    if report["dropped"]:
        lines.append("  dropped: " + ", ".join(f"{UNUSABLE.get(k, k)} {v}" for k, v in report["dropped"].items()))
    if repair:
        r = report["repairs"]
        removed = r.get("candidates_removed", {})
        lines.append(f"  repairs: candidates removed {sum(removed.values())}"
                     + (f" ({', '.join(f'{k} {v}' for k, v in removed.items())})" if removed else "")
                     + f", instances removed {r.get('instances_removed', 0)}, rows shuffled {r.get('rows_shuffled', 0)}"
                     + f" (gold positions now {_positions(r.get('gold_positions_after', {}))})")
    elif report["defects"]:
        lines.append("  repairs: none (pass --repair to de-duplicate, shuffle the gold position and drop "
                     "unusable rows)")
    return lines


def content_lines(checked: dict[str, Any]) -> list[str]:
    """Agreement: how many candidates the content labelled, and where it overruled the released name."""
    if not checked:
        return []
    read = " and ".join(f"{k} ({v} rows)" for k, v in checked["read"].items()) or "nothing readable"
    refined = ", ".join(f"{k} {v}" for k, v in checked["refined"].items())
    undecided = sum(checked["undecided"].values())
    out = [f"  labels from content: {checked['checked']} candidates read from the {read}"
           + (f"; refined {refined}" if refined else "")
           + (f"; {undecided} undecided, kept as named ({_detail({'detail': checked['undecided']}, 2)})"
              if undecided else "")]
    if checked["relabelled"]["count"]:
        out.append("  labels the content overrules: " + defect_line("relabelled", checked["relabelled"]))
    return out


def _positions(counts: dict) -> str:
    return " ".join(f"{k}:{v}" for k, v in counts.items()) or "-"


def config_lines(report: dict[str, Any]) -> list[str]:
    """The lines of one config: splits, the train/test overlap and what the validator says."""
    sizes = ", ".join(f"{s} {n}" for s, n in report["splits"].items())
    lines = [f"{report['name']}: {sizes} (split {report['split']})"]
    if report["test_sentences_in_train"]:
        finding = report["test_sentences_in_train"]
        total = report["splits"].get("test", 0)
        lines.append(f"  test_sentences_in_train {finding['count']} of {total} test rows"
                     + (f" ({_detail(finding)})" if finding["count"] else ""))
    checks = report["checks"]
    if not checks.get("registered"):
        lines.append(f"  validator: {checks.get('reason', 'not run')}")
    else:
        failed = ", ".join(f"{k} {v}" for k, v in checks["failures"].items() if v)
        verdict = f"{failed} failing" if failed else "every check passes"
        lines.append(f"  validator ({checks['rows']} rows): {verdict}; "
                     f"gold-position {format_pvalue(checks['gold_position_pvalue'], '.3g')}")
        for check, reason in checks["not_applicable"].items():
            lines.append(f"  not applicable: {check} ({reason})")
    lines += [f"  warning: {w}" for w in report["warnings"]]
    return lines


def lines(summary: dict[str, Any]) -> list[str]:
    """Every line of the import report, files first, then configs."""
    out = []
    for report in summary["files"]:
        out += file_lines(report, summary["repair"])
    out += [f"duplicate {d['path']}: {d['how']} {d['of']}; imported once" for d in summary.get("duplicates", [])]
    out += [f"not imported {f['path']}: {f['reason']}" for f in summary.get("failed", [])]
    out += [f"skipped {s}" for s in summary["skipped"]]
    out += [f"note: {n}" for n in summary["notes"]]
    for report in summary["configs"].values():
        out += config_lines(report)
    failed = summary.get("failed", [])
    if failed:
        out.append(f"{len(failed)} file{'s' if len(failed) > 1 else ''} not imported (listed above with the "
                   f"reason and the fix); the other {len(summary['files'])} imported")
    return out


__all__ = ["lines", "file_lines", "config_lines", "defect_line", "DESCRIPTIONS"]
