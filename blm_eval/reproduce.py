"""``blm reproduce``: the seed papers' experiment tables on our data (blm_eval/paper_results.yaml), next to the
numbers they publish.

For every family of configs a paper trains on (e.g. agr_fr -> types I, II, III), one head per train config and
seed is trained and tested on every config of the family, as `blm grid` does, but: all seeds of a train config
are one stack of heads trained at once (blm_models/stacked_heads.py), every head stops early on validation
accuracy, and every sentence is embedded once, through the shared embedding cache. Each finished train config
is saved in OUT/runs/, so an interrupted run continues where it stopped (runs made with other settings, another
encoder or layer, or other data are trained again, never reused).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import yaml

from blm_eval.out_folder import check_out, mark_out
from builders.atomic import atomic_write_text
from builders.errors import InputError
from builders.locks import locked

PAPERS_FILE = Path(__file__).with_name("paper_results.yaml")
HEADS = ("ffnn", "two_level_vae")


# ------------------------------------------------------------------------------------------- the papers
def load_papers(path: str | os.PathLike | None = None) -> dict:
    """paper_results.yaml, checked: every number has a value and a source, and names settings to compare with."""
    file = Path(path) if path else PAPERS_FILE
    with open(file, encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    for paper, spec in data["papers"].items():
        for number in spec.get("numbers", []):
            if "value" not in number or not number.get("source"):
                raise InputError(f"{file}: a number of paper {paper} lacks its value or source: {number}")
            if not number.get("compare_with") and not (number.get("train") and number.get("test")):
                raise InputError(f"{file}: number {number['label']!r} of paper {paper} names no setting of ours")
    return data


@dataclass(frozen=True)
class Task:
    """One family trained with one head: train on each of `configs`, test on each."""

    family: str
    head: str
    configs: tuple[str, ...]


def plan(papers: dict, chosen: list[str] | None, heads: list[str], known: list[str] | None = None) -> list[Task]:
    """The (family, head) tasks of the chosen papers (all papers and the other configs when none is chosen),
    with the lexical types they need; a head not in `heads` is left out."""
    from blm_eval.grid import expand_configs

    specs = papers["papers"]
    unknown = [p for p in chosen or [] if p not in specs]
    if unknown:
        raise InputError(f"--paper {' '.join(unknown)}: unknown; the papers are {', '.join(specs)}")
    runs = [run for paper in (chosen or list(specs)) for run in specs[paper].get("runs", [])]
    if not chosen:
        runs += papers.get("others", [])
    wanted: dict[tuple[str, str], list[str]] = {}
    for run in runs:
        if run["head"] not in heads:
            continue
        for family in run["families"]:
            configs = expand_configs([family], known=known)
            if run.get("types"):
                configs = [c for c in configs if c.rsplit("_", 1)[-1] in run["types"]]
            listed = wanted.setdefault((family, run["head"]), [])
            listed += [c for c in configs if c not in listed]
    return [Task(family, head, tuple(sorted(configs, key=lambda c: (len(c), c))))
            for (family, head), configs in wanted.items()]


# ---------------------------------------------------------------------------------------------- settings
@dataclass
class ReproduceSettings:
    """How ours are trained (the toolkit's defaults; the papers' differences are stated in the report)."""

    papers: list[str] | None = None
    heads: list[str] = field(default_factory=lambda: ["ffnn"])
    seeds: int = 3
    first_seed: int = 0
    encoder: str = "auto"
    hidden_layer: int = -1
    center_context: bool = True
    score: str = "dot"
    max_train_instances: int = 2000
    max_test_instances: int = 1000
    validation_fraction: float = 0.2
    epochs: int = 120
    patience: int = 10
    batch_size: int = 100
    learning_rate: float = 1e-3
    size: int | None = None
    data_seed: int = 42
    dataset: str | None = None
    embedding_cache_dir: str | None = None
    families: list[str] | None = None

    def seed_values(self) -> list[int]:
        return list(range(self.first_seed, self.first_seed + self.seeds))

    def identity(self) -> dict:
        """What a run in --out computes: every setting but the selection of papers, families and heads (by flag
        name), and a digest of the code that trains and tests."""
        selection = ("papers", "families", "heads", "embedding_cache_dir")
        kept = {f"--{k.replace('_', '-')}": v for k, v in asdict(self).items() if k not in selection}
        return kept | {"code (a digest)": runs_code_digest()}

    def fingerprint(self) -> str:
        """What makes a saved run reusable: its identity, as a digest."""
        return hashlib.blake2b(json.dumps(self.identity(), sort_keys=True).encode(), digest_size=8).hexdigest()


def runs_code_digest() -> str:
    """Digest of the code behind a saved run: the training code (model, heads, losses, embeddings) and the
    stacked training, data sampling and test summaries of this module."""
    from blm_eval import grid
    from blm_models import layer_embeddings, stacked_heads
    from blm_models.run_identity import training_code_digest
    from builders.digest import code_digest

    return code_digest(stacked_heads, layer_embeddings, run_task, load_family, inputs_digest, grid.summarise_test,
                       _encoder_for) + training_code_digest()[:8]


# ----------------------------------------------------------------------------------------------- running
def _encoder_for(family_config: str, settings: ReproduceSettings) -> tuple[str, int, str | None]:
    """(encoder, layer, note): the table's choice with `auto`, else the given encoder and layer."""
    if settings.encoder != "auto":
        return settings.encoder, settings.hidden_layer, None
    from blm_models.encoder_choice import choose_encoder

    choice = choose_encoder(family_config)
    layer = settings.hidden_layer if settings.hidden_layer != -1 else choice.layer
    return choice.encoder, layer, choice.note


