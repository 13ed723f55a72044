"""CausH template rules (Fig. 12): the binyan sequence of each column and its answer set.

The one rule of the matrix is the binyan of each sentence: three pairs, then a seventh sentence
whose binyan the answer must repeat. Every wrong candidate corrupts that rule by taking another
binyan, and is labelled with the binyan it took.
"""

from __future__ import annotations

from collections.abc import Sequence

from builders.errors import InputError
from builders.rules import RuleBook

RULES = RuleBook("caush")


def check_columns(columns: dict[str, list[str]], binyanim: Sequence[str], context_size: int) -> None:
    """Each column is three pairs and a seventh sentence in the fourth binyan (its target)."""
    for target, seq in columns.items():
        pairs = [seq[i] for i in range(0, 6, 2)]
        if (len(seq) != context_size or any(seq[i] != seq[i + 1] for i in range(0, 6, 2))
                or sorted([*pairs, seq[6]]) != sorted(binyanim) or seq[6] != target):
            raise InputError(f"CausH column {target}: {seq} is not three pairs plus a sentence in {target}")


def pattern(binyan: str, template: str = "V-{binyan}") -> str:
    return template.format(binyan=binyan)


def answer_binyanim(target: str, binyanim: Sequence[str]) -> list[str]:
    """The gold binyan first, then the other three: one candidate per binyan."""
    return [target, *(b for b in binyanim if b != target)]


@RULES.rule("binyan", label=lambda binyan: binyan, error_class="SEQUENCE")
def other_binyanim(gold: str, matrix) -> list[str]:
    """Each other binyan in turn: a real sentence (or verb form) whose main verb is in another binyan.

    Labelled with the binyan it takes. SEQUENCE, not GRAMMAR as in 000 §4.3: every candidate is a
    well-formed Hebrew sentence (a UD sentence, or an existing form of the root), it only breaks
    the matrix (builders/README.md, class policy).
    """
    return [b for b in matrix.facts if b != gold]
