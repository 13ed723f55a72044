"""Measure the encoder × layer table: for each phenomenon × language config, each encoder and each layer, a frozen
FFNN head on mean-pooled, centred sentence embeddings, trained on a sample of train (lemma split: the test lemmas
never occur in train), selected on validation accuracy, scored on the test split. Writes the raw numbers as JSON
(resumable: configs already measured are skipped) and prints the table that blm_models/encoder_choice.yaml holds.

    HF_HUB_OFFLINE=1 python benchmarks/encoder_layers.py --out reports/encoder_layers.json [--configs NAME…]

Every unique sentence is embedded once per encoder, all layers in one pass, through the shared embedding cache;
the heads of all layers of an encoder are trained at once (blm_models/stacked_heads.py).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

DEFAULT_CONFIGS = [  # the non-English phenomena first: there the choice of encoder matters most
    "agr_fr_typeI", "agr_it_typeI", "agr_ro_typeI", "agr_en_typeI", "cos_it_typeI", "od_it_typeI",
    "caush_he_synthetic_typeIII", "cosplus_decase_t2i_typeI", "cosplus_demix_t2i_typeI", "cosplus_it_t2i_typeI",
    "seqtense_it_typeI", "mixture_it_typeI", "cos_en_typeI", "od_en_typeI", "cosplus_en_t2i_typeI",
    "sprayload_en_atlalt_typeI", "roll_en_typeI", "caush_he_natural_typeIII",
]
ENCODERS = {"all-MiniLM-L6-v2": [1, 2, 3, 4, 5, 6], "multilingual-e5-small": [2, 4, 6, 8, 10, 12]}
NATURAL_SOURCES = {"caush_he_natural_typeIII": "builders/caush/data/sample.conllu"}


def load_config(name: str, seed: int):
    """A config's splits; the natural CausH config from the CoNLL-U sample the package ships."""
    from blm_datasets.sources import load_source

    sources = [NATURAL_SOURCES[name]] if name in NATURAL_SOURCES else None
    return load_source(None, name, seed=seed, sources=sources)


def measure_config(name: str, args) -> list[dict]:
    """One row per encoder × layer: validation and test accuracy of the FFNN head."""
    import torch

    from blm_models.configuration import BlmConfig
    from blm_models.data import SentenceIndex, answer_label_vocabulary, carve_validation, subsample
    from blm_models.encoders import load_encoder
    from blm_models.layer_embeddings import layer_tables
    from blm_models.stacked_heads import InstanceIndex, StackSettings, evaluate_stack, train_stack

    splits = load_config(name, args.data_seed)
    train = subsample(splits["train"], args.train_instances, args.data_seed)
    train, validation = carve_validation(train, 0.2, args.data_seed)
    test = subsample(splits["test"], args.test_instances, args.data_seed)
    labels = answer_label_vocabulary([train, validation, test])
    index = SentenceIndex(labels)
    parts = {split: InstanceIndex.from_indexed(index.index(data))
             for split, data in (("train", train), ("validation", validation), ("test", test))}
    rows = []
    for encoder, layers in ENCODERS.items():
        start = time.perf_counter()
        loaded = load_encoder(encoder)
        tables, layers, counts = layer_tables(index.sentences, encoder, layers, args.embedding_cache_dir,
                                              batch_size=args.embedding_batch_size, progress=False, loaded=loaded)
        embedded = time.perf_counter() - start
        config = BlmConfig(encoder_config=loaded[0].config, context_length=parts["train"].context.shape[1],
                           center_context=True)
        settings = StackSettings(epochs=args.epochs, patience=args.patience)
        result = train_stack(config, [args.seed] * len(layers), tables, parts["train"], parts["validation"],
                             settings, table_of=range(len(layers)))
        picks = evaluate_stack(config, result, tables, parts["test"], table_of=range(len(layers)))
        accuracy = (picks == parts["test"].gold.unsqueeze(0)).float().mean(dim=1).tolist()
        for position, layer in enumerate(layers):
            rows.append({"config": name, "phenomenon": splits["train"][0]["phenomenon"],
                         "language": splits["train"][0]["language"], "encoder": encoder, "layer": layer,
                         "validation_accuracy": round(result.best_validation[position], 4),
                         "test_accuracy": round(accuracy[position], 4), "best_epoch": result.best_epoch[position],
                         "epochs": result.epochs_trained[position]})
        print(f"{name} {encoder}: " + ", ".join(f"L{r['layer']} {r['validation_accuracy']:.3f}/{r['test_accuracy']:.3f}"
                                                for r in rows if r["encoder"] == encoder)
              + f"  [embed {embedded:.0f} s ({counts['computed']} of {counts['sentences']} sentences computed), "
                f"heads {result.seconds:.0f} s, load {os.getloadavg()[0]:.1f}]", flush=True)
        for row in rows:
            if row["encoder"] == encoder:
                row.update(embed_seconds=round(embedded, 1), head_seconds=result.seconds,
                           sentences=counts["sentences"], sizes={k: len(v) for k, v in parts.items()})
        del tables
        torch.cuda.empty_cache() if torch.cuda.is_available() else None
    return rows


