"""The record checks (SPEC §2 invariants), run by generation on every instance it makes.

They read only the record and what the template declares (``next_patterns``, ``context_size``, the type I
threshold), never the generator's internal state, so a generator bug cannot hide itself. ``generate`` calls
``check_record`` itself; ``blm_datasets.validate`` counts the same checks over whole datasets.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from builders import lexical_types, morphology, registry
from builders.base import ConfigSpec
from builders.record import COLUMNS, ERROR_CLASSES, GOLD_LABEL, UNKNOWN
from builders.rules import FILLER_BLIND_TYPES

CHECKS = (
    "schema", "one_gold", "lengths", "distinct_answers", "answer_not_in_context", "chunks_match",
    "gold_is_next_step", "lexical_type", "second_answer",
)
_SQUASH = re.compile(r"[\W_]+", re.UNICODE)
# thematic-role names in patterns (NP-Agent, PP-Loc, NP-Patient.NOM): which noun fills a noun-phrase slot is
# lexical, so the frame of a pattern drops them from noun phrases; '*' (a preposition the verb does not
# select) is dropped too: another preposition of the same PP is the same frame
_ROLE = re.compile(r"^(\[?)\*?(NP)-(?:Agent|Patient|Theme|Loc|Location|Causer|Experiencer|Instrument|Goal|Source)\b")
_STAR = re.compile(r"^(\[?)\*")


@functools.lru_cache(maxsize=1 << 12)  # a config has a few hundred patterns, each read by every record
def frame(pattern: str) -> str:
    """A pattern without its noun phrases' role names and wrong-preposition marks: ``NP-Agent Verb NP-Theme
    *PP-Loc`` -> ``NP Verb NP PP-Loc``. Two sentences with one frame differ only in their fillers."""
    return " ".join(_STAR.sub(r"\1", _ROLE.sub(r"\1\2", token)) for token in pattern.split())


def second_answers(record: Mapping[str, Any], spec: ConfigSpec) -> list[int]:
    """Type II/III: the SEQUENCE candidates with the gold's frame (``frame``), which the context cannot tell
    from the gold (builders/README.md, class policy), unless the template declares the label a
    ``same_frame_distractors`` entry (a filler takes another role there)."""
    if spec.lexical_type not in FILLER_BLIND_TYPES:
        return []
    patterns, gold = record["answer_patterns"], record["label"]
    exempt = registry.generator(spec.phenomenon, spec.language).template.same_frame_distractors
    gold_frame = frame(patterns[gold])
    return [i for i, (label, cls, pattern) in enumerate(zip(record["answer_labels"], record["answer_error_classes"],
                                                             patterns))
            if cls == "SEQUENCE" and frame(pattern) == gold_frame
            and label not in exempt and f"{record['template']}:{label}" not in exempt]


def lexical_type_ok(record: Mapping[str, Any], spec: ConfigSpec) -> bool:
    """Whether the record's context is of its config's lexical type (``builders.lexical_types``)."""
    return _context_overlap_ok(tuple(record["context"]), tuple(map(tuple, record["context_chunks"])), spec.iso,
                               spec.lexical_type, spec.phenomenon, spec.language)


@functools.lru_cache(maxsize=1 << 10)  # a config and its twin check the same contexts one after the other
def _context_overlap_ok(context: tuple[str, ...], chunks: tuple[tuple[str, ...], ...], iso: str, lexical_type: str,
                        phenomenon: str, language: str) -> bool:
    stems = [morphology.sentence_stems(s, c, iso) for s, c in zip(context, chunks)]
    type_i_min = registry.generator(phenomenon, language).type_i_min_jaccard if lexical_type == "I" else 0.0
    return lexical_types.context_ok(lexical_type, stems, type_i_min)


@functools.lru_cache(maxsize=1 << 10)
def _chunks_match(chunks: tuple[tuple[str, ...], ...], context: tuple[str, ...]) -> bool:
    """Each sentence is its chunks up to spacing and punctuation (at once when it is them joined plus a full stop)."""
    return all(text == " ".join(c) + "." or _SQUASH.sub("", " ".join(c)) == _SQUASH.sub("", text)
               for c, text in zip(chunks, context))


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
            or classes[gold] != "CORRECT" or not set(classes) <= {*ERROR_CLASSES, UNKNOWN}):
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
    if not lexical_type_ok(record, spec):
        failed.append("lexical_type")
    if second_answers(record, spec):
        failed.append("second_answer")
    return failed
