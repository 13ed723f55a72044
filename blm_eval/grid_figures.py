"""What `blm grid` shows: train × test accuracy heatmap (002 Figs. 15-16), stacked bars of the picked answer labels
(002 Figs. 17-19), gold × picked confusion matrices (CausH binyanim, 000 Fig. 16), and report.md with the tables.

Figures are `matplotlib.figure.Figure` objects, made without pyplot (no global state, no display needed).
"""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from blm_eval.grid import config_family

CORRECT_COLOUR = "#2ca02c"
CLASS_COLOURMAPS = {"SEQUENCE": "Blues", "GRAMMAR": "Oranges"}  # error labels shaded by their error class
OTHER_COLOURMAP = "Greys"


def _title(results: dict) -> str:
    settings = results["settings"]
    families = ", ".join(dict.fromkeys(config_family(c) for c in results["configs"]))
    encoder = (settings["encoder"] or "all-MiniLM-L6-v2").rstrip("/").rsplit("/", 1)[-1]
    return f"{families}: {settings['head'].upper()} on {encoder}, {len(settings['seed_values'])} seeds"


def _trained(results: dict) -> list[str]:
    return [c for c in results["configs"] if any(r["train"] == c for r in results["runs"])]


def accuracy_heatmap(results: dict) -> Figure:
    """Rows: train config, columns: test config; cells: mean ± std accuracy over seeds."""
    trained, tested, labels, cells = _trained(results), results["configs"], results["labels"], results["cells"]
    mean = np.array([[cells[f"{t}|{c}"]["mean"] for c in tested] for t in trained])
    std = np.array([[cells[f"{t}|{c}"]["std"] for c in tested] for t in trained])
    figure = Figure(figsize=(2.2 + 1.5 * len(tested), 1.6 + 1.0 * len(trained)), layout="constrained")
    axes = figure.add_subplot()
    image = axes.imshow(mean, vmin=0, vmax=1, cmap="viridis")
    for i in range(len(trained)):
        for j in range(len(tested)):
            axes.text(j, i, f"{mean[i, j]:.2f}\n± {std[i, j]:.2f}", ha="center", va="center", fontsize=9,
                      color="black" if mean[i, j] > 0.6 else "white")
    axes.set_xticks(range(len(tested)), [labels[c] for c in tested])
    axes.set_yticks(range(len(trained)), [labels[t] for t in trained])
    axes.set_xlabel("test data")
    axes.set_ylabel("train data")
    axes.set_title(f"Accuracy, train × test\n{_title(results)}", fontsize=10)
    figure.colorbar(image, ax=axes, label="accuracy (mean over seeds)")
    return figure


def label_order(cells: dict) -> list[tuple[str, str]]:
    """(label, error class) of every picked label: Correct first, then by class and name."""
    classes: dict[str, str] = {}
    for cell in cells.values():
        classes.update(cell["label_classes"])
    rank = {"CORRECT": 0, "SEQUENCE": 1, "GRAMMAR": 2}
    return sorted(classes.items(), key=lambda item: (rank.get(item[1], 3), item[1], item[0]))


def label_colours(order: list[tuple[str, str]]) -> dict[str, tuple]:
    """Correct in green; error labels in shades of their class's colour map."""
    colours: dict[str, tuple] = {}
    by_class: dict[str, list[str]] = {}
    for name, cls in order:
        if name == "Correct" or cls == "CORRECT":
            colours[name] = CORRECT_COLOUR
        else:
            by_class.setdefault(cls, []).append(name)
    for cls, names in by_class.items():
        cmap = colormaps[CLASS_COLOURMAPS.get(cls, OTHER_COLOURMAP)]
        for k, name in enumerate(names):
            colours[name] = cmap(0.35 + 0.55 * k / max(1, len(names) - 1))
    return colours


