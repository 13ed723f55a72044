"""``blm grid``: train on each lexical type, test on each (002 §6.2, Figs. 15-19; 000 Fig. 16), over seeds.

One model is trained per (train config, seed) and evaluated on the test split of every config of the
grid; all sentences go through the shared embedding cache, each unique sentence embedded once.
"""

from __future__ import annotations

import argparse
import difflib
import logging
import shlex
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from blm_eval.out_folder import check_out, mark_out
from builders import registry
from builders.base import ConfigSpec
from builders.errors import InputError
from builders.locks import locked

logger = logging.getLogger(__name__)

# train.py flags the grid sets itself, per run
CONTROLLED_FLAGS = ("--dataset_config", "--dataset_path", "--test_dataset_config", "--test_dataset_path",
                    "--output_dir", "--seed", "--resume_from_checkpoint", "--push_to_hub")
# phenomena whose distractors vary one attribute, read off the answer patterns (`V-HIFIL`): the attribute, and
# the generator attribute listing its values in order
CONFUSION_PHENOMENA = {"caush": ("binyan", "binyanim")}


# -------------------------------------------------------------------------------------------- configs
def config_family(name: str) -> str:
    """`agr_en_typeII_balanced` -> `agr_en`: the config name without its lexical type."""
    spec = ConfigSpec.parse(name)
    return spec.family if spec else name


def expand_configs(tokens: list[str], balanced: bool = False, known: list[str] | None = None) -> list[str]:
    """Config names from names or prefixes (`agr_en` -> its type I/II/III configs, `_balanced` ones with
    `balanced`), in order, without repeats; an unknown token lists the valid prefixes and names."""
    if known is None:
        known = registry.config_names()
    families: dict[str, list[str]] = {}
    for name in known:
        spec = ConfigSpec.parse(name)
        if spec and spec.balanced == balanced:
            families.setdefault(spec.family, []).append(name)
    chosen: list[str] = []
    for token in tokens:
        if token in known:
            found = [token]
        elif token in families:
            found = families[token]
        else:
            close = difflib.get_close_matches(token, [*families, *known], n=5, cutoff=0.5)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            raise InputError(f"unknown BLM config or prefix {token!r}.{hint} Valid prefixes: {', '.join(families)}. "
                             f"Valid configs: {', '.join(known)}")
        chosen += [name for name in found if name not in chosen]
    if not chosen:
        raise InputError("name at least one config or prefix, e.g. `blm grid agr_en --out reports/grid_agr_en`")
    return chosen


def short_names(configs: list[str]) -> dict[str, str]:
    """Axis labels: `typeI` … when all configs share one family, the full names otherwise."""
    if len({config_family(c) for c in configs}) == 1 and all(ConfigSpec.parse(c) for c in configs):
        return {c: c[len(config_family(c)) + 1:] for c in configs}
    return {c: c for c in configs}


# --------------------------------------------------------------------------------------------- settings
@dataclass
class GridSettings:
    """What `blm grid` trains and how; `train_args` are further train.py flags."""

    seeds: int = 3
    first_seed: int = 0
    head: str = "ffnn"
    encoder: str | None = None
    epochs: float = 30
    max_train_instances: int = 400
    max_test_instances: int = 200
    size: int | None = None
    data_seed: int = 42
    dataset: str | None = None
    embedding_cache_dir: str | None = None
    train_args: list[str] = field(default_factory=list)
    progress: bool = True

    def seed_values(self) -> list[int]:
        return list(range(self.first_seed, self.first_seed + self.seeds))

    def train_argv(self, output_dir: str, seed: int) -> list[str]:
        """train.py flags of one run: the grid's defaults, then the user's, then the per-run ones."""
        for flag in self.train_args:
            if "--" + flag.split("=")[0].lstrip("-").replace("-", "_") in CONTROLLED_FLAGS:
                raise InputError(f"{flag} is set by `blm grid` itself; leave it out of --train-args")
        argv = ["--head", self.head, "--num_train_epochs", str(self.epochs),
                "--max_train_instances", str(self.max_train_instances),
                "--embedding_batch_size", "256", "--disable_tqdm", "true", "--logging_strategy", "no",
                "--save_only_model", "true"]
        if self.encoder:
            argv += ["--encoder", self.encoder]
        if self.embedding_cache_dir:
            argv += ["--embedding_cache_dir", self.embedding_cache_dir]
        return argv + list(self.train_args) + ["--output_dir", output_dir, "--seed", str(seed)]