def load_family(task: Task, settings: ReproduceSettings) -> dict:
    """Train (sampled), validation (carved from it) and test (capped) of every config of a family."""
    from blm_datasets.sources import load_source, require_split
    from blm_models.data import carve_validation, subsample

    data = {}
    for config in task.configs:
        splits = load_source(settings.dataset, config, seed=settings.data_seed, size=settings.size)
        train = subsample(require_split(splits, "train", config), settings.max_train_instances, settings.data_seed)
        train, validation = carve_validation(train, settings.validation_fraction, settings.data_seed)
        test = subsample(require_split(splits, "test", config), settings.max_test_instances, settings.data_seed)
        data[config] = {"train": train, "validation": validation, "test": test}
    return data


def inputs_digest(encoder: str, revision: str, layer: int, sentences: list[str], indexed: dict) -> str:
    """What a saved run was trained and tested on besides the settings: the encoder `auto` resolved to (name,
    weights' revision, layer) and the family's data (its sentences and every split's instances)."""
    digest = hashlib.blake2b(digest_size=12)
    digest.update(json.dumps([encoder, revision, layer, sentences], ensure_ascii=False).encode())
    for config in sorted(indexed):
        for name in sorted(indexed[config]):
            split = indexed[config][name]
            for tensor in (split.context, split.answers, split.gold):
                digest.update(tensor.contiguous().numpy().tobytes())
    return digest.hexdigest()


def _atomic_json(path: Path, payload: dict) -> None:
    atomic_write_text(path, json.dumps(payload, indent=1, ensure_ascii=False) + "\n")


