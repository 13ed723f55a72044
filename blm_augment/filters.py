"""The filters a proposal must pass, in order, each counted in the report.

novelty (not in the slot yet, not in a conflicting pool) -> morphology (the language's rules make
its entry: gender, plural, weak forms) -> spelling (every form in the Hunspell dictionary, or in the
reviewed allow-list) -> frequency (Zipf within the band of the slot's current words, the papers'
frequency matching) -> stems (no content stem shared where type III needs it) -> validator (records
realised with the word pass ``blm_datasets.validate``).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from blm_augment import inflect
from blm_augment.adapters import Adapter, Candidate
from blm_augment.errors import AugmentError
from builders import morphology

FILTERS = ("novelty", "morphology", "spelling", "frequency", "stems", "validator")


def zipf(word: str, language: str) -> float:
    """wordfreq's Zipf frequency (log10 per billion words; 0 = unknown to wordfreq)."""
    try:
        from wordfreq import zipf_frequency
    except ImportError:  # pragma: no cover - a declared dependency
        raise AugmentError("the frequency filter needs wordfreq: pip install wordfreq==3.1.1") from None
    try:
        return zipf_frequency(word, language)
    except LookupError:
        raise AugmentError(f"wordfreq has no word list for language {language!r}; pass --zipf-margin -1 "
                           "to switch the frequency filter off") from None


@dataclass(frozen=True)
class Band:
    """The Zipf band new words must fall in: the seed words' range widened by ``margin``."""

    low: float
    high: float
    seeds: tuple[float, ...]

    @classmethod
    def of(cls, words: Sequence[str], language: str, margin: float) -> "Band":
        values = tuple(round(zipf(w, language), 2) for w in words)
        known = [v for v in values if v > 0] or [0.0]
        return cls(round(min(known) - margin, 2), round(max(known) + margin, 2), values)

    def holds(self, value: float) -> bool:
        return value > 0 and self.low <= value <= self.high

    def summary(self) -> dict:
        known = [v for v in self.seeds if v > 0]
        return {"band": [self.low, self.high], "seed_min": min(known, default=0.0), "seed_max": max(known, default=0.0),
                "seed_median": round(statistics.median(known), 2) if known else 0.0, "seeds": len(self.seeds)}


@dataclass
class Outcome:
    kept: list[Candidate] = field(default_factory=list)
    rejected: list[dict] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def reject(self, cand: Candidate, name: str, why: str) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1
        self.rejected.append({"word": cand.word, "filter": name, "why": why, "score": cand.score})


def run_filters(adapter: Adapter, cands: Sequence[Candidate], band: Band | None,
                spell=None) -> Outcome:
    """Pass ``cands`` through every filter; what is left is sorted by score (best first)."""
    from builders.spellcheck import allowlist, rejected

    spell = spell or (lambda words: rejected(words, adapter.language) - allowlist().get(adapter.language, set()))
    out = Outcome(counts={name: 0 for name in FILTERS})
    alive = []
    for cand in cands:
        why = None if inflect.looks_like_a_word(cand.word, adapter.language) else "not a word of this language's shape"
        if why:
            out.reject(cand, "spelling", why)
            continue
        tokens = cand.word.lower().split()
        stop = morphology.function_words(adapter.language)
        if tokens[0] in stop or tokens[-1] in stop:
            out.reject(cand, "morphology", "a function word, or a phrase that starts or ends with one")
            continue
        if adapter.language != "de" and cand.word[0].isupper():
            out.reject(cand, "morphology", "capitalised: a name, not a common noun")
            continue
        why = adapter.novelty(cand.word)
        if why:
            out.reject(cand, "novelty", why)
            continue
        cand.entry, note = adapter.make_entry(cand)
        if cand.entry is None:
            out.reject(cand, "morphology", note)
            continue
        if note:
            cand.notes.append(note)
        alive.append(cand)
    words = {w for c in alive for form in adapter.forms(c.entry) for w in _tokens(form)}
    bad = spell(words) if words else set()
    survivors = []
    for cand in alive:
        wrong = sorted({w for form in adapter.forms(cand.entry) for w in _tokens(form)} & bad)
        if wrong:
            out.reject(cand, "spelling", f"Hunspell rejects {', '.join(wrong)}")
            continue
        cand.zipf = round(zipf(adapter.frequency_form(cand.entry), adapter.language), 2)
        if band is not None and not band.holds(cand.zipf):
            out.reject(cand, "frequency", f"Zipf {cand.zipf} outside [{band.low}, {band.high}]")
            continue
        why = adapter.stem_clash(cand)
        if why:
            out.reject(cand, "stems", why)
            continue
        survivors.append(cand)
    failed = adapter.validate(survivors)
    for cand in survivors:
        if cand.word in failed:
            out.reject(cand, "validator", failed[cand.word])
        else:
            out.kept.append(cand)
    out.kept.sort(key=lambda c: (-c.score, c.word))
    return out


def _tokens(form: str) -> list[str]:
    from builders.spellcheck import word_forms

    return list(word_forms(form))