# ------------------------------------------------------------------------------------------------ data
def load_grid_data(configs: list[str], settings: GridSettings) -> dict[str, tuple]:
    """(train, test) of every config; test capped at --max-test-instances (one sample, shared by all runs)."""
    from blm_datasets.sources import load_source, require_split
    from blm_models.data import subsample

    data = {}
    for config in configs:
        splits = load_source(settings.dataset, config, seed=settings.data_seed, size=settings.size)
        train, test = require_split(splits, "train", config), require_split(splits, "test", config)
        data[config] = train, subsample(test, settings.max_test_instances, settings.data_seed)
    return data


def gold_and_picked(rows, picks: np.ndarray, attribute: str = "label") -> tuple[list[str], list[str]]:
    """Per instance, the gold and the picked value: answer labels, or (`binyan`) the verb form's class read
    off the answer patterns (`V-HIFIL`)."""
    key = "answer_labels" if attribute == "label" else "answer_patterns"
    values = rows[key]
    gold = [v[g] for v, g in zip(values, rows["label"])]
    picked = [v[int(p)] for v, p in zip(values, picks)]
    if attribute != "label":
        gold, picked = [g.split("-", 1)[-1] for g in gold], [p.split("-", 1)[-1] for p in picked]
    return gold, picked


def summarise_test(test, picks: np.ndarray) -> dict:
    """Accuracy, picks per answer label and per error class, and (CausH) the gold × picked confusion counts."""
    columns = test.select_columns(["phenomenon", "answer_labels", "answer_error_classes", "answer_patterns", "label"])
    rows = columns.to_dict()
    picks = np.asarray(picks).reshape(-1)
    gold, picked = gold_and_picked(rows, picks)
    classes = [c[int(p)] for c, p in zip(rows["answer_error_classes"], picks)]
    summary = {
        "instances": len(picks),
        "accuracy": float(np.mean([p == int(g) for p, g in zip(picks, rows["label"])])) if len(picks) else 0.0,
        "picks_per_label": dict(Counter(picked)),
        "picks_per_class": dict(Counter(classes)),
        "label_classes": {label: cls for labels, clss in zip(rows["answer_labels"], rows["answer_error_classes"])
                          for label, cls in zip(labels, clss)},
    }
    attribute, _ = CONFUSION_PHENOMENA.get(rows["phenomenon"][0], (None, None))
    if attribute:
        gold_values, picked_values = gold_and_picked(rows, picks, attribute)
        confusion: dict[str, dict[str, int]] = {}
        for g, p in zip(gold_values, picked_values):
            confusion.setdefault(g, {}).setdefault(p, 0)
            confusion[g][p] += 1
        order = attribute_order(rows["phenomenon"][0], test[0]["language"], [*gold_values, *picked_values])
        summary["confusion"] = {"attribute": attribute, "order": order, "counts": confusion}
    return summary


def attribute_order(phenomenon: str, language: str, values: list[str]) -> list[str]:
    """The values of a confusion matrix in the generator's order (CausH: PAAL, NIFAL, HIFIL, HUFAL)."""
    try:
        declared = list(getattr(registry.generator(phenomenon, language), CONFUSION_PHENOMENA[phenomenon][1]))
    except (ValueError, AttributeError, KeyError, ImportError):
        declared = []
    return [v for v in declared if v in values] + sorted(set(values) - set(declared))


# ------------------------------------------------------------------------------------------------ runs
def train_and_test(train_config: str, seed: int, data: dict, settings: GridSettings, bar=None) -> dict:
    """One model trained on `train_config` with `seed`, evaluated on every config's test split."""
    from accelerate import PartialState
    from transformers import PrinterCallback, TrainerCallback, set_seed

    from blm_models.arguments import parse_arguments
    from blm_models.train_job import prepare_run, sample_train_validation

    class EpochProgress(TrainerCallback):
        """One step of the grid's progress bar per training epoch."""

        def on_epoch_end(self, args, state, control, **kwargs):
            bar.set_postfix_str(f"{train_config} seed {seed}")
            bar.update(1)

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="blm-grid-") as output_dir:
        data_args, encoder_args, head_args, training_args = parse_arguments(settings.train_argv(output_dir, seed))
        # one training sample per config (the data seed): seeds vary the head's initialisation and batch order
        train, validation = sample_train_validation(data[train_config][0], data_args, settings.data_seed)
        set_seed(seed)
        splits = {"train": train, "validation": validation, **{f"test:{c}": test for c, (_, test) in data.items()}}
        callbacks = [EpochProgress()] if bar is not None else None
        run = prepare_run(splits, data_args, encoder_args, head_args, training_args, PartialState(), callbacks)
        run.trainer.remove_callback(PrinterCallback)
        run.trainer.train()
        validation_accuracy = run.trainer.evaluate(run.indexed["validation"])["eval_accuracy"]
        tests = {}
        for config, (_, test) in data.items():
            prediction = run.trainer.predict(run.indexed[f"test:{config}"], metric_key_prefix="test")
            tests[config] = summarise_test(test, prediction.predictions)
    return {"train": train_config, "seed": seed, "train_instances": len(train), "validation_instances": len(validation),
            "validation_accuracy": float(validation_accuracy), "seconds": round(time.perf_counter() - start, 1),
            "tests": tests}


