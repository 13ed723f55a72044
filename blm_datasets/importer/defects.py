"""The defects of released data, found per file, and the repairs ``--repair`` makes (each counted).

Found: candidates with the same text, a distractor equal to the gold answer, the gold always (or
mostly) in one position, sentences that do not match their chunks, candidates that repeat a
context sentence, instances given twice, and (per config) test instances whose sentences occur
in train, and answer columns holding one sentence in every row. Repaired: repeated candidates
removed, repeated instances removed, candidates shuffled so the gold position is uniform, unusable
rows dropped. Nothing is dropped silently.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from blm_datasets.importer.cells import joined_chunks, squash_spaces
from blm_datasets.importer.rows import ReleasedRow
from blm_datasets.validate import gold_position_pvalue

DESCRIPTIONS = {
    "duplicate_candidates": "rows with two distractors of the same text",
    "gold_equals_distractor": "rows where a distractor has the gold answer's text",
    "gold_same_position": "rows whose gold is in the one position every row uses",
    "gold_position_skewed": "rows at the most frequent gold position (positions not uniform, p ≤ 0.01)",
    "chunks_mismatch": "rows with a sentence whose text is not its chunks joined",
    "answer_in_context": "rows with a candidate equal to a context sentence",
    "duplicate_instances": "rows repeating an earlier instance (same context and answers)",
    "conflicting_gold": "rows repeating an instance (of this file or another) with another gold answer",
    "constant_answer_column": "rows of a file whose answer column holds the same sentence in every row",
    "label_pattern_mismatch": "rows with a candidate whose released pattern contradicts its label",
    "test_sentences_in_train": "test rows with a sentence (context or candidate) that occurs in train",
}
UNUSABLE = {
    "missing_cells": "missing cells or fields", "bad_value": "a cell that does not parse",
    "no_gold": "no gold answer", "two_golds": "more than one gold answer",
    "gold_label_conflict": "gold flag and label disagree", "empty_text": "an empty sentence",
    "too_few_candidates": "fewer than two distinct candidates", "not_in_release_split": "not in the release's split",
}
MAX_EXAMPLES = 3


@dataclass
class Item:
    """A mapped row: the record being built (no id yet) and what the defect checks need from the release."""

    row: ReleasedRow
    record: dict[str, Any]
    answer_chunks: list[list[str]] | None = None


@dataclass
class Finding:
    """How many rows show one defect, a breakdown (``AEN1 = AEN2``: 100) and the first places."""

    count: int = 0
    detail: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def add(self, where: str, *details: str) -> None:
        self.count += 1
        self.detail.update(details)
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(where)

    def as_dict(self) -> dict[str, Any]:
        return {"count": self.count, "detail": dict(self.detail.most_common()), "examples": self.examples}


_NUMBERED_PHRASE = re.compile(r"^(Subj|NP|P1|PP1|P2|PP2|V|VP)[_-](sg|pl)$")
_SLOT = {"Subj": "subject", "NP": "subject", "P1": "n1", "PP1": "n1", "P2": "n2", "PP2": "n2",
         "V": "verb", "VP": "verb"}


def agreement_label(pattern: str) -> str | None:
    """The agreement-error label an answer pattern implies (the verb matches N2: AEN2, else N1: AEN1,
    else AEV), or None when the verb agrees with the subject or the pattern does not say."""
    numbers = {}
    for token in pattern.split():
        match = _NUMBERED_PHRASE.match(token)
        if match:
            numbers[_SLOT[match.group(1)]] = match.group(2)
    verb = numbers.get("verb")
    if verb is None or "subject" not in numbers or verb == numbers["subject"]:
        return None
    return "AEN2" if numbers.get("n2") == verb else "AEN1" if numbers.get("n1") == verb else "AEV"


def label_agrees(record: dict[str, Any], i: int) -> bool | None:
    """Whether candidate ``i``'s label fits its released pattern (None: nothing to compare)."""
    label = record["answer_labels"][i]
    if record["phenomenon"] != "agr" or label not in ("AEV", "AEN1", "AEN2"):
        return None
    implied = agreement_label(record["answer_patterns"][i])
    return None if implied is None else implied == label


def find(items: list[Item]) -> dict[str, Finding]:
    """The defects of one file's rows (before any repair); kinds with no row are left out."""
    found: dict[str, Finding] = {kind: Finding() for kind in DESCRIPTIONS if kind != "test_sentences_in_train"}
    seen: dict[tuple, tuple[str, str]] = {}
    for item in items:
        rec, where = item.record, item.row.where
        answers, labels, gold = rec["answers"], rec["answer_labels"], rec["label"]
        pairs = [f"{labels[i]} = {labels[j]}" for i in range(len(answers)) for j in range(i + 1, len(answers))
                 if answers[i] == answers[j] and gold not in (i, j)]
        if pairs:
            found["duplicate_candidates"].add(where, *pairs)
        twins = [labels[i] for i, a in enumerate(answers) if i != gold and a == answers[gold]]
        if twins:
            found["gold_equals_distractor"].add(where, *twins)
        context = set(rec["context"])
        repeated = [labels[i] for i, a in enumerate(answers) if a in context]
        if repeated:
            found["answer_in_context"].add(where, *repeated)
        wrong = [f"{labels[i]} (pattern says {agreement_label(rec['answer_patterns'][i])})"
                 for i in range(len(answers)) if label_agrees(rec, i) is False]
        if wrong:
            found["label_pattern_mismatch"].add(where, *wrong)
        mismatched = _chunk_mismatches(item)
        if mismatched:
            found["chunks_mismatch"].add(where, *mismatched)
        key, gold_text = item.row.key(), answers[gold]
        if key not in seen:
            seen[key] = where, gold_text
        elif seen[key][1] == gold_text:
            found["duplicate_instances"].add(where, f"repeats {seen[key][0]}")
        else:
            found["conflicting_gold"].add(f"{where} (gold {gold_text!r}; {seen[key][0]}: gold {seen[key][1]!r})",
                                          "another gold than an earlier row")
    _gold_position(items, found)
    _constant_columns(items, found["constant_answer_column"])
    return {kind: f for kind, f in found.items() if f.count}


