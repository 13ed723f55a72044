"""The validator: SPEC §2 invariants checked on every row, independently of the generator.

It reads only the record and the template's declared sequences (``next_patterns``), never the
generator's internal state, so a generator bug cannot hide itself.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from builders import morphology, registry
from builders.generate import set_default_check
from builders.base import ConfigSpec
from blm_datasets.features import COLUMNS, ERROR_CLASSES, GOLD_LABEL

CHECKS = (
    "schema", "one_gold", "lengths", "distinct_answers", "answer_not_in_context", "chunks_match",
    "gold_is_next_step", "lexical_type",
)
_SQUASH = re.compile(r"[\W_]+", re.UNICODE)


def jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def pairwise_jaccard(sentences: Iterable[str], language: str) -> list[float]:
    stems = [morphology.content_stems(s, language) for s in sentences]
    return [jaccard(a, b) for a, b in itertools.combinations(stems, 2)]


def _lexical_type_ok(record: Mapping[str, Any], spec: ConfigSpec) -> bool:
    return _context_overlap_ok(tuple(record["context"]), spec.iso, spec.lexical_type, spec.phenomenon, spec.language)


@functools.lru_cache(maxsize=1 << 10)  # a config and its twin check the same contexts one after the other
def _context_overlap_ok(context: tuple[str, ...], iso: str, lexical_type: str, phenomenon: str, language: str) -> bool:
    """The lexical-type check of one context (cached: a config and its twin share their contexts)."""
    spec = ConfigSpec(phenomenon, language, lexical_type)
    stems = [morphology.content_stems(s, iso) for s in context]
    pairs = list(itertools.combinations(stems, 2))
    if spec.lexical_type == "III":
        return all(not (a & b) for a, b in pairs)
    if spec.lexical_type == "II":  # same seed, words vary: overlap well above type III's zero
        scores = [jaccard(a, b) for a, b in pairs]
        return sum(scores) / len(scores) >= 0.2 and min(scores) < 1
    gen = registry.generator(spec.phenomenon, spec.language)
    return all(jaccard(a, b) >= gen.type_i_min_jaccard for a, b in pairs)


@functools.lru_cache(maxsize=1 << 10)  # a config and its twin check the same contexts one after the other
def _chunks_match(chunks: tuple[tuple[str, ...], ...], context: tuple[str, ...]) -> bool:
    return all(_SQUASH.sub("", " ".join(c)) == _SQUASH.sub("", text) for c, text in zip(chunks, context))


def check_record(record: Mapping[str, Any], spec: ConfigSpec) -> list[str]:
    """Names of the checks this record fails (empty list = valid)."""
    if set(record) != set(COLUMNS):
        return ["schema"]
    failed = []
    answers, labels, classes = record["answers"], record["answer_labels"], record["answer_error_classes"]
    patterns, gold = record["answer_patterns"], record["label"]
    gen = registry.generator(spec.phenomenon, spec.language)
    n_ctx = len(record["context"])
    if not (
        n_ctx == gen.context_size == len(record["context_patterns"]) == len(record["context_chunks"])
        and len(answers) == len(labels) == len(classes) == len(patterns) >= 2
        and 0 <= gold < len(answers)
    ):
        return ["lengths"]
    if (labels.count(GOLD_LABEL) != 1 or classes.count("CORRECT") != 1 or labels[gold] != GOLD_LABEL
            or classes[gold] != "CORRECT" or not set(classes) <= set(ERROR_CLASSES)):
        failed.append("one_gold")
    if len(set(answers)) != len(answers):
        failed.append("distinct_answers")
    if set(answers) & set(record["context"]):
        failed.append("answer_not_in_context")
    if not _chunks_match(tuple(map(tuple, record["context_chunks"])), tuple(record["context"])):
        failed.append("chunks_match")
    expected = gen.next_patterns(spec, record["template"], record["context_patterns"])
    if len(expected) != 1 or patterns[gold] not in expected or patterns.count(patterns[gold]) != 1:
        failed.append("gold_is_next_step")
    if not _lexical_type_ok(record, spec):
        failed.append("lexical_type")
    return failed


def gold_position_pvalue(labels: Iterable[int], sizes: Iterable[int]) -> float:
    """Chi-square p-value that gold positions are uniform (per answer-set size, pooled)."""
    from scipy.stats import chisquare

    by_size: dict[int, Counter] = {}
    for label, k in zip(labels, sizes):
        by_size.setdefault(k, Counter())[label] += 1
    pvalues = []
    for k, counts in by_size.items():
        observed = [counts.get(i, 0) for i in range(k)]
        if sum(observed) >= 5 * k:
            pvalues.append(chisquare(observed).pvalue)
    return min(pvalues) if pvalues else 1.0


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
    failures["gold_position_uniform"] = int(pvalue <= 0.01)
    return {"rows": n, "failures": {c: failures.get(c, 0) for c in (*CHECKS, "unique_ids", "gold_position_uniform")},
            "gold_position_pvalue": pvalue}


set_default_check(check_record)  # every generation path validates each instance it makes
