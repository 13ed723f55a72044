"""Which phenomenon, language, variant and lexical type a released file holds, and each row's template.

Each value comes from the first of: the command-line flag, the content (label names, sentences,
patterns), the file's path. What decided it is recorded, so the report can say "language fr
(function words)". A value that nothing decides is an error that names the flag to pass.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from builders import morphology, registry
from blm_datasets.importer import labels as label_table
from blm_datasets.importer.rows import ReleaseError, SourceFile

# languages told by their function words: every language of builders/morphology but those told by script
LANGUAGES = tuple(lang for lang in morphology.LANGUAGES if lang != "he")
_LANGUAGE_NAMES = {"en": "en", "english": "en", "fr": "fr", "french": "fr", "agrf": "fr", "it": "it",
                   "italian": "it", "agri": "it", "ro": "ro", "romanian": "ro", "de": "de", "german": "de",
                   "es": "es", "spanish": "es", "he": "he", "hebrew": "he"}
_TYPE = re.compile(r"type[\s_\-]*(iii|ii|i|1|2|3)(?![a-z])", re.I)
_TYPES = {"i": "I", "1": "I", "ii": "II", "2": "II", "iii": "III", "3": "III"}
_HEBREW = re.compile(r"[\u0590-\u05ff]")


@dataclass
class FileMeta:
    """What a file holds, and what decided each value (``how``: field -> "--flag" | "labels" | "path" …)."""

    phenomenon: str
    language: str
    lexical_type: str
    variant: str = ""
    how: dict[str, str] = field(default_factory=dict)

    @property
    def iso(self) -> str:
        return self.language.split("-")[0]

    @property
    def config(self) -> str:
        """The config name (SPEC §3) the file's rows go to."""
        from builders.base import ConfigSpec

        return ConfigSpec(self.phenomenon, self.language, self.lexical_type, self.variant).name


def _parts(path: Path) -> list[str]:
    """The file name and its three nearest folders, lower case (the user's own folders above stay out).

    For the release's split files (``…/datasets/<split>/sentences/x.json``) the folders are those of
    the folder holding ``datasets``.
    """
    if path.parent.name == "sentences" and path.parent.parent.parent.name == "datasets":
        owner = path.parent.parent.parent.parent
        return [p.lower() for p in (owner.name, *[q.name for q in list(owner.parents)[:2]])]
    return [p.lower() for p in (path.stem, *[q.name for q in list(path.parents)[:3]])]


def _compact(path: Path) -> str:
    return " ".join(re.sub(r"[^a-z0-9+]", "", p) for p in _parts(path))


def _tokens(path: Path) -> set[str]:
    return {t for p in _parts(path) for t in re.split(r"[^a-z0-9+]+", p) if t}


def phenomena_in_path(path: Path) -> list[str]:
    """Phenomena the file's name and folders mention (``BLMagr4dev`` → agr, ``BLM-CausI`` → cos …)."""
    compact, tokens = _compact(path), _tokens(path)
    found = []
    if "agr" in compact:
        found.append("agr")
    if "spray" in compact:
        found.append("sprayload")
    if "cosplus" in compact or "cos+" in compact:
        found.append("cosplus")
    elif tokens & {"cos", "causi", "causit", "caus", "encos", "itcos"} or "changeofstate" in compact:
        found.append("cos")
    if tokens & {"od", "odi", "odit", "enod", "itod"} or "objectdrop" in compact:
        found.append("od")
    if tokens & {"roll", "rolls"}:
        found.append("roll")
    if "caush" in compact or "binyan" in compact:
        found.append("caush")
    if "seqtense" in compact or "sequenceoftense" in compact:
        found.append("seqtense")
    if "mixture" in compact:
        found.append("mixture")
    return found


def _usable(source: SourceFile):
    return [r for r in source.rows if r.problem is None]


def infer_phenomenon(source: SourceFile, flag: str | None, overrides=None) -> tuple[str, str]:
    if flag:
        return registry.check_phenomenon(flag), "--phenomenon"
    names = {name for r in _usable(source) for name in r.labels}
    by_labels = label_table.phenomena_with(names, overrides)
    by_path = phenomena_in_path(source.path)
    if len(by_labels) == 1:
        return by_labels[0], "labels"
    candidates = [p for p in by_path if p in by_labels] if by_labels else by_path
    if len(candidates) == 1:
        return candidates[0], "path" if not by_labels else "labels and path"
    if set(by_labels) >= {"cos", "od"}:
        guess = _cos_or_od(source)
        if guess:
            return guess, "gold answer pattern"
    unknown = label_table.unknown_names(names, overrides)
    if unknown:  # names no table knows: the phenomenon is the user's to say, and the names need --label
        raise ReleaseError(f"{source.path}: labels {', '.join(repr(n) for n in unknown[:5])} are in no phenomenon's "
                           f"table, so the phenomenon cannot be told from them; pass --phenomenon "
                           f"({' or '.join(by_path or registry.available())}) and map each with --label "
                           f"'{unknown[0]}=LABEL:CLASS'")
    shown = ", ".join(sorted(names)[:8]) or "none"
    options = " or ".join(by_labels or registry.available())
    raise ReleaseError(f"{source.path}: cannot tell the phenomenon (labels: {shown}; path: "
                       f"{', '.join(by_path) or 'no hint'}); pass --phenomenon ({options})")


