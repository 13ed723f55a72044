"""The card of an imported release (``blm import``): what differs from a generated export's card.

``render_dataset_card`` calls ``import_context`` when the generation info carries an ``import``
report; the template then says where the rows came from, lists every file with its defects and
repairs, what the validator could and could not check, and the label table used.
"""

from __future__ import annotations

from typing import Any

# Column meanings that differ for imported rows (the others are those of COLUMN_DOCS).
IMPORT_COLUMN_DOCS = {
    "id": "stable id within this folder (config, split, index in the split)",
    "lemma": "the verb the release names for the instance (CALAMITA `Verb`, a 4dev `Verb`/`ID` column), else empty",
    "template": "the template variant (agreement: the clause type from the release's patterns, file name or "
                "sentences)",
    "context_patterns": "the release's pattern of each context sentence, in its own notation (empty when it has none)",
    "context_chunks": "the release's chunks of each context sentence (the whole sentence when it has none)",
    "answers": "the candidate answers, in the release's order (shuffled when imported with `--repair`)",
    "answer_labels": "the label of each candidate: `Correct`, or the toolkit's name for the released label "
                     "(agreement: the label the candidate's content gives)",
    "answer_patterns": "the release's pattern of each candidate (empty when it has none)",
}
DEFECT_DOCS = {
    "duplicate_candidates": "two distractors have the same text",
    "gold_equals_distractor": "a distractor has the gold answer's text",
    "gold_same_position": "the gold answer is in the same position in every row",
    "gold_position_skewed": "gold positions are not uniform (chi-square p ≤ 0.01); count = rows at the commonest",
    "chunks_mismatch": "a sentence's text is not its chunks joined",
    "answer_in_context": "a candidate repeats a context sentence word for word",
    "duplicate_instances": "the row repeats an earlier instance (same context and answers)",
    "label_pattern_mismatch": "a candidate's released pattern contradicts its label (agreement errors: the noun "
                              "the verb agrees with)",
    "test_sentences_in_train": "a test row has a sentence (context or candidate) that also occurs in train",
    "constant_answer_column": "an answer column holds the same sentence in every row of its file",
}
_UNUSABLE = {
    "missing_cells": "missing cells", "bad_value": "unparsable cells", "no_gold": "no gold",
    "two_golds": "two golds", "gold_label_conflict": "gold flag and label disagree", "empty_text": "empty sentence",
    "too_few_candidates": "under two distinct candidates", "not_in_release_split": "not in the release's split",
}


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _findings(found: dict[str, dict[str, Any]]) -> str:
    parts = []
    for kind, finding in found.items():
        detail = ", ".join(f"{k} {v}" for k, v in list(finding["detail"].items())[:3])
        parts.append(f"{kind} {finding['count']}" + (f" ({detail})" if detail else ""))
    return "; ".join(parts) or "none"


def _repairs(report: dict[str, Any], repair: bool) -> str:
    dropped = ", ".join(f"{_UNUSABLE.get(k, k)} {v}" for k, v in report["dropped"].items())
    if not repair:
        return f"dropped: {dropped}" if dropped else "—"
    r = report["repairs"]
    removed = sum(r.get("candidates_removed", {}).values())
    text = (f"candidates removed {removed}, instances removed {r.get('instances_removed', 0)}, "
            f"rows shuffled {r.get('rows_shuffled', 0)}")
    return text + (f"; dropped: {dropped}" if dropped else "")


def import_context(imported: dict[str, Any]) -> dict[str, Any]:
    """The template's view of an import report (ImportResult.as_dict plus the command)."""
    files = [{"path": f["path"], "format": f["format"], "config": f["config"], "rows": f["rows"], "kept": f["kept"],
              "split": f["split"], "defects": _cell(_findings(f["defects"])),
              "repairs": _cell(_repairs(f, imported["repair"]))} for f in imported["files"]]
    kinds = {k for f in imported["files"] for k in f["defects"]}
    configs = []
    for c in imported["configs"].values():
        checks = c["checks"]
        shared = c.get("test_sentences_in_train")
        configs.append({
            "name": c["name"], "splits": ", ".join(f"{s} {n}" for s, n in c["splits"].items()),
            "shared": f"{shared['count']} of {c['splits'].get('test', 0)}" if shared else "—",
            "failing": (", ".join(f"{k} {v}" for k, v in checks.get("failures", {}).items() if v) or "none")
            if checks.get("registered") else "not run: " + checks.get("reason", ""),
            "not_applicable": _cell("; ".join(f"{k}: {v}" for k, v in checks.get("not_applicable", {}).items())
                                    or "—"),
        })
        if shared and shared["count"]:
            kinds.add("test_sentences_in_train")
    return {
        "files": files, "configs": configs, "repair": imported["repair"], "command": imported.get("command", ""),
        "defects": [(k, DEFECT_DOCS[k]) for k in DEFECT_DOCS if k in kinds],
        "labels": [[_cell(x) for x in row] for row in imported["labels"]], "skipped": imported.get("skipped", []),
        "failed": [{"path": f["path"], "reason": _cell(f["reason"])} for f in imported.get("failed", [])],
        "duplicates": imported.get("duplicates", []),
        "relabelled": [{"path": f["path"], "count": f["content_labels"]["relabelled"]["count"],
                        "detail": _cell(", ".join(f"{k} {v}" for k, v in
                                                  list(f["content_labels"]["relabelled"]["detail"].items())[:4]))}
                       for f in imported["files"] if f.get("content_labels", {}).get("relabelled", {}).get("count")],
    }
