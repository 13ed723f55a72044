"""The letter-choice evaluation settings shared by `blm llm-eval` and the lm-eval task folder.

A ``Variant`` is one setting of `blm llm-eval` that an lm-eval task reproduces: prompt language, shots
(0 = Fig. 8, 1 = Fig. 9's ``# EXAMPLE 1`` layout) and scoring (``loglik``: likeliest letter;
``free``: greedy generation read by ``blm_eval.answer_extraction``), always without a chat template.
Items are a fixed set: the ``samples`` test rows and one-shot examples that run 0 of
``blm llm-eval --item-seed S`` draws (``llm_eval.sample_run`` and ``llm_eval.build_prompts``).

Task versions are ``<protocol>-<data>``: ``protocol`` is a digest of the code that makes the prompts,
draws the items and reads and scores the answers, and of the item-set parameters; ``data`` is the
digest of the rows (``data_digest``), or ``unbound`` when the tasks read whatever data the toolkit
generates. lm-eval records the version string as given (``results["versions"]``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from blm_eval import answer_extraction, prompts
from blm_eval.llm_eval import build_prompts, macro_f1, sample_run
from blm_eval.shot_sets import BLM_IT_CONFIGS, fixed_shot_set
from builders.digest import code_digest

MAX_NEW_TOKENS = 8  # free generation: tokens generated (`blm llm-eval --max-new-tokens`, its default)
UNBOUND = "unbound"


@dataclass(frozen=True)
class Variant:
    prompt_lang: str = "en"
    shots: int = 0
    scoring: str = "loglik"  # loglik | free

    @property
    def name(self) -> str:
        """Task suffix: letter[_it][_1shot][_gen]."""
        return ("letter" + ("_it" if self.prompt_lang == "it" else "") + (f"_{self.shots}shot" if self.shots else "")
                + ("_gen" if self.scoring == "free" else ""))

    def llm_eval_command(self, config: str, *, samples: int, item_seed: int, dataset: str | None) -> str:
        """The `blm llm-eval` command that scores the same items the same way (its run 0)."""
        source = f" --dataset {dataset}" if dataset else ""
        tokens = f" --max-new-tokens {MAX_NEW_TOKENS}" if self.scoring == "free" else ""
        return (f"blm llm-eval {config}{source} --model MODEL --protocol {protocol_of(config)} "
                f"--prompt-lang {self.prompt_lang} --shots {self.shots} "
                f"--scoring {self.scoring}{tokens} --chat-template off --samples {samples} --item-seed {item_seed} "
                f"--seed {item_seed} --runs 1")


def variants(language: str) -> list[Variant]:
    """English-prompt variants for every config, Italian-prompt ones for Italian data; 0/1 shot; loglik/free."""
    langs = ["en", *(["it"] if language == "it" else [])]
    return [Variant(lang, shots, scoring) for lang in langs for shots in (0, 1) for scoring in ("loglik", "free")]


def protocol_of(config: str) -> str:
    """The `blm llm-eval --protocol` a config's tasks follow: blm-it for BLM-It's configs (its fixed one-shot set),
    toolkit for the others (one-shot examples drawn from the whole train split)."""
    return "blm-it" if BLM_IT_CONFIGS.match(config) else "toolkit"


def fixed_items(test, train, variant: Variant, *, samples: int, item_seed: int,
                config: str = "") -> tuple[list[int], list[str]]:
    """(test row indices, their prompts): exactly what run 0 of `blm llm-eval --protocol protocol_of(config)
    --item-seed item_seed` evaluates (under blm-it the examples come from ``shot_sets.fixed_shot_set``)."""
    indices = sample_run(len(test), samples, item_seed)
    shot_rows = None
    if variant.shots:
        shot_rows = fixed_shot_set(train, config, item_seed)[0] if protocol_of(config) == "blm-it" else train
    texts = build_prompts(test, indices, prompt_lang=variant.prompt_lang, shots=variant.shots,
                          shot_rows=shot_rows, run_seed=item_seed)
    return indices, texts


def protocol_version(samples: int, item_seed: int) -> str:
    """Digest of the prompt wording, item drawing, answer reading and macro-F1 code and the item-set parameters."""
    code = code_digest(prompts, answer_extraction, sample_run, build_prompts, macro_f1, Variant, variants, fixed_items,
                       protocol_of, fixed_shot_set)
    return hashlib.sha256(f"{code} samples={samples} item_seed={item_seed}".encode()).hexdigest()[:8]


def data_digest(splits: Any, config: str) -> str:
    """Digest of a config's test and train rows (ids, sentences, labels): `blm llm-eval`'s ``data_digest`` of a
    one-shot run on the same data."""
    from blm_eval.run_record import data_digest as rows_digest

    return rows_digest({config: (splits["test"], splits["train"] if "train" in splits else None)})


def task_version(samples: int, item_seed: int, digest: str | None) -> str:
    return f"{protocol_version(samples, item_seed)}-{digest[:8] if digest else UNBOUND}"
