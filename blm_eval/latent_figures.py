"""Figures, report.md and results.json of a VAE latent analysis (`blm_eval.latent`): the pattern confusion
matrix (002 Fig. 20 top), the traversal grid (Fig. 21), accuracy along the traversal, the 2-D projection
(Fig. 22). Built with matplotlib's object API (no pyplot state), so they render headless."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from .latent import LatentAnalysis

FIGURE_FILES = {"confusion": "confusion.png", "traversal": "traversal.png",
                "traversal_accuracy": "traversal_accuracy.png", "projection": "projection.png"}


def _row_shares(matrix: np.ndarray) -> np.ndarray:
    """Each row divided by its total (rows without items stay 0)."""
    totals = matrix.sum(axis=-1, keepdims=True)
    return np.divide(matrix, totals, out=np.zeros(matrix.shape, dtype=float), where=totals > 0)


def _items_word(analysis: LatentAnalysis) -> str:
    return "test sentences" if analysis.kind == "pattern" else "test instances"


def confusion_figure(analysis: LatentAnalysis) -> Figure:
    """Heatmap gold class x predicted class (row shares), counts written in when the matrix is small."""
    rows, n = analysis.gold_rows, len(analysis.classes)
    matrix = analysis.confusion[rows]
    small = n <= 14
    fig = Figure(figsize=(max(7, 0.32 * n + 4), max(3.5, 0.3 * len(rows) + 3)), layout="constrained")
    ax = fig.add_subplot()
    image = ax.imshow(_row_shares(matrix), cmap="Blues", vmin=0, vmax=1, aspect="auto")
    fontsize = 9 if small else 7
    ax.set_xticks(range(n), analysis.classes, rotation=90, fontsize=fontsize)
    ax.set_yticks(range(len(rows)), [analysis.classes[k] for k in rows], fontsize=fontsize)
    if small:
        for i, j in zip(*np.nonzero(matrix)):
            ax.text(j, i, str(matrix[i, j]), ha="center", va="center", fontsize=7,
                    color="white" if matrix[i, j] > 0.5 * matrix[i].sum() else "black")
    ax.set_xlabel(f"predicted {analysis.kind}")
    ax.set_ylabel(f"gold {analysis.kind}")
    level = "Pattern-level evaluation" if analysis.kind == "pattern" else "Answer-level evaluation"
    ax.set_title(f"{level} ({analysis.head})\n{int(matrix.sum())} {_items_word(analysis)}: "
                 f"accuracy {analysis.accuracy:.3f}")
    fig.colorbar(image, ax=ax, label="share of the gold row")
    return fig


def traversal_figure(analysis: LatentAnalysis) -> Figure:
    """Grid of confusion heatmaps, one row per latent unit, one column per traversal value (002 Fig. 21).
    With a single gold class (sentence_vae: the gold answer), one heatmap per unit: value x picked class."""
    units, steps = analysis.traversal_values.shape
    rows = analysis.gold_rows
    if len(rows) == 1:
        return _single_row_traversal_figure(analysis, rows[0])
    accuracy = analysis.traversal_accuracy
    fig = Figure(figsize=(1.5 * steps + 1.2, 1.55 * units + 1.2), layout="constrained")
    axes = fig.subplots(units, steps, squeeze=False)
    for unit in range(units):
        for step in range(steps):
            ax = axes[unit, step]
            shares = _row_shares(analysis.traversal_confusions[unit, step][rows])
            ax.imshow(shares, cmap="Blues", vmin=0, vmax=1, aspect="auto", interpolation="nearest")
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(f"z{unit + 1}={analysis.traversal_values[unit, step]:.2f}\nacc {accuracy[unit, step]:.2f}",
                         fontsize=7)
            if step == 0:
                ax.set_ylabel(f"unit {unit + 1}\ngold {analysis.kind}", fontsize=8)
            if unit == units - 1:
                ax.set_xlabel(f"predicted {analysis.kind}", fontsize=7)
    fig.suptitle(f"Latent traversal ({analysis.head}): rows = latent units, columns = {steps} values from the "
                 f"training min to max; untouched accuracy {analysis.accuracy:.3f}")
    return fig


def _single_row_traversal_figure(analysis: LatentAnalysis, gold: int) -> Figure:
    """One heatmap per unit: traversal value (rows) x picked class (columns), share of items."""
    units, steps = analysis.traversal_values.shape
    n = len(analysis.classes)
    fig = Figure(figsize=(max(6, 0.45 * n + 2) * min(units, 3), 3.2 * -(-units // 3)), layout="constrained")
    axes = fig.subplots(-(-units // 3), min(units, 3), squeeze=False).ravel()
    for unit in range(units):
        ax = axes[unit]
        picks = _row_shares(analysis.traversal_confusions[unit, :, gold, :])
        ax.imshow(picks, cmap="Blues", vmin=0, vmax=1, aspect="auto")
        ax.set_xticks(range(n), analysis.classes, rotation=90, fontsize=7)
        ax.set_yticks(range(steps), [f"{v:.2f}" for v in analysis.traversal_values[unit]], fontsize=7)
        ax.set_xlabel(f"picked {analysis.kind}")
        ax.set_ylabel(f"value of unit {unit + 1}")
        ax.set_title(f"unit {unit + 1}", fontsize=9)
    for ax in axes[units:]:
        ax.set_visible(False)
    fig.suptitle(f"Latent traversal ({analysis.head}): share of picks of each {analysis.kind} per value "
                 f"(gold: {analysis.classes[gold]}); untouched accuracy {analysis.accuracy:.3f}")
    return fig


def traversal_accuracy_figure(analysis: LatentAnalysis) -> Figure:
    """Accuracy at each traversal step, one line per latent unit, with the untouched accuracy for reference."""
    units, steps = analysis.traversal_values.shape
    accuracy = analysis.traversal_accuracy
    fig = Figure(figsize=(7, 4.2), layout="constrained")
    ax = fig.add_subplot()
    for unit in range(units):
        ax.plot(range(1, steps + 1), accuracy[unit], marker="o", label=f"unit {unit + 1}")
    ax.axhline(analysis.accuracy, color="black", linestyle="--", label="untouched")
    ax.set_xticks(range(1, steps + 1), ["min"] + [str(s) for s in range(2, steps)] + ["max"])
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("traversal step (training min to max of the unit)")
    ax.set_ylabel(f"{analysis.kind} accuracy")
    ax.set_title(f"{analysis.kind.capitalize()} accuracy along the traversal of each latent unit ({analysis.head})")
    ax.legend(fontsize=8, loc="best")
    return fig


def _palette(count: int) -> list:
    """Up to 60 distinct colours (tab20, tab20b, tab20c), cycled beyond."""
    from matplotlib import colormaps

    colours = [colormaps[name](i) for name in ("tab20", "tab20b", "tab20c") for i in range(20)]
    if count <= 10:
        colours = [colormaps["tab10"](i) for i in range(10)]
    return [colours[i % len(colours)] for i in range(count)]


def projection_figure(analysis: LatentAnalysis) -> Figure:
    """Scatter of the 2-D projection of the latents, coloured by pattern, with a legend (002 Fig. 22)."""
    from .latent import pattern_order

    names = pattern_order(analysis.colours)
    colours, markers = _palette(len(names)), "os^vDP*X"
    fig = Figure(figsize=(9 if len(names) <= 20 else 12, 6.5), layout="constrained")
    ax = fig.add_subplot()
    points = np.asarray(analysis.projection)
    labels = np.asarray(analysis.colours)
    for k, name in enumerate(names):
        chosen = labels == name
        ax.scatter(points[chosen, 0], points[chosen, 1], s=9, alpha=0.7, color=colours[k],
                   marker=markers[(k // 20) % len(markers)], label=f"{name} ({int(chosen.sum())})")
    method = "PCA component" if analysis.projection_method == "pca" else "t-SNE dimension"
    ax.set_xlabel(f"{method} 1")
    ax.set_ylabel(f"{method} 2")
    what = "Sentence latents" if analysis.kind == "pattern" else "Task latents"
    coloured = "chunk pattern" if analysis.kind == "pattern" else "gold answer pattern"
    distinct = len(np.unique(np.asarray(analysis.latents), axis=0))
    method_name = "PCA" if analysis.projection_method == "pca" else "t-SNE"
    ax.set_title(f"{what} (mu) of {len(points)} {_items_word(analysis)} ({distinct} distinct), {method_name}, "
                 f"coloured by {coloured}")
    ax.legend(fontsize=6 if len(names) > 20 else 8, markerscale=1.5, loc="center left", bbox_to_anchor=(1.01, 0.5),
              ncol=1 if len(names) <= 24 else 2, title=coloured)
    return fig


def build_figures(analysis: LatentAnalysis) -> dict[str, Figure]:
    """Every figure, by name (keys of FIGURE_FILES)."""
    return {"confusion": confusion_figure(analysis), "traversal": traversal_figure(analysis),
            "traversal_accuracy": traversal_accuracy_figure(analysis), "projection": projection_figure(analysis)}


def report_markdown(analysis: LatentAnalysis) -> str:
    """report.md: set-up, pattern accuracy per class, accuracy per unit across the traversal, figure links."""
    d, kind = analysis.details, analysis.kind
    units, steps = analysis.traversal_values.shape
    level = "Pattern-level evaluation" if kind == "pattern" else "Answer-level evaluation"
    lines = [
        f"# Latent analysis of `{d.get('checkpoint', '?')}`", "",
        f"- head: `{analysis.head}`; latent size {units}; traversal steps {steps}",
        f"- data: `{d.get('dataset_config') or d.get('dataset_path')}`; {int(analysis.confusion.sum())} "
        f"{_items_word(analysis)} analysed (from {d.get('test_instances', '?')} test instances)",
        f"- latent ranges from {analysis.n_train_items} training items ({d.get('training_items_from', '?')})",
        f"- projection: {analysis.projection_method}; time: {d.get('seconds', '?')} s", "",
        f"## {level}", "",
        f"Accuracy: **{analysis.accuracy:.3f}** (the decoded latent mean scores highest on a candidate of the gold "
        f"{kind}).", "",
        f"| # | gold {kind} | items | correct | accuracy | most often predicted instead |",
        "|---|---|---|---|---|---|",
    ]
    for k in analysis.gold_rows:
        row = analysis.confusion[k]
        wrong = row.copy()
        wrong[k] = 0
        instead = f"{analysis.classes[int(wrong.argmax())]} ({int(wrong.max())})" if wrong.any() else "-"
        lines.append(f"| {k + 1} | {analysis.classes[k]} | {int(row.sum())} | {int(row[k])} | "
                     f"{row[k] / row.sum():.3f} | {instead} |")
    header = "| unit | train min | train max | " + " | ".join(f"step {s + 1}" for s in range(steps)) + " | spread |"
    lines += ["", "![confusion matrix](confusion.png)", "", "## Latent traversal", "",
              f"Each unit is set, for every item, to {steps} values from its training min to max (the others "
              f"keep their encoded values); the table gives the {kind} accuracy after each step "
              f"(untouched: {analysis.accuracy:.3f}); spread = max - min accuracy along the unit.", "",
              header, "|" + "---|" * (steps + 4)]
    accuracy = analysis.traversal_accuracy
    for unit in range(units):
        cells = " | ".join(f"{a:.3f}" for a in accuracy[unit])
        lines.append(f"| {unit + 1} | {analysis.latent_min[unit]:.3f} | {analysis.latent_max[unit]:.3f} | {cells} | "
                     f"{accuracy[unit].max() - accuracy[unit].min():.3f} |")
    lines += ["", "![traversal grid](traversal.png)", "", "![accuracy along the traversal](traversal_accuracy.png)",
              "", "## 2-D projection of the latents", "", "![projection](projection.png)", ""]
    return "\n".join(lines)


def results_json(analysis: LatentAnalysis) -> dict:
    """Everything computed, as plain JSON: matrices, per-class and per-step accuracies, latents, projection."""
    return {
        "head": analysis.head, "kind": analysis.kind, "classes": analysis.classes,
        "items": int(analysis.confusion.sum()), "train_items": analysis.n_train_items,
        "accuracy": analysis.accuracy, "confusion": analysis.confusion.tolist(),
        "per_class_accuracy": {analysis.classes[k]: float(analysis.confusion[k, k] / analysis.confusion[k].sum())
                               for k in analysis.gold_rows},
        "latent_min": analysis.latent_min.tolist(), "latent_max": analysis.latent_max.tolist(),
        "traversal_values": analysis.traversal_values.tolist(),
        "traversal_accuracy": analysis.traversal_accuracy.tolist(),
        "traversal_confusions": analysis.traversal_confusions.tolist(),
        "projection_method": analysis.projection_method, **analysis.details,
        "projection": np.asarray(analysis.projection).tolist(), "latents": np.asarray(analysis.latents).tolist(),
        "colours": analysis.colours,
    }


def write_outputs(analysis: LatentAnalysis, out: Path, dpi: int = 110) -> dict[str, Path]:
    """PNGs, report.md and results.json under `out`; returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for name, figure in build_figures(analysis).items():
        written[name] = out / FIGURE_FILES[name]
        figure.savefig(written[name], dpi=dpi)
    written["report"] = out / "report.md"
    written["report"].write_text(report_markdown(analysis), encoding="utf-8")
    written["results"] = out / "results.json"
    written["results"].write_text(json.dumps(results_json(analysis), indent=1), encoding="utf-8")
    return written