def aggregate(runs: list[dict], configs: list[str]) -> dict:
    """Per (train, test): accuracies per seed, mean and std (population, over seeds), picks summed over seeds."""
    cells = {}
    for train in configs:
        for test in configs:
            results = [r["tests"][test] for r in runs if r["train"] == train]
            if not results:
                continue
            accuracies = [t["accuracy"] for t in results]
            cell = {"accuracies": accuracies, "seeds": [r["seed"] for r in runs if r["train"] == train],
                    "mean": float(np.mean(accuracies)), "std": float(np.std(accuracies)),
                    "instances": results[0]["instances"],
                    "label_classes": {k: v for t in results for k, v in t["label_classes"].items()},
                    "picks_per_label": dict(sum((Counter(t["picks_per_label"]) for t in results), Counter())),
                    "picks_per_class": dict(sum((Counter(t["picks_per_class"]) for t in results), Counter()))}
            if "confusion" in results[0]:
                counts: dict[str, Counter] = {}
                for t in results:
                    for gold, row in t["confusion"]["counts"].items():
                        counts.setdefault(gold, Counter()).update(row)
                cell["confusion"] = {**results[0]["confusion"], "counts": {g: dict(c) for g, c in counts.items()}}
            cells[f"{train}|{test}"] = cell
    return cells


def run_grid(configs: list[str], settings: GridSettings) -> dict:
    """Train on each config × seed, test on every config: all raw numbers and their aggregates."""
    import torch
    from tqdm.auto import tqdm
    from transformers.utils import logging as hf_logging

    from blm_models.train_job import versions

    start = time.perf_counter()
    torch.set_flush_denormal(True)  # as train.py: tiny gradients late in training otherwise slow CPU training
    data = load_grid_data(configs, settings)
    runs = []
    total = len(configs) * settings.seeds * int(np.ceil(settings.epochs))
    bars_were_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # weight loading / saving bars, nine times over, would hide the grid's own
    try:
        with tqdm(total=total, desc="blm grid (training epochs)", unit="epoch", disable=not settings.progress) as bar:
            for train_config in configs:
                for seed in settings.seed_values():
                    run = train_and_test(train_config, seed, data, settings, bar)
                    runs.append(run)
                    scores = ", ".join(f"{c} {t['accuracy']:.3f}" for c, t in run["tests"].items())
                    message = f"train {train_config} seed {seed}: {scores} [{run['seconds']:.0f}s]"
                    tqdm.write(message) if settings.progress else logger.info(message)
    finally:
        if bars_were_on:
            hf_logging.enable_progress_bar()
    return {
        "configs": configs, "labels": short_names(configs),
        "settings": asdict(settings) | {"seed_values": settings.seed_values()},
        "data": {c: {"train_split": len(train), "test": len(test)} for c, (train, test) in data.items()},
        "std": "population std over seeds", "runs": runs, "cells": aggregate(runs, configs),
        "seconds": round(time.perf_counter() - start, 1), "versions": versions(),
    }


def write_outputs(results: dict, out: str | Path) -> dict[str, Path]:
    """results.json, the figures (PNG) and report.md into `out`; returns the paths written."""
    import json

    from blm_eval import grid_figures

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"results": out / "results.json", "report": out / "report.md"}
    paths["results"].write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, figure in grid_figures.grid_figures(results).items():
        paths[name] = out / f"{name}.png"
        figure.savefig(paths[name], dpi=120)
    report = grid_figures.render_report(results, {name: path.name for name, path in paths.items()})
    paths["report"].write_text(report, encoding="utf-8")
    return paths