def _cos_or_od(source: SourceFile) -> str | None:
    """COS golds start with the Theme (Pat Akt by-NP), OD golds with the Agent (Samo & Merlo 2025 Fig. 6)."""
    votes = Counter()
    for row in _usable(source):
        if row.answer_patterns and row.gold and sum(row.gold) == 1:
            first = row.answer_patterns[row.gold.index(True)].split()[:1]
            head = first[0].lower() if first else ""
            votes["cos"] += head.endswith(("theme", "pat", "patient"))
            votes["od"] += head.endswith(("agent", "ag"))
    if votes and votes.most_common(1)[0][1] > sum(votes.values()) / 2:
        return votes.most_common(1)[0][0]
    return None


def language_scores(sentences: list[str]) -> dict[str, float]:
    """Share of tokens that are function words of each language (the toolkit's lists)."""
    tokens = [t for s in sentences for t in re.findall(r"[^\W\d_]+", s.lower())]
    if not tokens:
        return {}
    return {lang: sum(t in morphology.function_words(lang) for t in tokens) / len(tokens) for lang in LANGUAGES}


def infer_language(source: SourceFile, phenomenon: str, flag: str | None) -> tuple[str, str]:
    known = _languages(phenomenon)
    if flag:
        if not re.fullmatch(r"[a-z]{2,3}(-[a-z]+)?", flag):
            raise ReleaseError(f"--language {flag!r}: give an ISO 639-1 code such as fr, or de-case / de-mix")
        if known and flag not in known:  # imported all the same; the validator needs a registered config
            return flag, f"--language; the toolkit has no {phenomenon} lexicon for it"
        return flag, "--language"
    sentences = [s for r in _usable(source)[:50] for s in r.context]
    iso, how = None, ""
    if any(_HEBREW.search(s) for s in sentences):
        iso, how = "he", "script"
    else:
        scores = sorted(language_scores(sentences).items(), key=lambda kv: -kv[1])
        if scores and scores[0][1] >= 0.1 and scores[0][1] >= 1.25 * scores[1][1]:
            iso, how = scores[0][0], "function words"
    if iso is None:
        hinted = {_LANGUAGE_NAMES[t] for t in _tokens(source.path) if t in _LANGUAGE_NAMES}
        if len(hinted) == 1:
            iso, how = hinted.pop(), "path"
    if iso is None:
        raise ReleaseError(f"{source.path}: cannot tell the language from the sentences or the path; pass --language "
                           f"({', '.join(known) or ', '.join(LANGUAGES)})")
    variants = [k for k in known if k.split("-")[0] == iso and k != iso]
    if variants:  # COS+ German: de-case / de-mix, told only by the path
        compact = _compact(source.path)
        hit = [v for v in variants if v.replace("-", "") in compact or v.split("-")[1] in _tokens(source.path)]
        if len(hit) != 1:
            raise ReleaseError(f"{source.path}: {phenomenon} {iso} has variants {', '.join(variants)}; pass --language")
        return hit[0], f"{how} and path"
    return iso, how


def _languages(phenomenon: str) -> list[str]:
    try:
        return registry.generator_class(phenomenon).languages()
    except ValueError:
        return []


def _variants(phenomenon: str) -> list[str]:
    try:
        return [v for v in registry.generator_class(phenomenon).variants if v]
    except ValueError:
        return []


def infer_variant(source: SourceFile, phenomenon: str, flag: str | None) -> tuple[str, str]:
    variants = _variants(phenomenon)
    if flag is not None:
        if flag and not re.fullmatch(r"[a-z0-9]+", flag):
            raise ReleaseError(f"--variant {flag!r}: use lower-case letters and digits (config names are "
                               f"[a-z0-9_]); {phenomenon} has {', '.join(variants) or 'no variants'}")
        if variants and flag not in variants:
            return flag, f"--variant; not one of the toolkit's ({', '.join(variants)})"
        return flag, "--variant"
    if not variants:
        return "", ""
    compact = _compact(source.path)
    hit = [v for v in variants if v in compact]
    if len(hit) == 1:
        return hit[0], "path"
    if phenomenon == "sprayload":
        guess = _sprayload_variant(source)
        if guess:
            return guess, "context patterns"
    if phenomenon == "caush":
        lengths = [len(s.split()) for r in _usable(source)[:50] for s in r.context]
        if lengths:
            return ("synthetic" if max(lengths) == 1 else "natural"), "sentence length"
    raise ReleaseError(f"{source.path}: cannot tell the {phenomenon} variant from the path or the content; "
                       f"pass --variant ({' or '.join(variants)})")


