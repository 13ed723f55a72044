"""The validator over whole datasets: the record checks of ``builders.checks`` (which generation runs on every
instance it makes) counted per check, plus what only a whole split shows (unique ids, uniform gold positions) and
what only a pair of splits shows (no lemma in both train and test, for lemma splits).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from builders import lexical_types, morphology
from builders.base import ConfigSpec
from builders.checks import CHECKS, check_record


def pairwise_jaccard(sentences: Iterable[str], language: str) -> list[float]:
    """Content-stem Jaccard of every pair of sentences (the overlap the lexical types are defined by)."""
    return lexical_types.pair_scores([morphology.content_stems(s, language) for s in sentences])


MIN_PER_POSITION = 5   # the chi-square test's rule of thumb: at least 5 expected golds per position


def gold_position_pvalue(labels: Iterable[int], sizes: Iterable[int]) -> float | None:
    """Chi-square p-value that gold positions are uniform (the smallest over answer-set sizes); None (n/a)
    when no answer-set size has the ``MIN_PER_POSITION`` golds per position the test needs."""
    from scipy.stats import chisquare

    by_size: dict[int, Counter] = {}
    for label, k in zip(labels, sizes):
        by_size.setdefault(k, Counter())[label] += 1
    pvalues = []
    for k, counts in by_size.items():
        observed = [counts.get(i, 0) for i in range(k)]
        if sum(observed) >= MIN_PER_POSITION * k:
            pvalues.append(float(chisquare(observed).pvalue))
    return min(pvalues) if pvalues else None


def format_pvalue(pvalue: float | None, digits: str = ".3f") -> str:
    """``p=0.412``, or ``p=n/a (too few rows to test)`` when the test could not run."""
    return "p=n/a (too few rows to test)" if pvalue is None else f"p={pvalue:{digits}}"


def validate_rows(rows: Iterable[Mapping[str, Any]], spec: ConfigSpec) -> dict[str, Any]:
    """Counts of passes and failures per check over rows, plus the gold-position test."""
    failures, n, labels, sizes, ids = Counter(), 0, [], [], Counter()
    for row in rows:
        n += 1
        ids[row["id"]] += 1
        failures.update(check_record(row, spec))
        labels.append(row["label"])
        sizes.append(len(row["answers"]))
    failures["unique_ids"] = sum(c - 1 for c in ids.values())
    pvalue = gold_position_pvalue(labels, sizes)
    failures["gold_position_uniform"] = int(pvalue is not None and pvalue <= 0.01)
    return {"rows": n, "failures": {c: failures.get(c, 0) for c in (*CHECKS, "unique_ids", "gold_position_uniform")},
            "gold_position_pvalue": pvalue}



def validate_splits(splits: Mapping[str, Iterable[Mapping[str, Any]]], spec: ConfigSpec,
                    lemma_split: bool = True) -> dict[str, dict[str, Any]]:
    """``validate_rows`` per split; with ``lemma_split`` the test report also counts ``lemma_disjoint``: the lemmas
    that occur in both train and test (0 for a lemma split)."""
    reports = {split: validate_rows(rows, spec) for split, rows in splits.items()}
    if lemma_split and {"train", "test"} <= set(splits):
        lemmas = [{row["lemma"] for row in splits[split]} for split in ("train", "test")]
        reports["test"]["failures"]["lemma_disjoint"] = len(lemmas[0] & lemmas[1])
    return reports