def best_rows(rows: list[dict]) -> dict[str, dict]:
    """Per config and encoder, the layer with the best validation accuracy (ties: the lower layer)."""
    best: dict[str, dict] = {}
    for row in rows:
        key = f"{row['config']}|{row['encoder']}"
        if key not in best or row["validation_accuracy"] > best[key]["validation_accuracy"]:
            best[key] = row
    return best


def print_table(rows: list[dict]) -> None:
    """Markdown: per config, each encoder's best layer (by validation) with its validation and test accuracy."""
    best = best_rows(rows)
    configs = list(dict.fromkeys(r["config"] for r in rows))
    encoders = list(ENCODERS)
    print("| config | " + " | ".join(f"{e}: layer, val / test" for e in encoders) + " | chosen |")
    print("|---|" + "---|" * (len(encoders) + 1))
    for config in configs:
        cells, scores = [], {}
        for encoder in encoders:
            row = best.get(f"{config}|{encoder}")
            if row is None:
                cells.append("-")
                continue
            scores[encoder] = row["validation_accuracy"]
            cells.append(f"{row['layer']}, {row['validation_accuracy']:.3f} / {row['test_accuracy']:.3f}")
        chosen = max(scores, key=scores.get) if scores else "-"
        print(f"| {config} | " + " | ".join(cells) + f" | {chosen} layer {best[f'{config}|{chosen}']['layer']} |")


def choices_yaml(rows: list[dict], settings: dict) -> str:
    """encoder_choice.yaml: per config family, the encoder whose best layer has the best validation accuracy."""
    import yaml

    from blm_models.encoder_choice import config_family

    best = best_rows(rows)
    choices = {}
    for config in dict.fromkeys(r["config"] for r in rows):
        candidates = [best[f"{config}|{e}"] for e in ENCODERS if f"{config}|{e}" in best]
        chosen = max(candidates, key=lambda r: r["validation_accuracy"])  # ties: the first encoder (MiniLM)
        family = config_family(config)
        tokens = family.split("_")
        choices[family] = {
            "phenomenon": chosen["phenomenon"], "language": tokens[1] if len(tokens) > 1 else chosen["language"],
            "encoder": chosen["encoder"], "layer": chosen["layer"], "measured_on": config,
            "validation_accuracy": chosen["validation_accuracy"], "test_accuracy": chosen["test_accuracy"],
            "per_encoder": {r["encoder"]: {"layer": r["layer"], "validation_accuracy": r["validation_accuracy"],
                                           "test_accuracy": r["test_accuracy"]} for r in candidates},
        }
    header = ("# The encoder and layer `--encoder auto` picks per config family, measured by\n"
              "# benchmarks/encoder_layers.py (frozen encoders, mean pooling, centred contexts, FFNN head, lemma split;\n"
              "# the layer and the encoder are picked on validation accuracy, the test accuracy is reported).\n"
              f"# Settings: {json.dumps(settings, sort_keys=True)}\n"
              f"# Layers tried: {json.dumps(ENCODERS)}\n")
    return header + yaml.safe_dump({"choices": choices}, sort_keys=False, allow_unicode=True, width=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="JSON file of raw rows (read back and extended when it exists)")
    parser.add_argument("--configs", nargs="+", default=DEFAULT_CONFIGS)
    parser.add_argument("--train-instances", type=int, default=400, help="sampled from train, 20%% validation")
    parser.add_argument("--test-instances", type=int, default=200)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--patience", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-seed", type=int, default=42)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1 is faster on a loaded machine)")
    parser.add_argument("--embedding-batch-size", type=int, default=128)
    parser.add_argument("--embedding-cache-dir")
    parser.add_argument("--table-only", action="store_true", help="print the table from --out and stop")
    parser.add_argument("--write-yaml", help="write the choices (encoder_choice.yaml's format) here")
    args = parser.parse_args()
    out = Path(args.out)
    rows = json.loads(out.read_text(encoding="utf-8"))["rows"] if out.is_file() else []
    if not args.table_only:
        import torch

        torch.set_num_threads(args.threads)
        done = {r["config"] for r in rows}
        for name in args.configs:
            if name in done:
                continue
            start = time.perf_counter()
            rows += measure_config(name, args)
            print(f"{name}: {time.perf_counter() - start:.0f} s wall, load average {os.getloadavg()}", flush=True)
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_suffix(".tmp")
            settings = {k: v for k, v in vars(args).items()
                        if k not in ("out", "configs", "table_only", "write_yaml", "embedding_cache_dir")}
            tmp.write_text(json.dumps({"settings": settings, "encoders": ENCODERS, "rows": rows}, indent=1),
                           encoding="utf-8")
            os.replace(tmp, out)
    print_table(rows)
    if args.write_yaml:
        stored = json.loads(out.read_text(encoding="utf-8"))["settings"] if out.is_file() else {}
        Path(args.write_yaml).write_text(choices_yaml(rows, stored), encoding="utf-8")
        print(f"wrote {args.write_yaml}")


if __name__ == "__main__":
    main()
