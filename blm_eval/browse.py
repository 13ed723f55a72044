"""``blm browse``: a static site to look at BLM matrices and at what models picked (issue 24).

The site is ``index.html`` (template, script and style from ``browse_site/``, inlined: nothing is fetched from a
network) plus one ``data_<config>.js`` per config that assigns the config's instances to a global: a page opened
from file:// may load scripts but not fetch() JSON. The page renders one page of instances at a time.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import jinja2

from blm_datasets.sources import load_source
from builders.atomic import atomic_write_text
from builders.errors import InputError

PREDICTIONS_FILE = "predictions_test.jsonl"  # what train.py writes (blm_models.predictions; importing it loads torch)

SITE_TEMPLATES = Path(__file__).with_name("browse_site")
SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")
NOTES = re.compile(r"\[[^\]]*\]|\|")


class BrowseError(InputError):
    """A bad --predictions or --out (one line, exit 2)."""


# ------------------------------------------------------------------------------------------- the matrix
def pattern_slots(pattern: str) -> list[str]:
    """The slots of a pattern, without bracketed notes (``[can]``) and ``|`` separators."""
    return NOTES.sub(" ", pattern).split()


def matrix_rows(patterns: list[str], chunks: list[list[str]]) -> tuple[list[str], list[dict]]:
    """The context as aligned columns and, per row, the columns to highlight.

    When every row's pattern names one slot per chunk and no slot category twice (agreement: ``NP-pl PP1-sg
    VP-pl``), there is a column per category (``NP``), in the order categories first appear, and a cell is marked
    where its attribute (``pl``) differs from the row above or the row above lacks the slot. Otherwise the chunks
    keep their positions, and a cell is marked where its slot (``NP-Agent`` → ``NP-Theme``) differs from the one
    above, or, where the pattern does not name one slot per chunk, where its text differs."""
    slots = [pattern_slots(p) for p in patterns]
    keys = [[s.split("-", 1)[0] for s in row] for row in slots]
    if all(len(s) == len(c) and len(set(k)) == len(k) for s, c, k in zip(slots, chunks, keys)):
        columns: list[str] = []
        for row in keys:
            at = 0
            for key in row:  # an unseen category goes after the row's previous known one
                if key in columns:
                    at = columns.index(key) + 1
                else:
                    columns.insert(at, key)
                    at += 1
        cells = [{k: (chunk, s.split("-", 1)[1] if "-" in s else "") for k, s, chunk in zip(krow, srow, crow)}
                 for krow, srow, crow in zip(keys, slots, chunks)]
        marks = [[j for j, key in enumerate(columns) if key in now and (key not in before or before[key][1] != now[key][1])]
                 for before, now in zip(cells, cells[1:])]
        texts = [[row[key][0] if key in row else None for key in columns] for row in cells]
    else:
        columns = [f"#{j + 1}" for j in range(max(len(c) for c in chunks))]
        texts = [list(c) + [None] * (len(columns) - len(c)) for c in chunks]
        aligned = [s if len(s) == len(c) else None for s, c in zip(slots, chunks)]
        marks = []
        for i in range(1, len(chunks)):
            before, now = (aligned[i - 1], aligned[i]) if aligned[i - 1] and aligned[i] else (texts[i - 1], texts[i])
            marks.append([j for j in range(len(chunks[i])) if j >= len(before) or before[j] != now[j]])
    return columns, [{"p": p, "c": t, "h": h} for p, t, h in zip(patterns, texts, [[]] + marks)]


def instance_view(row: dict, split: str) -> dict:
    """One instance as the page needs it (short keys: a 10,000-instance config stays a few MB)."""
    columns, rows = matrix_rows(list(row["context_patterns"]), [list(c) for c in row["context_chunks"]])
    return {"id": row["id"], "s": split, "lm": row["lemma"], "lt": row["lexical_type"], "tp": row["template"],
            "cols": columns, "rows": rows, "g": int(row["label"]),
            "a": [list(a) for a in zip(row["answers"], row["answer_labels"], row["answer_error_classes"],
                                       row["answer_patterns"])]}


# ------------------------------------------------------------------------------------------- predictions
def read_predictions(source: str) -> tuple[str, dict[str, dict]]:
    """(run name, {instance id: {"pick": index, "scores": [...] or None}}) from a train.py --output_dir
    (predictions_test.jsonl) or a `blm llm-eval --out` JSON (the first setting and run that scores each id)."""
    path = Path(source).expanduser()
    if path.is_dir():
        file = path / PREDICTIONS_FILE
        if not file.is_file():
            raise BrowseError(f"--predictions {source}: no {PREDICTIONS_FILE} in this folder; give a train.py "
                              f"--output_dir of a finished run (train.py writes it after the test evaluation) or a "
                              f"`blm llm-eval --out` JSON file")
        picks = {}
        for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                picks[item["id"]] = {"pick": int(item["pick"]), "scores": item.get("scores")}
            except (ValueError, KeyError, TypeError) as err:
                raise BrowseError(f"--predictions {file}:{n}: not a prediction line ({type(err).__name__}: {err}); "
                                  f"rerun train.py to rewrite it") from None
        return path.name, picks
    if not path.is_file():
        raise BrowseError(f"--predictions {source}: no such file or folder; give a train.py --output_dir or a "
                          f"`blm llm-eval --out` JSON file")
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
        results = report["results"]
    except (ValueError, KeyError, TypeError) as err:
        raise BrowseError(f"--predictions {source}: not a `blm llm-eval --out` JSON file ({type(err).__name__}: "
                          f"{err}); give a train.py --output_dir or an llm-eval results file") from None
    picks: dict[str, dict] = {}
    for result in results:
        for run in result.get("runs", []):
            for item in run.get("predictions", []):
                letter = item.get("predicted")
                if item.get("id") in picks or not isinstance(letter, str) or len(letter) != 1:
                    continue  # an invalid answer has no pick
                detail = item.get("letter_logprobs")
                scores = [detail[k] for k in sorted(detail)] if isinstance(detail, dict) else None
                picks[item["id"]] = {"pick": ord(letter.upper()) - ord("A"), "scores": scores}
    if not picks:
        raise BrowseError(f"--predictions {source}: the llm-eval results hold no per-item predictions; rerun "
                          f"`blm llm-eval` with this toolkit's version, which writes them")
    return f"{report.get('model', path.stem)}", picks


# ------------------------------------------------------------------------------------------- the site
def config_data(config: str, splits, runs: list[tuple[str, dict]]) -> dict:
    """The data of one config: its instances (with each run's pick and scores) and the run names."""
    instances = []
    for split_name in splits:
        for row in splits[split_name]:
            view = instance_view(row, split_name)
            view["pr"] = [[p["pick"], p["scores"]] if (p := picks.get(row["id"])) else None for _, picks in runs]
            instances.append(view)
    return {"config": config, "runs": [name for name, _ in runs], "instances": instances}


def write_site(configs: list[str], out: str | Path, *, dataset: str | None = None,
               predictions: list[str] | None = None, size: int | None = None, seed: int = 42,
               cache_dir: str | None = None) -> list[Path]:
    """Write index.html and data_<config>.js for `configs` into `out`; returns the written files."""
    out = Path(out).expanduser()
    blocker = next((p for p in (out, *out.parents) if p.exists() and not p.is_dir()), None)
    if blocker is not None:  # before the configs load (minutes for large ones)
        raise BrowseError(f"--out {out}: {blocker} is a file, not a folder; choose another --out")
    runs = [read_predictions(p) for p in predictions or []]
    out.mkdir(parents=True, exist_ok=True)
    written, entries, unmatched = [], [], set(range(len(runs)))
    for config in configs:
        splits = load_source(dataset, config, seed=seed, size=size, cache_dir=cache_dir)
        ids = {row_id for split_name in splits for row_id in splits[split_name]["id"]}
        tested = [k for k, (_, picks) in enumerate(runs) if not ids.isdisjoint(picks)]  # runs show where they tested
        unmatched -= set(tested)
        data = config_data(config, splits, [runs[k] for k in tested])
        matched = [sum(i["pr"][k] is not None for i in data["instances"]) for k in range(len(tested))]
        file = f"data_{SAFE_NAME.sub('_', config)}.js"
        payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
        written.append(atomic_write_text(out / file, f"window.BLM_DATA=window.BLM_DATA||{{}};"
                                                     f"window.BLM_DATA[{json.dumps(config)}]={payload};\n"))
        entries.append({"config": config, "file": file, "instances": len(data["instances"]), "runs": data["runs"],
                        "matched": matched})
    if unmatched:
        raise BrowseError(f"--predictions {runs[min(unmatched)][0]}: none of its instance ids are in "
                          f"{', '.join(configs)}; give a run trained and tested on one of these configs (and the "
                          f"same --dataset/--size/--data-seed)")
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(SITE_TEMPLATES), autoescape=True,
                             keep_trailing_newline=True)
    html = env.get_template("index.html.j2").render(configs=entries, runs=[name for name, _ in runs],
                                                    manifest=json.dumps(entries))
    written.append(atomic_write_text(out / "index.html", html))
    return written


