"""What every reader yields: one released row, still in the release's own terms, and the errors.

Readers only parse; they never judge. A row the importer cannot use (a missing cell, no gold, two
golds …) carries a ``problem`` instead of raising, so ``--repair`` can drop and count it and an
import without ``--repair`` can stop on the first one with its file and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from builders.errors import InputError


class ReleaseError(InputError):
    """A released file cannot be imported as it is; the message names the file, row or column and the fix."""


@dataclass(frozen=True)
class Problem:
    """Why a row is unusable: a kind (counted by ``--repair``) and the one-line message."""

    kind: str       # missing_cells | bad_value | no_gold | two_golds | empty_text | gold_label_conflict
    message: str


@dataclass
class ReleasedRow:
    """One BLM instance as the release wrote it (labels not yet mapped, order as in the file)."""

    path: Path
    line: int                                   # 1-based line where the row starts
    index: str                                  # the release's index / ID cell ("" when none)
    context: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)          # released label names
    gold: list[bool] | None = None                           # the released booleans (None: not given)
    context_patterns: list[str] | None = None
    context_chunks: list[list[str]] | None = None
    answer_patterns: list[str] | None = None
    answer_chunks: list[list[str]] | None = None
    lemma: str = ""
    split: str | None = None                    # the release's split for this row, when it says
    problem: Problem | None = None
    item: bool = False                          # ``line`` counts JSON items, not lines
    labels_known: bool = True                   # False: the release names no distractor's label (CALAMITA task files)

    @property
    def where(self) -> str:
        """``file:line (row INDEX)`` (``file item N (ID X)`` for JSON) for messages."""
        place = f"{self.path} item {self.line}" if self.item else f"{self.path}:{self.line}"
        return place + (f" ({'ID' if self.item else 'row'} {self.index})" if self.index != "" else "")

    def key(self) -> tuple:
        """The instance's identity: its context and its answer set (order-free)."""
        return tuple(self.context), tuple(sorted(self.answers))


@dataclass
class SourceFile:
    """A released file after reading: its format, rows and what the reader noticed about its layout."""

    path: Path
    format: str                                 # 4dev | agrf-csv | calamita | split-json
    rows: list[ReleasedRow]
    split: str | None = None                    # the split its name gives, if any
    split_from: str | None = None               # where the rows' splits come from (file name, split folders …)
    notes: list[str] = field(default_factory=list)
    has_patterns: bool = False
    has_chunks: bool = False
    answer_columns: int = 0
    label_columns: list[str] = field(default_factory=list)   # where each candidate's label was read
