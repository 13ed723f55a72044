"""What `blm reproduce` writes: results.json, one heatmap and one picked-label figure per family and head (and the
CausH confusions), with `blm grid`'s figure code, and report.md: published numbers next to ours with the
protocol differences in words, then our grids."""

from __future__ import annotations

import json
import os
from pathlib import Path

from builders.atomic import atomic_write_text

from blm_eval.grid_figures import grid_figures
from blm_eval.reproduce import load_papers

HEAD_NAMES = {"ffnn": "FFNN", "two_level_vae": "two-level VAE"}


def _atomic_text(path: Path, text: str) -> None:
    atomic_write_text(path, text)


def write_outputs(results: dict, out: str | os.PathLike) -> dict[str, Path]:
    """results.json, figures/*.png and report.md into `out`; returns the paths written."""
    out = Path(out)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    paths = {"results": out / "results.json", "report": out / "report.md"}
    _atomic_text(paths["results"], json.dumps(results, indent=1, ensure_ascii=False, default=str) + "\n")
    figures: dict[str, dict[str, str]] = {}
    for family in results["families"]:
        stem = f"{family['family']}_{family['settings']['head']}"
        figures[stem] = {}
        for name, figure in grid_figures(family).items():
            path = out / "figures" / f"{stem}_{name}.png"
            figure.savefig(path, dpi=110)
            paths[f"{stem}_{name}"] = path
            figures[stem][name] = f"figures/{path.name}"
    _atomic_text(paths["report"], render_report(results, figures))
    return paths


def _ours(entry: dict) -> str:
    if entry["mean"] is None:
        return "not run"
    return f"{entry['mean']:.3f} ± {entry['std']:.3f}"


def _published(row: dict) -> str:
    value = f"{row['relation']} {row['value']:.2f}" if row["relation"] != "=" else f"{row['value']:.3f}"
    return value + (f" ± {row['std']:.3f}" if row.get("std") else "")


def our_protocol(results: dict) -> dict[str, str]:
    """Our side of each protocol difference, in words."""
    s = results["settings"]
    encoders = sorted({f"{f['settings']['encoder']} layer {f['settings']['hidden_layer']}"
                       for f in results["families"]})
    return {
        "encoder": (f"frozen {', '.join(encoders) or '-'} (mean-pooled"
                    + (", contexts centred per instance" if s["center_context"] else "") + ")"
                    + (" chosen per phenomenon and language by `--encoder auto`" if s["encoder"] == "auto" else "")),
        "score": f"{s['score']} product" if s["score"] == "dot" else "cosine",
        "split": "the toolkit's lemma split (test lemmas never occur in train); validation carved from the sample",
        "sizes": (f"{s['max_train_instances']} training instances sampled per config "
                  f"({s['validation_fraction']:.0%} of them validation), at most {s['max_test_instances'] or 'all'} "
                  "test instances"),
        "training": (f"Adam, lr {s['learning_rate']:g}, batch {s['batch_size']}, at most {s['epochs']} epochs "
                     f"with early stopping (patience {s['patience']}), {s['seeds']} seeds stacked and trained at once"),
    }


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(r) + " |" for r in rows)]


def render_report(results: dict, figures: dict[str, dict[str, str]]) -> str:
    """report.md: settings and time, then per paper its numbers next to ours, then every grid we ran."""
    papers = load_papers()["papers"]
    settings = results["settings"]
    ours = our_protocol(results)
    load = results["load_average"]
    lines = ["# blm reproduce: the seed papers' tables on our data", "",
             f"Ours: {ours['encoder']}; {ours['score']} scores; {ours['sizes']}; {ours['training']}. "
             "Accuracy is the papers' F1 (one pick per instance); ours is the mean ± population std over seeds.", "",
             f"Wall time: {results['seconds'] / 60:.1f} min on {results['threads']} torch threads (load average "
             f"{load['start'][0]:.1f} at the start, {load['end'][0]:.1f} at the end).", "",
             "## Published numbers next to ours", ""]
    chosen = settings.get("papers") or list(papers)
    by_paper: dict[str, list[dict]] = {}
    for row in results["comparison"]:
        by_paper.setdefault(row["paper"], []).append(row)
    for paper in chosen:
        spec = papers[paper]
        protocol = spec["protocol"]
        lines += [f"### {paper}: {spec['citation']}", "", "Protocol differences (theirs; ours):", ""]
        for key in ("encoder", "score", "split", "sizes", "training"):
            lines.append(f"- {key}: {protocol.get(key, 'not stated')}; ours: {ours[key]}")
        if protocol.get("head") in HEAD_NAMES and protocol["head"] not in settings["heads"]:
            lines.append(f"- head: theirs {HEAD_NAMES[protocol['head']]}; not run here (`--heads {protocol['head']}`)")
        rows = []
        for row in by_paper.get(paper, []):
            for entry in row["ours"]:
                setting = f"{entry['train']} → {entry['test']}"
                rows.append([row["label"], HEAD_NAMES.get(row["head"], row["head"]), setting, _published(row),
                             row["source"], _ours(entry)])
        if rows:
            lines += ["", *_table(["published setting", "head", "our setting (train → test)", "published",
                                   "source", "ours"], rows)]
        shown = [run["figure_only"] for run in spec.get("runs", []) if run.get("figure_only")]
        if shown:
            lines += ["", "Published as figures only (no numbers in the text; our grids are below): "
                      + "; ".join(shown) + "."]
        lines.append("")
    if results.get("skipped"):
        lines += ["Not run (their data could not be loaded here):", ""]
        lines += [f"- {item['family']} ({HEAD_NAMES.get(item['head'], item['head'])}): {item['reason']}"
                  for item in results["skipped"]]
        lines.append("")
    lines += ["## Our grids", ""]
    for family in results["families"]:
        stem = f"{family['family']}_{family['settings']['head']}"
        labels, cells, configs = family["labels"], family["cells"], family["configs"]
        fs = family["settings"]
        trained = [c for c in configs if any(r["train"] == c for r in family["runs"])]
        lines += [f"### {family['family']}: {HEAD_NAMES.get(fs['head'], fs['head'])}, {fs['encoder']} layer "
                  f"{fs['hidden_layer']}", ""]
        if fs.get("encoder_note"):
            lines += [fs["encoder_note"], ""]
        lines += _table(["train \\ test", *(labels[c] for c in configs)],
                        [[labels[t], *(f"{cells[f'{t}|{c}']['mean']:.3f} ± {cells[f'{t}|{c}']['std']:.3f}"
                                       for c in configs)] for t in trained])
        epochs = [r["epochs"] for r in family["runs"]]
        sizes = ", ".join(f"{labels[c]} {n['train']} + {n['validation']} / {n['test']}"
                          for c, n in family["data"].items())
        lines += ["", f"Instances (train + validation / test): {sizes}. Unique sentences: "
                  f"{family['sentences']['sentences']} ({family['sentences']['computed']} embedded in this run). "
                  f"Epochs trained: {min(epochs)}–{max(epochs)}. Time: {family['seconds']['total']:.0f} s "
                  f"(embedding {family['seconds']['embedding']:.0f} s, heads "
                  f"{family['seconds']['training']:.0f} s).", ""]
        for name, path in figures.get(stem, {}).items():
            lines.append(f"![{family['family']} {name}]({path})")
        lines.append("")
    versions = results.get("versions", {})
    lines += ["## Versions", "", ", ".join(f"{k} {v}" for k, v in versions.items() if k != "platform"), ""]
    return "\n".join(lines)