def run_task(task: Task, settings: ReproduceSettings, out: Path, log=print, overwrite: bool = False) -> dict:
    """Train and test one family with one head; returns its results in `blm grid`'s layout (+ timing). A saved
    run on other data is a ValueError unless `overwrite` (then it is trained again)."""
    from blm_eval.grid import aggregate, short_names, summarise_test
    from blm_models.configuration import BlmConfig
    from blm_models.data import SentenceIndex, answer_label_vocabulary
    from blm_models.encoders import encoder_revision_id, load_encoder, resolve_encoder_name
    from blm_models.layer_embeddings import layer_tables
    from blm_models.stacked_heads import InstanceIndex, StackSettings, evaluate_stack, train_stack

    start = time.perf_counter()
    encoder, layer, note = _encoder_for(task.configs[0], settings)
    data = load_family(task, settings)
    splits = [s for parts in data.values() for s in parts.values()]
    index = SentenceIndex(answer_label_vocabulary(splits))
    indexed = {c: {name: InstanceIndex.from_indexed(index.index(part)) for name, part in parts.items()}
               for c, parts in data.items()}
    loaded = load_encoder(encoder)
    revision = encoder_revision_id(resolve_encoder_name(encoder), None, loaded[0])  # reads the weights: once
    inputs = inputs_digest(encoder, revision, layer, index.sentences, indexed)
    embed_start = time.perf_counter()
    tables, layers, counts = layer_tables(index.sentences, encoder, [layer], settings.embedding_cache_dir,
                                          batch_size=128, progress=False, loaded=loaded, revision=revision)
    embed_seconds = time.perf_counter() - embed_start
    context_length = indexed[task.configs[0]]["train"].context.shape[1]
    config = BlmConfig(encoder_config=loaded[0].config, context_length=context_length, head=task.head,
                       score=settings.score, center_context=settings.center_context)
    stack_settings = StackSettings(epochs=settings.epochs, patience=settings.patience,
                                   batch_size=settings.batch_size, learning_rate=settings.learning_rate)
    runs = []
    for train_config in task.configs:
        saved = out / "runs" / task.head / f"{train_config}.json"
        if saved.is_file():
            previous = json.loads(saved.read_text(encoding="utf-8"))
            same_run = (previous.get("fingerprint"), previous.get("tests_on")) == (settings.fingerprint(),
                                                                                   list(task.configs))
            if same_run and previous.get("inputs") == inputs:
                runs += previous["runs"]
                log(f"{task.head} {train_config}: reused from {saved}")
                continue
            if same_run and not overwrite:
                raise InputError(f"--out {out}: the saved run {saved} was trained on other data or another encoder "
                                 f"(the family's sentences, instances or encoder weights changed since); pass "
                                 "--overwrite to train it again, or choose a new --out")
        parts = indexed[train_config]
        result = train_stack(config, settings.seed_values(), tables, parts["train"], parts["validation"],
                             stack_settings)
        mine = [{"train": train_config, "seed": seed, "train_instances": len(parts["train"]),
                 "validation_instances": len(parts["validation"]),
                 "validation_accuracy": float(result.best_validation[m]), "best_epoch": result.best_epoch[m],
                 "epochs": result.epochs_trained[m], "seconds": round(result.seconds / len(result.seeds), 1),
                 "tests": {}} for m, seed in enumerate(result.seeds)]
        for test_config in task.configs:
            picks = evaluate_stack(config, result, tables, indexed[test_config]["test"]).numpy()
            for m, run in enumerate(mine):
                run["tests"][test_config] = summarise_test(data[test_config]["test"], picks[m])
        _atomic_json(saved, {"fingerprint": settings.fingerprint(), "inputs": inputs, "tests_on": list(task.configs),
                             "runs": mine,
                             "stack_seconds": result.seconds})
        accuracies = ", ".join(f"{c} {np.mean([r['tests'][c]['accuracy'] for r in mine]):.3f}" for c in task.configs)
        log(f"{task.head} train {train_config} ({len(mine)} seeds stacked, {result.seconds:.0f} s, epochs "
            f"{'/'.join(map(str, result.epochs_trained))}): {accuracies}")
        runs += mine
    del tables
    return {
        "family": task.family, "configs": list(task.configs), "labels": short_names(list(task.configs)),
        "settings": {"head": task.head, "encoder": encoder, "hidden_layer": layers[0], "encoder_note": note,
                     "seed_values": settings.seed_values()},
        "data": {c: {"train": len(p["train"]), "validation": len(p["validation"]), "test": len(p["test"])}
                 for c, p in data.items()},
        "sentences": counts, "std": "population std over seeds", "runs": runs,
        "cells": aggregate(runs, list(task.configs)),
        "seconds": {"total": round(time.perf_counter() - start, 1), "embedding": round(embed_seconds, 1),
                    "training": round(sum(r["seconds"] for r in runs), 1)},
    }