def picked_label_bars(results: dict, order: list[tuple[str, str]]) -> Figure:
    """One stacked bar per (train, test): the share of picks of each answer label, over all seeds."""
    trained, tested, labels, cells = _trained(results), results["configs"], results["labels"], results["cells"]
    pairs = [(t, c) for t in trained for c in tested]
    positions = [i + 0.6 * trained.index(t) for i, (t, _) in enumerate(pairs)]  # a gap between train groups
    colours = label_colours(order)
    figure = Figure(figsize=(3.5 + 0.75 * len(pairs), 4.8), layout="constrained")
    axes = figure.add_subplot()
    bottom = np.zeros(len(pairs))
    for name, cls in order:
        shares = []
        for t, c in pairs:
            picks = cells[f"{t}|{c}"]["picks_per_label"]
            total = sum(picks.values())
            shares.append(picks.get(name, 0) / total if total else 0.0)
        axes.bar(positions, shares, bottom=bottom, width=0.8, color=colours[name], edgecolor="white",
                 linewidth=0.5, label=name if name == "Correct" else f"{name} ({cls})")
        bottom += np.asarray(shares)
    axes.set_xticks(positions, [f"{labels[t]}\n→ {labels[c]}" for t, c in pairs], fontsize=8)
    axes.set_ylim(0, 1)
    axes.set_xlabel("train data → test data")
    axes.set_ylabel("share of picked answers")
    axes.set_title(f"Picked answer labels (correct + errors)\n{_title(results)}", fontsize=10)
    axes.legend(title="answer label (error class)", loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return figure


def confusion_matrices(results: dict) -> Figure | None:
    """Gold × picked value (CausH: binyan) for every (train, test) with a confusion, as row proportions."""
    cells, labels = results["cells"], results["labels"]
    pairs = [(t, c) for t in _trained(results) for c in results["configs"] if "confusion" in cells[f"{t}|{c}"]]
    if not pairs:
        return None
    columns = min(len(pairs), 3)
    rows = -(-len(pairs) // columns)
    figure = Figure(figsize=(1.0 + 4.2 * columns, 0.8 + 3.8 * rows), layout="constrained")
    grid = figure.subplots(rows, columns, squeeze=False)
    image = None
    for axes, (t, c) in zip(grid.flat, pairs):
        confusion = cells[f"{t}|{c}"]["confusion"]
        values, attribute = confusion["order"], confusion["attribute"]
        counts = np.array([[confusion["counts"].get(g, {}).get(p, 0) for p in values] for g in values], dtype=float)
        shares = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
        image = axes.imshow(shares, vmin=0, vmax=1, cmap="Blues")
        for i in range(len(values)):
            for j in range(len(values)):
                axes.text(j, i, f"{shares[i, j]:.2f}\n({int(counts[i, j])})", ha="center", va="center", fontsize=8,
                          color="white" if shares[i, j] > 0.6 else "black")
        axes.set_xticks(range(len(values)), values, fontsize=8)
        axes.set_yticks(range(len(values)), values, fontsize=8)
        axes.set_xlabel(f"picked {attribute}")
        axes.set_ylabel(f"gold {attribute}")
        axes.set_title(f"train {labels[t]} → test {labels[c]}", fontsize=9)
    for axes in list(grid.flat)[len(pairs):]:
        axes.set_visible(False)
    figure.suptitle(f"Confusion matrices (share of each gold row, counts in brackets)\n{_title(results)}", fontsize=10)
    figure.colorbar(image, ax=grid.ravel().tolist(), label="share of the gold row")
    return figure


def grid_figures(results: dict, order: list[tuple[str, str]] | None = None) -> dict[str, Figure]:
    """Every figure of a grid, by file stem: heatmap, picked_labels and (CausH) confusion."""
    order = order or label_order(results["cells"])
    figures = {"heatmap": accuracy_heatmap(results), "picked_labels": picked_label_bars(results, order)}
    confusion = confusion_matrices(results)
    if confusion is not None:
        figures["confusion"] = confusion
    return figures


# ------------------------------------------------------------------------------------------ report.md
def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(r) + " |" for r in rows)]


