"""The label table: released answer-label names → the toolkit's labels (SPEC §4) and error classes.

Names are matched case- and separator-blind (``I-Int``, ``I_INT`` and ``iint`` are one name), so
the spellings of the 4dev files, the early BLM-AgrF CSVs and the CALAMITA JSON all meet here.
Classes are the papers' where they give them (Samo & Merlo 2025 Fig. 6 for CoS/OD, Fig. 9 for
COS+, §4.3 for CausH; Merlo et al. 2025 Fig. 3 for agreement); where they do not (spray/load,
Roll), the reading is documented per entry. The README prints this table; ``--label NAME=LABEL:CLASS`` adds to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from blm_datasets.features import ERROR_CLASSES, GOLD_LABEL
from blm_datasets.importer.rows import ReleaseError

GOLD_NAMES = ("True", "Correct")            # what the releases write for the gold candidate
EMPTY_NAMES = ("", "nan", "None", "null")   # an unlabelled cell (accepted on the gold candidate only)


@dataclass(frozen=True)
class Entry:
    """A released name: the toolkit label(s) it stands for and the error class (or classes by template).

    ``labels`` has several members for a name the release uses twice in one answer set (spray/load
    ``Alt`` = ALT-NP then ALT-PP, ``SSM`` = SSM-1 then SSM-2): they are given in order of appearance.
    """

    labels: tuple[str, ...]
    error_class: str | dict[str, str]
    source: str
    names: tuple[str, ...] = ()     # the released spellings, as the papers and files write them

    def class_for(self, template: str) -> str | None:
        if isinstance(self.error_class, str):
            return self.error_class
        return self.error_class.get(template.upper())


def canonical(name: str) -> str:
    """The matching key of a label name: letters and digits only, upper case."""
    return re.sub(r"[^0-9A-Za-z+]", "", name).upper()


def _entries(*rows: tuple[str | tuple[str, ...], tuple[str, ...], str | dict[str, str], str]) -> dict[str, Entry]:
    table = {}
    for labels, names, cls, source in rows:
        entry = Entry((labels,) if isinstance(labels, str) else labels, cls, source, names)
        for name in names:
            table[canonical(name)] = entry
    return table


S, G = "SEQUENCE", "GRAMMAR"
_AGR = _entries(
    ("Coord", ("Coord", "coordination"), S, "Merlo et al. 2025 Fig. 3; An et al. 2023 Fig. 2 (coordination)"),
    ("WNA", ("WNA", "mis_num"), S, "Merlo et al. 2025 Fig. 3; An et al. 2023 Fig. 2 (wrong number of attractors)"),
    ("WN1", ("WN1", "N1_alter"), S, "Merlo et al. 2025 Fig. 3; An et al. 2023 Fig. 2"),
    ("WN2", ("WN2", "N2_alter"), S, "Merlo et al. 2025 Fig. 3; An et al. 2023 Fig. 2"),
    ("AEV", ("AEV", "agreement_error_V"), G, "Merlo et al. 2025 Fig. 3"),
    ("AEN1", ("AEN1", "agreement_error_N1"), G, "Merlo et al. 2025 Fig. 3"),
    ("AEN2", ("AEN2", "agreement_error_N2"), G, "Merlo et al. 2025 Fig. 3"),
    # BLM-AgrF's single agreement error (An et al. 2023 Fig. 2): the verb's number is wrong. The toolkit splits it
    # into AEV/AEN1/AEN2 by the noun the wrong verb matches, which the early files do not record.
    ("AE", ("AE", "agreement_error"), G, "An et al. 2023 Fig. 2"),
)
_COS_OD = _entries(  # classes: Samo & Merlo 2025 Fig. 6 (the same for COS and OD; CALAMITA spells I-Int, ER-Pass …)
    ("I-INT", ("I-INT",), G, "Samo & Merlo 2025 Fig. 6"),
    ("ER-PASS", ("ER-PASS",), S, "Samo & Merlo 2025 Fig. 6"),
    ("IER-PASS", ("IER-PASS",), S, "Samo & Merlo 2025 Fig. 6"),
    ("R-TRANS", ("R-TRANS",), S, "Samo & Merlo 2025 Fig. 6"),
    ("IR-TRANS", ("IR-TRANS",), S, "Samo & Merlo 2025 Fig. 6"),
    ("E-WRBY", ("E-WRBY",), G, "Samo & Merlo 2025 Fig. 6"),
    ("IE-WRBY", ("IE-WRBY",), G, "Samo & Merlo 2025 Fig. 6"),
    ("E-SI", ("E-SI",), G, "Samo & Merlo 2025 Fig. 6 caption (Italian si candidates: both GRAMMAR)"),
    ("IE-SI", ("IE-SI",), G, "Samo & Merlo 2025 Fig. 6 caption (Italian si candidates: both GRAMMAR)"),
)
# Spray/load: Merlo et al. 2025 Figs. 5-6, Samo et al. 2023 Figs. 3-4. Classes: the former (§6) calls ALT-NP,
# ALT-PP and LEXPREP "grammatically correct sentences" that break the sequence, the latter (§4) calls NOEMB
# plausible; AGENTACT is ungrammatical and the SSM candidates break the syntax-semantics mapping (SPEC §1: GRAMMAR).
# The BLMsl4dev files spell them CRagentact, CRalternation1/2, CRNoEmb, CRLexPrep, CrSSM1/2, CrAASSM1 ("CR" for
# corrupted); alternation1/2 are taken in the order of Samo et al. 2023 Fig. 3's "Alt, Alt" (ALT-NP, then ALT-PP).
_SPRAYLOAD = _entries(
    ("AGENTACT", ("AGENTACT", "AgentAct", "CRagentact"), G,
     "Merlo et al. 2025 Fig. 5; Samo et al. 2023 §4 (ungrammatical)"),
    ("ALT-NP", ("ALT-NP", "CRalternation1"), S,
     "Merlo et al. 2025 Fig. 5; Merlo et al. 2025 §6 (grammatical, breaks the sequence)"),
    ("ALT-PP", ("ALT-PP", "CRalternation2"), S, "Merlo et al. 2025 Fig. 5; Merlo et al. 2025 §6"),
    (("ALT-NP", "ALT-PP"), ("Alt",), S, "Samo et al. 2023 Fig. 3 (Alt twice: ALT-NP, then ALT-PP)"),
    ("NOEMB", ("NOEMB", "NoEmb", "CRNoEmb"), S,
     "Merlo et al. 2025 Fig. 5; Samo et al. 2023 §4 (a plausible sentence)"),
    ("LEXPREP", ("LEXPREP", "LexPrep", "CRLexPrep"), S, "Merlo et al. 2025 Fig. 5; Merlo et al. 2025 §6"),
    ("SSM-1", ("SSM-1", "SSM1", "CrSSM1"), G, "Merlo et al. 2025 Fig. 5 (syntax-semantics mapping)"),
    ("SSM-2", ("SSM-2", "SSM2", "CrSSM2"), G, "Merlo et al. 2025 Fig. 5"),
    (("SSM-1", "SSM-2"), ("SSM",), G, "Samo et al. 2023 Fig. 3 (SSM twice: SSM-1, then SSM-2)"),
    ("AASSM", ("AASSM", "CrAASSM1"), G, "Merlo et al. 2025 Fig. 5; Samo et al. 2023 footnote 1"),
)
# Roll: Merlo et al. 2025 Fig. 10 gives no classes. Structure changes and role swaps break the syntax-semantics
# mapping (GRAMMAR); RR and PC-RR are well-formed sentences about the wrong participant or paradigm.
_ROLL = _entries(
    ("SC-RS", ("SC-RS", "SCRC"), G, "Merlo et al. 2025 Fig. 10 (SCRC in the figure)"),
    ("SC-RR", ("SC-RR",), G, "Merlo et al. 2025 Fig. 10"),
    ("RR", ("RR",), S, "Merlo et al. 2025 Fig. 10"),
    ("PSC-RS", ("PSC-RS",), G, "Merlo et al. 2025 Fig. 10"),
    ("PSC-RR", ("PSC-RR",), G, "Merlo et al. 2025 Fig. 10"),
    ("PC-RR", ("PC-RR",), S, "Merlo et al. 2025 Fig. 10"),
)
# COS+: Samo & Merlo 2025 Fig. 9; the class depends on the template, and the figure names candidates by class.
_COSPLUS = _entries(
    ("I-INT", ("I-INT", "Ag Verb"), {"T2I": G, "I2T": S}, "Samo & Merlo 2025 Fig. 9"),
    ("R-TRANS", ("R-TRANS", "Pa Verb Ag"), {"T2I": S, "I2T": G}, "Samo & Merlo 2025 Fig. 9"),
)
_COSPLUS_BY_CLASS = {"T2I": {"GRAMMAR": "I-INT", "SEQUENCE": "R-TRANS"},
                     "I2T": {"SEQUENCE": "I-INT", "GRAMMAR": "R-TRANS"}}
_CAUSH = _entries(*((b, (b,), G, "Samo & Merlo 2025 §4.3 (all wrong answers GRAMMAR)")
                    for b in ("PAAL", "NIFAL", "HIFIL", "HUFAL")))
# SeqTense and Mixture: the toolkit's own names (Merlo et al. 2025 §3.2.5 gives none), for its CALAMITA exports.
_SEQTENSE = _entries(
    *((name, (name,), cls, "toolkit (builders/seqtense)") for name, cls in
      (("WN", S), ("WT", S), ("WP", S), ("AGR", G), ("SOT", G), ("PCOND", G))))
_MIXTURE = _entries(
    *((name, (name,), cls, "toolkit (builders/seqtense)") for name, cls in
      (("WA", S), ("WG+WA", S), ("WN+WT+WA", S), ("WN+WG+WP+WA", S), ("WN+WP+AGR+SOT", G))))

# The early BLM-AgrF CSVs use two of the 4dev names for other candidates (An et al. 2023 Fig. 5): N1_alter
# changes the subject's number and keeps the verb (an agreement error), N2_alter the first attractor's (WN1).
# Agreement labels are checked against the sentences all the same (``agreement``); this is what the names say.
_AGRF_CSV = _entries(
    ("AE", ("N1_alter",), G, "An et al. 2023 Fig. 5 (BLM-AgrF CSVs: the subject's number changed, verb kept)"),
    ("WN1", ("N2_alter",), S, "An et al. 2023 Fig. 5 (BLM-AgrF CSVs: the first attractor's number changed)"),
)
# names whose meaning depends on the file's format: (phenomenon, format) -> entries read before TABLE's
BY_FORMAT: dict[tuple[str, str], dict[str, Entry]] = {("agr", "agrf-csv"): _AGRF_CSV}

TABLE: dict[str, dict[str, Entry]] = {
    "agr": _AGR, "cos": _COS_OD, "od": _COS_OD, "sprayload": _SPRAYLOAD, "roll": _ROLL, "cosplus": _COSPLUS,
    "caush": _CAUSH, "seqtense": _SEQTENSE, "mixture": _MIXTURE,
}


def is_gold_name(name: str) -> bool:
    return canonical(name) in {canonical(n) for n in GOLD_NAMES}


def is_empty_name(name: str) -> bool:
    return name.strip() in EMPTY_NAMES


def known_labels(phenomenon: str | None = None) -> set[str]:
    """The toolkit labels the table gives (one phenomenon's, or every phenomenon's), gold aside."""
    tables = [t for p, t in TABLE.items() if phenomenon in (None, p)]
    tables += [t for (p, _), t in BY_FORMAT.items() if phenomenon in (None, p)]
    out = {label for table in tables for entry in table.values() for label in entry.labels}
    if phenomenon in (None, "cosplus"):
        out |= {label for by_class in _COSPLUS_BY_CLASS.values() for label in by_class.values()}
    return out


def parse_override(text: str) -> tuple[str, Entry]:
    """``NAME=LABEL:CLASS`` (``--label``) as (canonical name, entry); a bad one says what is expected. LABEL must be
    a label the toolkit knows (the gold label only with class CORRECT)."""
    name, sep, target = text.partition("=")
    label, sep2, cls = target.rpartition(":")
    label, cls = label.strip(), cls.strip().upper()
    if not (sep and sep2 and name.strip() and label) or cls not in ERROR_CLASSES:
        raise ReleaseError(f"--label {text!r}: expected RELEASED=LABEL:CLASS with CLASS one of "
                           f"{', '.join(ERROR_CLASSES)}, e.g. --label 'mis_num=WNA:SEQUENCE'")
    if (label == GOLD_LABEL) != (cls == "CORRECT"):
        raise ReleaseError(f"--label {text!r}: the gold answer is {GOLD_LABEL}:CORRECT and only it; a distractor "
                           f"needs a distractor label and class SEQUENCE or GRAMMAR (another {GOLD_LABEL} would give "
                           "a row two gold answers)")
    if label != GOLD_LABEL and label not in known_labels():
        raise ReleaseError(f"--label {text!r}: {label!r} is no label the toolkit knows (known: "
                           f"{', '.join(sorted(known_labels()))}); give one of these")
    return canonical(name), Entry((label,), cls, "--label")


def parse_overrides(texts: list[str] | tuple[str, ...]) -> dict[str, Entry]:
    """Every ``--label``; the same released name mapped twice, differently, is refused."""
    out: dict[str, tuple[str, Entry]] = {}
    for text in texts:
        key, entry = parse_override(text)
        if key in out and out[key][1] != entry:
            raise ReleaseError(f"--label {text!r}: {key!r} is already mapped by --label {out[key][0]!r}; "
                               "give one mapping per released name")
        out[key] = (text, entry)
    return {key: entry for key, (_, entry) in out.items()}


def phenomena_with(names: set[str], overrides: dict[str, Entry] | None = None) -> list[str]:
    """Phenomena whose table knows every released name in ``names`` (gold and empty names and the names a
    ``--label`` maps aside); with every name mapped, the phenomena whose labels include the mapped ones."""
    overrides = overrides or {}
    keys = {canonical(n) for n in names if not is_gold_name(n) and not is_empty_name(n)}
    mapped = {overrides[k].labels[0] for k in keys if k in overrides} - {GOLD_LABEL}
    keys -= set(overrides)
    if not keys:
        return [p for p in TABLE if mapped and mapped <= known_labels(p)]
    return [p for p, table in TABLE.items()
            if keys <= set(table) or (p == "cosplus" and keys <= {"GRAMMAR", "SEQUENCE"})]


def unknown_names(names: set[str], overrides: dict[str, Entry] | None = None) -> list[str]:
    """The released names no phenomenon's table (nor a ``--label``) knows."""
    everything = {k for table in TABLE.values() for k in table} | {"GRAMMAR", "SEQUENCE"} | set(overrides or {})
    return sorted(n for n in names if not is_gold_name(n) and not is_empty_name(n) and canonical(n) not in everything)