def reproduce(settings: ReproduceSettings, out: str | os.PathLike, log=print, overwrite: bool = False) -> dict:
    """Every task of the chosen papers; results.json, report.md and the figures in `out`."""
    import torch

    from blm_models.train_job import versions
    from builders.base import SourceUnavailable

    papers = load_papers()
    tasks = plan(papers, settings.papers, settings.heads)
    if settings.families:
        tasks = [t for t in tasks if t.family in settings.families]
        if not tasks:
            raise InputError(f"--families {' '.join(settings.families)}: none of them is in the chosen papers' tables")
    out = Path(out)
    start, load_start = time.perf_counter(), os.getloadavg()
    torch.set_flush_denormal(True)
    log(f"blm reproduce: {len(tasks)} families × heads, {sum(len(t.configs) for t in tasks)} train configs × "
        f"{settings.seeds} seeds")
    families, skipped = [], []
    for task in tasks:
        try:
            families.append(run_task(task, settings, out, log, overwrite))
        except SourceUnavailable as error:  # e.g. natural CausH offline without its CoNLL-U sources
            reason = " ".join(str(error).split())
            skipped.append({"family": task.family, "head": task.head, "reason": reason})
            log(f"skipped {task.family} ({task.head}): {reason}")
    results = {"settings": asdict(settings) | {"seed_values": settings.seed_values()}, "families": families,
               "skipped": skipped,
               "seconds": round(time.perf_counter() - start, 1),
               "load_average": {"start": load_start, "end": os.getloadavg()},
               "threads": torch.get_num_threads(), "versions": versions()}
    results["comparison"] = compare(papers, families, settings.papers)
    return results


def _cell(families: list[dict], head: str, train: str, test: str) -> dict | None:
    for family in families:
        if family["settings"]["head"] == head and f"{train}|{test}" in family["cells"]:
            return family["cells"][f"{train}|{test}"]
    return None


def compare(papers: dict, families: list[dict], chosen: list[str] | None = None) -> list[dict]:
    """One row per published number: its value and source, and ours (mean ± std over seeds) per setting."""
    rows = []
    for paper, spec in papers["papers"].items():
        if chosen and paper not in chosen:
            continue
        for number in spec.get("numbers", []):
            head = number.get("head", spec["protocol"]["head"] if spec["protocol"]["head"] in HEADS else "ffnn")
            settings = number.get("compare_with") or [[number["train"], number["test"]]]
            ours = []
            for train, test in settings:
                cell = _cell(families, head, train, test)
                ours.append({"train": train, "test": test, "mean": cell["mean"] if cell else None,
                             "std": cell["std"] if cell else None, "seeds": len(cell["accuracies"]) if cell else 0})
            rows.append({"paper": paper, "label": number["label"], "head": head, "value": number["value"],
                         "std": number.get("std"), "relation": number.get("relation", "="),
                         "variant": number.get("variant"), "source": number["source"], "ours": ours})
    return rows


# --------------------------------------------------------------------------------------------------- CLI
def cmd_reproduce(args: argparse.Namespace) -> int:
    """`blm reproduce`: run, then write results.json, report.md and the figures into --out."""
    import torch

    from blm_eval.reproduce_report import write_outputs

    if args.threads:
        torch.set_num_threads(args.threads)
    heads = args.heads or ["ffnn"]
    bad = [h for h in heads if h not in HEADS]
    if bad or args.seeds < 1 or args.max_train_instances < 2:
        raise InputError(f"--heads takes {' and '.join(HEADS)}; --seeds >= 1; --max-train-instances >= 2 "
                         f"(got {' '.join(heads)}, {args.seeds}, {args.max_train_instances})")
    settings = ReproduceSettings(
        papers=args.paper, heads=heads, seeds=args.seeds, first_seed=args.seed, encoder=args.encoder,
        hidden_layer=args.hidden_layer, center_context=not args.no_center_context, score=args.score,
        max_train_instances=args.max_train_instances, max_test_instances=args.max_test_instances,
        epochs=args.epochs, patience=args.patience, size=args.size, data_seed=args.data_seed, dataset=args.dataset,
        embedding_cache_dir=args.embedding_cache_dir, families=args.families)
    with locked(args.out, "--out"):
        check_out(args.out, "reproduce", settings.identity(), args.overwrite, resumable=True)
        mark_out(args.out, "reproduce", settings.identity())
        results = reproduce(settings, args.out, overwrite=args.overwrite)
        paths = write_outputs(results, args.out)
    print(f"wrote {paths['report']} (+ results.json and {len(paths) - 2} figures) in {args.out} "
          f"[{results['seconds'] / 60:.1f} min]")
    return 0


