"""CausH template rules (Fig. 12): the binyan sequence of each column and its answer set.

The one rule of the matrix is the binyan of each sentence: three pairs, then a seventh sentence
whose binyan the answer must repeat. Every wrong candidate corrupts that rule by taking another
binyan, and is labelled with the binyan it took.
"""

from __future__ import annotations

from collections.abc import Sequence


def check_columns(columns: dict[str, list[str]], binyanim: Sequence[str], context_size: int) -> None:
    """Each column is three pairs and a seventh sentence in the fourth binyan (its target)."""
    for target, seq in columns.items():
        pairs = [seq[i] for i in range(0, 6, 2)]
        if (len(seq) != context_size or any(seq[i] != seq[i + 1] for i in range(0, 6, 2))
                or sorted([*pairs, seq[6]]) != sorted(binyanim) or seq[6] != target):
            raise ValueError(f"CausH column {target}: {seq} is not three pairs plus a sentence in {target}")


def pattern(binyan: str, template: str = "V-{binyan}") -> str:
    return template.format(binyan=binyan)


def answer_binyanim(target: str, binyanim: Sequence[str]) -> list[str]:
    """The gold binyan first, then the other three: one candidate per binyan."""
    return [target, *(b for b in binyanim if b != target)]


def answer_labels(target: str, binyanim: Sequence[str], wrong_class: str) -> list[tuple[str, str]]:
    """(label, error class) per candidate: ``Correct`` for the gold, the binyan name otherwise."""
    return [("Correct", "CORRECT") if b == target else (b, wrong_class) for b in answer_binyanim(target, binyanim)]


def next_patterns(columns: dict[str, list[str]], context_patterns: Sequence[str], template: str) -> set[str]:
    """The gold pattern of every column whose seven context patterns match."""
    return {pattern(seq[6], template) for seq in columns.values()
            if [pattern(b, template) for b in seq] == list(context_patterns)}