def map_labels(names: list[str], gold: int, phenomenon: str, template: str, overrides: dict[str, Entry],
               where: str, columns: list[str], fmt: str = "") -> tuple[list[str], list[str]]:
    """(labels, error classes) of one answer set whose gold candidate is ``gold`` (``fmt``: the file's format,
    for the names ``BY_FORMAT`` reads differently).

    An unknown name is an error naming the row, the column and the fix.
    """
    table = {**TABLE.get(phenomenon, {}), **BY_FORMAT.get((phenomenon, fmt), {})}
    labels, classes, seen = [], [], {}
    for i, name in enumerate(names):
        if i == gold:
            labels.append(GOLD_LABEL)
            classes.append("CORRECT")
            continue
        key = canonical(name)
        entry = overrides.get(key) or table.get(key)
        if entry is None and phenomenon == "cosplus" and key in ("GRAMMAR", "SEQUENCE"):
            label = _COSPLUS_BY_CLASS.get(template.upper(), {}).get(key)
            if label is not None:
                labels.append(label)
                classes.append(key)
                continue
        if entry is None:
            known = ", ".join(sorted({n for e in table.values() for n in e.labels})) or "none"
            what = "an empty label" if is_empty_name(name) else f"unknown label {name!r}"
            raise ReleaseError(
                f"{where}: column {columns[i]}: {what} for {phenomenon} (known: {known}; gold: "
                f"{'/'.join(GOLD_NAMES)}); map it with --label '{name or 'NAME'}=LABEL:CLASS' or fix the file")
        if entry.source == "--label" and entry.labels[0] not in known_labels(phenomenon) | {GOLD_LABEL}:
            raise ReleaseError(f"--label {name}={entry.labels[0]}:{entry.error_class}: {entry.labels[0]!r} is not a "
                               f"{phenomenon} label (known: {', '.join(sorted(known_labels(phenomenon)))}); map "
                               "the name to one of these")
        cls = entry.class_for(template)
        if cls is None:
            raise ReleaseError(f"{where}: column {columns[i]}: label {name!r} has a class only for templates "
                               f"{', '.join(entry.error_class)} and this row's template is {template!r}; pass "
                               "--template or --label")
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        labels.append(entry.labels[min(occurrence, len(entry.labels) - 1)])
        classes.append(cls)
    return labels, classes


def table_rows(phenomenon: str | None = None) -> list[tuple[str, str, str, str, str]]:
    """(phenomenon, released names, label, class, source) rows of the table, for the README and the card."""
    out = []
    for p, table in TABLE.items():
        if phenomenon not in (None, p) or (p == "od" and phenomenon is None):
            continue
        extra = [(f"{p} ({fmt})", e) for (q, fmt), entries in BY_FORMAT.items() if q == p for e in entries.values()]
        for shown, entry in [*[(p, e) for e in {id(e): e for e in table.values()}.values()], *extra]:
            cls = entry.error_class if isinstance(entry.error_class, str) else ", ".join(
                f"{t}: {c}" for t, c in entry.error_class.items())
            out.append(("cos/od" if shown == "cos" else shown, ", ".join(entry.names), " then ".join(entry.labels),
                        cls, entry.source))
    return out