def cmd_browse(args: argparse.Namespace) -> int:
    """`blm browse`: write the site, say where it is."""
    written = write_site(args.configs, args.out, dataset=args.dataset, predictions=args.predictions,
                         size=args.size, seed=args.data_seed, cache_dir=args.cache_dir)
    index = written[-1]
    print(f"wrote {len(written)} files to {index.parent}; open {index.resolve().as_uri()} in a browser")
    return 0


def register(sub) -> None:
    """Add `blm browse` to the ``blm`` parser."""
    p = sub.add_parser("browse", help="a static site to browse BLM matrices and a model's picks",
                       description="Write a static site (index.html + one data_<config>.js per config; no "
                                   "server, no network: open index.html from the file system) that shows each "
                                   "instance's context as a matrix and its answer set, with filters, search and, "
                                   "with --predictions, each run's picks, scores and picked-label bars.")
    p.add_argument("configs", nargs="+", metavar="NAME", help="config names (see `blm list`)")
    p.add_argument("--dataset", metavar="FOLDER|REPO", help="read the configs from a `blm export` folder, a "
                   "save_to_disk folder or a Hub dataset repo (default: generate them)")
    p.add_argument("--predictions", nargs="+", metavar="RUN", help="train.py --output_dir folders (their "
                   f"{PREDICTIONS_FILE}) or `blm llm-eval --out` files; two are shown side by side")
    p.add_argument("--size", type=int, help="when generating: instances per config (train + test); give the "
                   "train.py --dataset_size of the runs")
    p.add_argument("--data-seed", "--seed", dest="data_seed", type=int, default=42,
                   help="when generating: the generation seed, as `blm generate|review --seed` (default: 42)")
    p.add_argument("--cache-dir", help="datasets cache for generated configs (default: HF_DATASETS_CACHE)")
    p.add_argument("--out", required=True, metavar="SITE", help="folder to write the site into")
    p.set_defaults(func=cmd_browse)