def add_parser(sub) -> None:
    """Register `blm reproduce` on the `blm` subcommand parser."""
    defaults = ReproduceSettings()
    p = sub.add_parser("reproduce", help="the seed papers' experiment tables on our data, next to their numbers",
                       description="Train the FFNN (and with --heads two_level_vae the two-level VAE) on every "
                                   "phenomenon × language × train type × test type the seed papers report, over "
                                   "seeds, with early stopping, and write report.md (published number, ours "
                                   "mean ± std, protocol differences), results.json and heatmaps / picked-label "
                                   "bars per family.")
    p.add_argument("--out", required=True, help="folder for report.md, results.json, figures and runs/ (resumable)")
    p.add_argument("--overwrite", action="store_true",
                   help="write into an --out that holds other files or a run with other settings (its saved runs "
                        "are trained again)")
    p.add_argument("--paper", nargs="+", metavar="ID", help="seed papers (000 001 002 003 004; default: all, plus "
                   "the configs no paper reports)")
    p.add_argument("--families", nargs="+", metavar="PREFIX", help="only these families of the papers' tables "
                   "(e.g. agr_fr)")
    p.add_argument("--heads", nargs="+", choices=HEADS, help="ffnn (default) and/or two_level_vae")
    p.add_argument("--seeds", type=int, default=defaults.seeds, help="seeds per train config, stacked (default: 3)")
    p.add_argument("--seed", type=int, default=0, help="first seed (default: 0)")
    p.add_argument("--encoder", default=defaults.encoder, help="auto (default: the measured best per phenomenon "
                   "and language), all-MiniLM-L6-v2, multilingual-e5-small, or a Hub id / folder")
    p.add_argument("--hidden-layer", type=int, default=-1, help="layer to pool (default: auto's, else the last)")
    p.add_argument("--score", choices=("dot", "cosine"), default=defaults.score)
    p.add_argument("--no-center-context", action="store_true", help="do not centre contexts (the papers do not)")
    p.add_argument("--max-train-instances", type=int, default=defaults.max_train_instances,
                   help="training instances sampled per config, 20%% of them validation (default: 2000, as 002)")
    p.add_argument("--max-test-instances", type=int, default=defaults.max_test_instances,
                   help="test instances sampled per config (default: 1000; 0 = all)")
    p.add_argument("--epochs", type=int, default=defaults.epochs, help="at most this many epochs (default: 120)")
    p.add_argument("--patience", type=int, default=defaults.patience,
                   help="early stopping: epochs without a better validation accuracy (default: 10; 0 = off)")
    p.add_argument("--size", type=int, help="when generating: instances per config (default: the paper's)")
    p.add_argument("--data-seed", type=int, default=42, help="generation and sampling seed (default: 42)")
    p.add_argument("--dataset", metavar="FOLDER|REPO", help="read the configs from a `blm export` folder, a "
                   "save_to_disk folder or a Hub dataset repo (default: generate them)")
    p.add_argument("--embedding-cache-dir", help="embedding cache (default: $BLM_EMBEDDING_CACHE or ~/.cache)")
    p.add_argument("--threads", type=int, help="torch threads (default: torch's; 1 is faster on a loaded machine)")
    p.set_defaults(func=cmd_reproduce)