def _sprayload_variant(source: SourceFile) -> str | None:
    """ALT-ATL data start with Agent-Loc-Theme (Samo et al. 2023 Fig. 3), ATL-ALT with Agent-Theme-Loc (Fig. 4)."""
    votes = Counter()
    for row in _usable(source):
        first = (row.context_patterns or [""])[0].lower()
        loc, theme = first.find("loc"), first.find("theme")
        if loc >= 0 and theme >= 0:
            votes["altatl" if loc < theme else "atlalt"] += 1
    return votes.most_common(1)[0][0] if votes else None


def infer_lexical_type(source: SourceFile, iso: str, flag: str | None) -> tuple[str, str]:
    if flag:
        return flag, "--lexical-type"
    for part in _parts(source.path):
        match = _TYPE.search(part)
        if match:
            return _TYPES[match.group(1).lower()], "path"
        if "minlex" in part:
            return "I", "path"
        if "maxlex" in part:
            return "III", "path"
    ratios = [_spread(r.context, iso) for r in _usable(source)[:200] if len(r.context) > 1]
    if not ratios:
        raise ReleaseError(f"{source.path}: cannot tell the lexical type; pass --lexical-type (I, II or III)")
    median = statistics.median(ratios)
    kind = "I" if median <= 1.6 else "III" if median >= 4.5 else "II"
    return kind, f"content (distinct content words {median:.1f}× a sentence's)"


def _spread(context: list[str], iso: str) -> float:
    """Distinct content stems of a context over the mean per sentence: ~1 type I, ~2-3 type II, ~7 type III."""
    stems = [morphology.content_stems(s, iso) for s in context]
    mean = statistics.mean(len(s) for s in stems) or 1
    return len(set().union(*stems)) / mean


def infer(source: SourceFile, phenomenon: str | None = None, language: str | None = None,
          variant: str | None = None, lexical_type: str | None = None, overrides=None) -> FileMeta:
    """Everything the config name needs, with what decided each value (``overrides``: the ``--label`` mappings)."""
    meta = FileMeta("", "", "")
    meta.phenomenon, meta.how["phenomenon"] = infer_phenomenon(source, phenomenon, overrides)
    meta.language, meta.how["language"] = infer_language(source, meta.phenomenon, language)
    meta.variant, how = infer_variant(source, meta.phenomenon, variant)
    if how:
        meta.how["variant"] = how
    meta.lexical_type, meta.how["lexical_type"] = infer_lexical_type(source, meta.iso, lexical_type)
    return meta


CLAUSE_TYPES = ("main", "completive", "relative")


def clause_type_in_path(path: Path) -> str | None:
    """The agreement clause type a file's name or folders give (``BLM-AgrF_typeI_completive.csv``)."""
    compact = _compact(path)
    hit = [c for c in CLAUSE_TYPES if c in compact]
    return hit[0] if len(hit) == 1 else None


def row_template(meta: FileMeta, context_patterns: list[str] | None, flag: str | None, path: Path | None = None,
                 gold: str = "") -> str:
    """The record's ``template``: the agreement clause type (from the patterns, else the file's path, else the
    gold sentence: a complementiser before the subject, a relative pronoun), the variant, or the phenomenon."""
    if flag:
        return flag
    if meta.phenomenon == "agr":
        if not context_patterns or not any(context_patterns):
            from blm_datasets.importer.agreement import clause_type

            by_path = clause_type_in_path(path) if path is not None else None
            return by_path or clause_type(gold, meta.iso) or "unspecified"
        joined = " ".join(context_patterns)
        if "Prefix" in joined or "COMP" in joined.upper().split():
            return "completive"
        if re.search(r"\b(ROC|REL)", joined):
            return "relative"
        return "main"
    if meta.phenomenon == "sprayload" and meta.variant:
        return {"altatl": "ALT-ATL", "atlalt": "ATL-ALT"}.get(meta.variant, meta.variant)
    if meta.phenomenon == "cosplus" and meta.variant:
        return meta.variant.upper()
    return meta.variant or meta.phenomenon