def render_report(results: dict, files: dict[str, str]) -> str:
    """report.md: the accuracy table (mean ± std and per seed), picked answers, confusions, settings, timing."""
    configs, labels, cells, settings = results["configs"], results["labels"], results["cells"], results["settings"]
    trained, seeds = _trained(results), settings["seed_values"]
    lines = [f"# BLM grid: {', '.join(dict.fromkeys(config_family(c) for c in configs))}", "",
             f"Trained on the train split of each config (rows), tested on the test split of every config (columns); "
             f"accuracy (the papers' F1: one pick per instance), mean ± {results['std']} ({len(seeds)} seeds: "
             f"{', '.join(map(str, seeds))}).", "", "## Accuracy", ""]
    lines += _table(["train \\ test", *(labels[c] for c in configs)],
                    [[labels[t], *(f"{cells[f'{t}|{c}']['mean']:.3f} ± {cells[f'{t}|{c}']['std']:.3f}"
                                   for c in configs)] for t in trained])
    lines += ["", f"![accuracy heatmap]({files['heatmap']})", "", "Per seed:", ""]
    lines += _table(["train", "test", *(f"seed {s}" for s in seeds)],
                    [[labels[t], labels[c], *(f"{a:.3f}" for a in cells[f"{t}|{c}"]["accuracies"])]
                     for t in trained for c in configs])
    order = label_order(cells)
    lines += ["", "## Picked answers", "", f"Share of the picks of each answer label, over all seeds "
              f"({', '.join(f'{name}: {cls}' for name, cls in order)}).", ""]
    lines += _table(["train → test", *(name for name, _ in order)],
                    [[f"{labels[t]} → {labels[c]}", *(_share(cells[f"{t}|{c}"], name) for name, _ in order)]
                     for t in trained for c in configs])
    lines += ["", f"![picked answer labels]({files['picked_labels']})"]
    confused = [(t, c) for t in trained for c in configs if "confusion" in cells[f"{t}|{c}"]]
    if confused:
        lines += ["", "## Confusions", "", "Instances per gold (rows) and picked (columns) value, over all seeds.", ""]
        for t, c in confused:
            confusion = cells[f"{t}|{c}"]["confusion"]
            values = confusion["order"]
            lines += [f"**train {labels[t]} → test {labels[c]}** ({confusion['attribute']})", ""]
            lines += _table(["gold \\ picked", *values],
                            [[g, *(str(confusion["counts"].get(g, {}).get(p, 0)) for p in values)] for g in values])
            lines += [""]
        lines += [f"![confusion matrices]({files['confusion']})"]
    lines += ["", "## Settings", ""]
    shown = ("head", "encoder", "epochs", "max_train_instances", "max_test_instances", "size", "data_seed",
             "dataset", "train_args")
    defaults = {"encoder": "all-MiniLM-L6-v2 (default)", "size": "the paper's", "dataset": "generated",
                "train_args": "none"}
    lines += [f"- {key}: {defaults.get(key, '-') if settings[key] in (None, []) else settings[key]}" for key in shown]
    sampled = {r["train"]: f"{r['train_instances']} + {r['validation_instances']}" for r in results["runs"]}
    lines += ["- instances (train + validation, sampled from the train split / test): " + ", ".join(
        f"{labels[c]} {sampled.get(c, '-')} of {n['train_split']} / {n['test']}" for c, n in results["data"].items()),
        "- the training sample is drawn once per config (data seed); seeds vary the head's initialisation and "
        "the batch order", "", "## Timing", "",
        f"- total: {results['seconds']:.0f} s (a config's first run also embeds the sentences not cached yet)"]
    lines += [f"- train {labels[r['train']]} seed {r['seed']}: {r['seconds']:.0f} s "
              f"(validation accuracy {r['validation_accuracy']:.3f})" for r in results["runs"]]
    versions = results.get("versions", {})
    lines += ["", "## Versions", "", ", ".join(f"{k} {v}" for k, v in versions.items() if k != "platform"), ""]
    return "\n".join(lines)


def _share(cell: dict, label: str) -> str:
    total = sum(cell["picks_per_label"].values())
    return f"{cell['picks_per_label'].get(label, 0) / total:.3f}" if total else "-"