# ------------------------------------------------------------------------------------------------- CLI
def cmd_grid(args: argparse.Namespace) -> int:
    """`blm grid`: run the grid, write results.json, the figures and report.md into --out."""
    settings = GridSettings(
        seeds=args.seeds, first_seed=args.seed, head=args.head, encoder=args.encoder, epochs=args.epochs,
        max_train_instances=args.max_train_instances, max_test_instances=args.max_test_instances, size=args.size,
        data_seed=args.data_seed, dataset=args.dataset, embedding_cache_dir=args.embedding_cache_dir,
        train_args=shlex.split(args.train_args or ""), progress=not args.quiet)
    if settings.seeds < 1 or settings.epochs <= 0:
        raise InputError("--seeds must be at least 1 and --epochs above 0")
    configs = expand_configs(args.configs, balanced=args.balanced)
    check_train_flags(settings)
    print(f"grid over {', '.join(configs)}: {len(configs)} trainings × {settings.seeds} seeds, "
          f"each tested on {len(configs)} test splits")
    with locked(args.out, "--out"):
        check_out(args.out, "grid", {}, args.overwrite, resumable=False)  # before hours of training, not after
        results = run_grid(configs, settings)
        mark_out(args.out, "grid", {})
        paths = write_outputs(results, args.out)
    print(f"wrote {paths['report']} (+ results.json and {len(paths) - 2} figures) in {args.out}")
    return 0


def check_train_flags(settings: GridSettings) -> None:
    """Fail before any data is generated when train.py would refuse the flags (argparse prints why)."""
    from blm_models.arguments import parse_arguments

    argv = settings.train_argv("unused", settings.first_seed)
    try:
        parse_arguments(argv)
    except SystemExit:
        raise InputError(f"train.py refuses the flags {shlex.join(argv[:-4])} (see the message above and "
                         "`python train.py --help`)") from None


def add_parser(sub) -> None:
    """Register `blm grid` on the `blm` subcommand parser."""
    defaults = GridSettings()
    p = sub.add_parser("grid", help="train on each lexical type, test on each: accuracy heatmap, picked answers",
                       description="Train a head on each config (e.g. the three lexical types of agr_en) over "
                                   "several seeds, test each model on every config's test split, and write "
                                   "report.md, results.json and PNG figures (002 Figs. 15-19; CausH: 000 Fig. 16).")
    p.add_argument("configs", nargs="+", metavar="PREFIX_OR_CONFIG",
                   help="a prefix (agr_en: its typeI/II/III configs) or config names (see `blm list`)")
    p.add_argument("--out", required=True, help="folder for report.md, results.json and the figures")
    p.add_argument("--balanced", action="store_true", help="prefixes expand to the _balanced configs")
    p.add_argument("--overwrite", action="store_true", help="replace the results already in --out")
    p.add_argument("--seeds", type=int, default=defaults.seeds, help=f"runs per config (default: {defaults.seeds})")
    p.add_argument("--seed", type=int, default=0, help="seed of the first run (default: 0)")
    p.add_argument("--head", default=defaults.head, help="ffnn, cnn, sentence_vae, two_level_vae (default: ffnn)")
    p.add_argument("--encoder", help="sentence encoder (default: all-MiniLM-L6-v2, packaged)")
    p.add_argument("--epochs", type=float, default=defaults.epochs,
                   help=f"training epochs (default: {defaults.epochs:g}; papers: 120)")
    p.add_argument("--max-train-instances", "--max_train_instances", type=int, default=defaults.max_train_instances,
                   help=f"train instances sampled per config, 20%% of them for validation (default: "
                        f"{defaults.max_train_instances}; papers: 2000; 0 = all)")
    p.add_argument("--max-test-instances", "--max_test_instances", type=int, default=defaults.max_test_instances,
                   help=f"test instances sampled per config (default: {defaults.max_test_instances}; 0 = all)")
    p.add_argument("--size", type=int, help="when generating: instances per config (default: the paper's)")
    p.add_argument("--data-seed", "--data_seed", type=int, default=42,
                   help="generation and sampling seed (default: 42)")
    p.add_argument("--dataset", metavar="FOLDER|REPO", help="read the configs from a `blm export` folder, a "
                   "save_to_disk folder or a Hub dataset repo (default: generate them)")
    p.add_argument("--embedding-cache-dir", "--embedding_cache_dir",
                   help="embedding cache (default: $BLM_EMBEDDING_CACHE or ~/.cache/blm_toolkit)")
    p.add_argument("--train-args", "--train_args", help="further train.py flags in one string, e.g. "
                   "--train-args=\"--score cosine --learning_rate 1e-3\" (see `python train.py --help`)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_grid)