def _constant_columns(items: list[Item], finding: Finding, least: int = 3) -> None:
    """Answer columns (release order) with one sentence in every row of a file of ``least`` rows or more."""
    sizes = {len(item.record["answers"]) for item in items}
    if len(items) < least or len(sizes) != 1:
        return
    first = items[0].record
    constant = [f"Answer_{i + 1} ({first['answer_labels'][i]})" for i in range(sizes.pop())
                if len({item.record["answers"][i] for item in items}) == 1]
    if constant:
        for item in items:
            finding.add(item.row.where, *constant)


def _chunk_mismatches(item: Item) -> list[str]:
    """Columns whose sentence is not its chunks joined (white space aside)."""
    out = []
    chunks = item.row.context_chunks or []
    for i, (text, parts) in enumerate(zip(item.row.context, chunks), 1):
        if squash_spaces(text) != squash_spaces(joined_chunks(parts)):
            out.append(f"Sent_{i}")
    for i, (text, parts) in enumerate(zip(item.row.answers, item.answer_chunks or []), 1):
        if squash_spaces(text) != squash_spaces(joined_chunks(parts)):
            out.append(f"Answer_{i}")
    return out


def _gold_position(items: list[Item], found: dict[str, Finding]) -> None:
    positions = Counter(item.record["label"] for item in items)
    if len(items) < 2:
        return
    (top, count), = positions.most_common(1)
    if len(positions) == 1:
        finding = found["gold_same_position"]
    else:
        pvalue = gold_position_pvalue([i.record["label"] for i in items], [len(i.record["answers"]) for i in items])
        if pvalue is None or pvalue > 0.01:
            return
        finding = found["gold_position_skewed"]
    finding.count = count
    finding.detail.update({f"answer {top + 1}": count})
    finding.examples = [item.row.where for item in items if item.record["label"] == top][:MAX_EXAMPLES]


def shared_with_train(train: list[dict[str, Any]], test: list[dict[str, Any]]) -> Finding:
    """Test rows with a sentence that occurs in train (identical instances counted in the breakdown)."""
    sentences = {s for rec in train for s in (*rec["context"], *rec["answers"])}
    instances = {(tuple(r["context"]), tuple(sorted(r["answers"]))) for r in train}
    finding = Finding()
    for rec in test:
        shared = {s for s in (*rec["context"], *rec["answers"]) if s in sentences}
        if not shared:
            continue
        kinds = ["identical instance in train"] if (tuple(rec["context"]), tuple(sorted(rec["answers"]))) in instances \
            else []
        if set(rec["context"]) & shared:
            kinds.append("a context sentence in train")
        if rec["answers"][rec["label"]] in sentences:
            kinds.append("the gold answer in train")
        finding.add(rec["id"], *(kinds or ["a distractor in train"]))
    return finding


# ------------------------------------------------------------------------------------------ repairs
def remove_repeated_candidates(item: Item) -> list[str]:
    """Drop distractors whose text the gold or another candidate has; return their labels.

    Of distractors with one text, the one whose label fits its released pattern is kept (the 4dev
    agreement files label an AEN2 sentence AEN1 too), else the first in the release's order.
    """
    rec = item.record
    gold, answers = rec["label"], rec["answers"]
    keep = []
    for i, text in enumerate(answers):
        if i == gold:
            keep.append(i)
            continue
        if text == answers[gold]:
            continue
        twins = [j for j, other in enumerate(answers) if other == text and j != gold]
        fitting = [j for j in twins if label_agrees(rec, j)]
        if i == (fitting[0] if len(fitting) == 1 else twins[0]):
            keep.append(i)
    removed = [rec["answer_labels"][i] for i in range(len(answers)) if i not in keep]
    if removed:
        _reorder(item, keep)
    return removed


def shuffle_candidates(item: Item, seed: int) -> None:
    """Put the candidates in a random order fixed by the seed and the row's place in its file."""
    rng = random.Random(f"{seed}:{item.row.path.name}:{item.row.line}")
    order = list(range(len(item.record["answers"])))
    rng.shuffle(order)
    _reorder(item, order)


def _reorder(item: Item, order: list[int]) -> None:
    rec = item.record
    gold = rec["label"]
    for column in ("answers", "answer_labels", "answer_error_classes", "answer_patterns"):
        rec[column] = [rec[column][i] for i in order]
    if item.answer_chunks is not None:
        item.answer_chunks = [item.answer_chunks[i] for i in order]
    rec["label"] = order.index(gold)
