"""The CausH generator: Hebrew binyanim matrices from UD sentences (natural) or verb forms alone
(synthetic), lexical type III only (Samo & Merlo §4.3)."""

from __future__ import annotations

import functools
import logging
import math
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Hashable

from builders import morphology, sampling
from builders.base import ConfigSpec, ImpossibleSize, Matrix, Sentence
from builders.caush import corpus, lexicon, rules
from builders.errors import InputError
from builders.generator import Generator
from builders.template import Strict, Template

logger = logging.getLogger(__name__)

MAX_MISSES = 5_000   # consecutive draws without a new instance before giving up
TRIES_PER_SLOT = 40  # random picks for one sentence slot before the draw is abandoned
NEEDED = 3           # sentences of a binyan an instance may use (two in context + one candidate)
# A lemma split keeps at least this many main-verb lemmas of every binyan on each side: the NEEDED
# sentences of a binyan in one instance have different verbs (type III), plus one to choose from.
MIN_SPLIT_LEMMAS = NEEDED + 1
CORE_ATTEMPTS = 200  # random tries for a lemma split whose sides can each fill an instance
# Above this many instances per distinct sentence (the 11 slots of an instance: 7 context + 4
# candidates) a dataset has fewer distinct sentences than instances, and `blm generate` warns: its
# size then says more than the corpus holds (README, "Reuse").
MAX_REUSE = 11


@functools.lru_cache(maxsize=4)
def _extraction(files: tuple, binyanim: tuple[str, ...], min_words: int, max_words: int) -> corpus.Extraction:
    """One extraction per set of files (path, mtime) and bounds: generate and its report share it."""
    return corpus.extract([Path(p) for p, _ in files], binyanim, min_words, max_words)


class NaturalSection(Strict):
    min_words: int
    max_words: int
    sources: tuple[str, ...]


class SyntheticSection(Strict):
    cells: tuple[str, ...]


class CausHTemplate(Template):
    binyanim: tuple[str, ...]
    columns: dict[str, tuple[str, ...]]
    pattern: str
    natural: NaturalSection
    synthetic: SyntheticSection


class CausHGenerator(Generator):
    phenomenon = "caush"
    rules = rules.RULES
    template_model = CausHTemplate
    lexical_types = ("III",)
    variants = ("natural", "synthetic")
    # Every answer set holds one candidate per binyan (the only manipulated attribute) and the gold
    # binyan is uniform over instances and columns, so the paper's answer set is already balanced
    # (k = 4 well-formed candidates, each binyan once). A `_balanced` twin would be identical.
    has_balanced = False

    def __init__(self, language: str):
        super().__init__(language)
        t = self.template
        self.binyanim = t.binyanim
        self.columns = {target: list(seq) for target, seq in t.columns.items()}
        rules.check_columns(self.columns, self.binyanim, self.context_size)
        self.cells = t.synthetic.cells
        self.lex = lexicon.load(language, self.binyanim, self.cells)
        self.roots = self.lex["roots"]
        self.pattern_template = t.pattern
        self._natural_key: tuple | None = None
        self.extraction: corpus.Extraction | None = None

    # --- options and split ---------------------------------------------------------------------
    def configure(self, spec: ConfigSpec, options) -> None:
        """natural: read the CoNLL-U files of ``options.sources`` (or fetch the UD treebanks)."""
        if spec.variant != "natural":
            return
        settings = self.template.natural
        sources = getattr(options, "sources", None)
        paths = [Path(p) for p in sources] if sources else corpus.fetch_default_sources(
            list(settings.sources), spec.name.removesuffix("_balanced"))
        key = tuple((str(p.resolve()), p.stat().st_mtime_ns if p.exists() else 0) for p in paths)
        if key != self._natural_key:
            self.extraction = _extraction(key, tuple(self.binyanim), settings.min_words, settings.max_words)
            self._natural_key = key
            self._lemma_binyan = self._majority_binyan(self.extraction.sentences)

    def generation_report(self, spec: ConfigSpec, options, splits: dict) -> list[str]:
        """natural: what the corpus gave (kept, skipped by reason) and how often the generated
        instances reuse each sentence; a warning when that exceeds MAX_REUSE."""
        if spec.variant != "natural":
            return []
        self.configure(spec, options)
        uses: Counter = Counter()
        instances = 0
        for out in splits.values():
            for record in out.records:
                instances += 1
                uses.update(set(record["context"]) | set(record["answers"]))
        lines = [f"corpus: {self.extraction.summary()}"]
        if not uses:
            return lines
        reuse = sum(uses.values()) / len(uses)
        lines.append(f"reuse: {instances} instances use {len(uses)} distinct sentences (of "
                     f"{len(self.extraction.sentences)} kept); each is in {reuse:.1f} instances on average, "
                     f"at most {max(uses.values())}")
        if reuse > MAX_REUSE:
            slots = self.context_size + len(self.binyanim)
            lines.append(f"warning: each sentence is reused in {reuse:.0f} instances, more than {MAX_REUSE}: fewer "
                         f"distinct sentences than instances, so the size overstates the data; give more CoNLL-U "
                         f"files (--sources) or ask --size {len(uses) * MAX_REUSE // slots} or less")
        return lines

    @staticmethod
    def _majority_binyan(sentences) -> dict[str, str]:
        counts: dict[str, Counter] = defaultdict(Counter)
        for s in sentences:
            counts[s.lemma][s.binyan] += 1
        return {lemma: c.most_common(1)[0][0] for lemma, c in counts.items()}

    def _pool(self) -> list[corpus.CorpusSentence]:
        if self.extraction is None:
            raise InputError("caush natural: no corpus loaded; generate through builders.generate (which calls "
                             "configure with the --sources files) or call configure(spec, options) first")
        return self.extraction.sentences

    def lemmas(self, spec: ConfigSpec) -> list[str]:
        """natural: the UD lemmas of the main verbs; synthetic: the roots."""
        if spec.variant == "natural":
            return sorted({s.lemma for s in self._pool()})
        return sorted(self.roots)

    def split_lemmas(self, spec: ConfigSpec, lemmas: Sequence[str], n_test: int, rng: random.Random) -> list[str]:
        """natural: test lemmas in every binyan in proportion, at least MIN_SPLIT_LEMMAS of a binyan
        on each side where it has that many (so HUFAL never empties a split; the share asked is
        exceeded only for that), and each side holding one instance's worth of content-disjoint
        sentences where the corpus allows (a small corpus from few documents shares topic words)."""
        if spec.variant != "natural":
            return super().split_lemmas(spec, lemmas, n_test, rng)
        groups: dict[str, list[str]] = defaultdict(list)
        for lemma in sorted(lemmas):
            groups[self._lemma_binyan[lemma]].append(lemma)
        shares = {b: n_test * len(groups[b]) / len(lemmas) for b in self.binyanim}
        low = {b: min(MIN_SPLIT_LEMMAS, len(groups[b]) // 2) for b in self.binyanim}
        high = {b: len(groups[b]) - low[b] for b in self.binyanim}
        quota = {b: min(max(round(shares[b]), low[b]), high[b]) for b in self.binyanim}
        while sum(quota.values()) < n_test and (room := [b for b in self.binyanim if quota[b] < high[b]]):
            quota[max(room, key=lambda b: shares[b] - quota[b])] += 1
        while sum(quota.values()) > n_test and (spare := [b for b in self.binyanim if quota[b] > low[b]]):
            quota[max(spare, key=lambda b: quota[b] - shares[b])] -= 1
        test_core, train_core = self._split_cores(set(lemmas), rng)
        chosen = []
        for b in self.binyanim:
            core = [lemma for lemma in groups[b] if lemma in test_core]
            rest = [lemma for lemma in groups[b] if lemma not in test_core and lemma not in train_core]
            rng.shuffle(rest)
            chosen += core + rest[: max(0, quota[b] - len(core))]
        return chosen

    def _split_cores(self, lemmas: set[str], rng: random.Random) -> tuple[set[str], set[str]]:
        """Lemmas of NEEDED content-disjoint sentences per binyan for test and, from the other
        lemmas, for train; empty sets when CORE_ATTEMPTS random tries find no such pair."""
        sentences = [s for s in self._pool() if s.lemma in lemmas and self._lemma_binyan[s.lemma] == s.binyan]
        for _ in range(CORE_ATTEMPTS):
            test = self._core(sentences, rng)
            if test is not None:
                train = self._core([s for s in sentences if s.lemma not in test], rng)
                if train is not None:
                    return test, train
        return set(), set()

    def _core(self, sentences: list, rng: random.Random) -> set[str] | None:
        """Greedily, rarest binyan first: NEEDED sentences per binyan with different verbs and no
        shared content word (lemma or validator stem); their verb lemmas, or None."""
        by_binyan = {b: [s for s in sentences if s.binyan == b] for b in self.binyanim}
        used, lemmas = set(), set()
        for b in sorted(self.binyanim, key=lambda b: len(by_binyan[b])):
            taken = 0
            for s in rng.sample(by_binyan[b], len(by_binyan[b])):
                words = s.content_lemmas | s.surface_stems
                if taken < NEEDED and s.lemma not in lemmas and not words & used:
                    used |= words
                    lemmas.add(s.lemma)
                    taken += 1
            if taken < NEEDED:
                return None
        return lemmas

    # --- planning ------------------------------------------------------------------------------
    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        """``n`` distinct instances, the four columns used equally often; every sentence from the
        given lemmas, no content word shared by two of the eleven sentences."""
        if spec.variant == "natural":
            return self._plan_natural(spec, lemmas, n, rng)
        draw, pools = self._draw_synthetic, sorted(lemmas)
        targets = list(self.columns)
        rng.shuffle(targets)
        plans, seen, misses = [], set(), 0
        while len(plans) < n:
            plan = draw(targets[len(plans) % len(targets)], pools, rng)
            if plan is not None and plan not in seen:
                seen.add(plan)
                plans.append(plan)
                misses = 0
                continue
            misses += 1
            if misses > MAX_MISSES:
                raise ImpossibleSize(f"{spec.name}: found only {len(plans)} distinct instances of the {n} asked "
                                     f"({MAX_MISSES} draws in a row gave nothing new); {self._pool_report(pools)}")
        return plans

    def plan_bound(self, spec: ConfigSpec, lemmas: Sequence[str]) -> int | None:
        """Per column, every slot's choices multiplied: (root, cell) pairs (synthetic), or the split's sentences
        of the slot's binyan (natural, whose columns take equal shares: the size is bounded by the poorest)."""
        if spec.variant != "natural":
            if len(lemmas) < self.context_size + 1:
                return None   # plan's own error names the roots an instance needs
            pairs = len(lemmas) * len(self.cells)
            return sum(pairs ** (len(column) + 1) for column in self.columns.values())
        pools = self._natural_pools(spec, lemmas)
        per_column = [math.prod(len(pools[b]) for b in (*column, *rules.answer_binyanim(target, self.binyanim)))
                      for target, column in self.columns.items()]
        return len(per_column) * min(per_column) + len(per_column) - 1

    def _plan_natural(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        """Distinct instances, the four columns equally often (±1) and in turn; sentences are reused
        across instances, never within one. A split the sentences cannot fill is ImpossibleSize
        with the number of instances they gave."""
        pools = self._natural_pools(spec, lemmas)
        targets = list(self.columns)
        rng.shuffle(targets)
        asked = {t: n // len(targets) + (i < n % len(targets)) for i, t in enumerate(targets)}
        columns, found, cap = {}, {}, n
        for target in targets:  # once a column runs dry, the others need only reach as far
            try:
                columns[target] = sampling.draw_distinct(
                    lambda: self._draw_natural(target, pools, rng), min(asked[target], cap), spec.name)
                found[target] = len(columns[target])
            except ImpossibleSize as err:
                found[target] = cap = min(cap, err.possible)
        if any(found[t] < asked[t] for t in targets):
            possible = len(targets) * min(found.values())
            raise ImpossibleSize(spec.name, n, possible, True, "give more CoNLL-U files; " + ", ".join(
                f"column {t}: {found[t]} of {asked[t]}" for t in targets) + f"; {self._pool_report(pools)}")
        return [columns[targets[i % len(targets)]][i // len(targets)] for i in range(n)]

    def _natural_pools(self, spec: ConfigSpec, lemmas: Sequence[str]) -> dict[str, list]:
        """The split's sentences per binyan as (sentence, content-lemma mask, stem mask); each
        binyan needs NEEDED main-verb lemmas (type III keeps the verbs of an instance apart)."""
        allowed = set(lemmas)
        lemma_bits, stem_bits = sampling.StemMasks(), sampling.StemMasks()
        pools = {b: [(s, lemma_bits.mask(s.content_lemmas), stem_bits.mask(s.surface_stems))
                     for s in self._pool() if s.binyan == b and s.lemma in allowed] for b in self.binyanim}
        short = [b for b, pool in pools.items() if len({s.lemma for s, _, _ in pool}) < NEEDED]
        if short:
            every = self.lemmas(spec)
            corpus_verbs = ", ".join(f"{b} {sum(self._lemma_binyan[x] == b for x in every)}" for b in short)
            raise ImpossibleSize(
                f"{spec.name}: too few verbs in {', '.join(short)} in a split of {len(allowed)} of the {len(every)} "
                f"verb lemmas ({self._pool_report(pools)}); an instance uses {NEEDED} sentences of each binyan with "
                f"different verbs, so a lemma split needs {NEEDED} verbs of each binyan on each side (the corpus has "
                f"{corpus_verbs}). Give more CoNLL-U files or use --split random. Corpus: {self.extraction.summary()}")
        return pools

    def _pool_report(self, pools) -> str:
        if isinstance(pools, dict):
            return "sentences (verb lemmas) per binyan: " + ", ".join(
                f"{b} {len(p)} ({len({s.lemma for s, _, _ in p})})" for b, p in pools.items())
        return f"{len(pools)} roots"

    def _draw_natural(self, target: str, pools: dict[str, list], rng: random.Random) -> Hashable | None:
        """One instance of column ``target``, or None when the draw fails.

        The four candidates come first, drawn the same way whatever the column, and are kept only
        when a context can be built around them for every column: an answer set then says nothing
        of which candidate is gold (no answer-only baseline above chance). No content lemma is
        shared by two of the eleven sentences, nor a validator stem by two context sentences."""
        answers = self._fill(self.binyanim, False, pools, rng, frozenset(), 0, 0)
        if answers is None:
            return None
        answer_of = dict(zip(self.binyanim, answers[0]))
        taken = frozenset(map(id, answers[0]))
        context = None
        for column, binyans in self.columns.items():
            filled = self._fill(binyans, True, pools, rng, taken, answers[1], 0)
            if filled is None:
                return None
            if column == target:
                context = filled[0]
        return target, tuple(context) + tuple(answer_of[b] for b in rules.answer_binyanim(target, self.binyanim))

    @staticmethod
    def _fill(binyans: Sequence[str], in_context: bool, pools: dict[str, list], rng: random.Random,
              taken: frozenset[int], lemmas_used: int, stems_used: int) -> tuple[list, int, int] | None:
        """A sentence per slot, the rarest binyan first (every sentence of a small pool is tried,
        so a rare binyan limits nothing but itself); (sentences, lemma mask, stem mask) or None."""
        slots = list(range(len(binyans)))
        rng.shuffle(slots)
        slots.sort(key=lambda i: len(pools[binyans[i]]))  # stable: ties stay in random order
        chosen: list = [None] * len(binyans)
        ids = set(taken)
        for slot in slots:
            pool = pools[binyans[slot]]
            for sentence, lemma_mask, stem_mask in _picks(pool, rng):
                if lemma_mask & lemmas_used or (in_context and stem_mask & stems_used) or id(sentence) in ids:
                    continue
                chosen[slot] = sentence
                ids.add(id(sentence))
                lemmas_used |= lemma_mask
                if in_context:
                    stems_used |= stem_mask
                break
            else:
                return None
        return chosen, lemmas_used, stems_used

    def _draw_synthetic(self, target: str, roots: list[str], rng: random.Random) -> Hashable | None:
        """Seven context roots and an answer root, all different, no content stem shared."""
        if len(roots) < self.context_size + 1:
            raise ImpossibleSize(f"caush synthetic: an instance needs {self.context_size + 1} different roots, "
                                 f"this split has {len(roots)}")
        answer_root, answer_cell = rng.choice(roots), rng.randrange(len(self.cells))
        used = set().union(*(self._stems(answer_root, b, answer_cell) for b in self.binyanim))
        taken, context = {answer_root}, []
        for binyan in self.columns[target]:
            for _ in range(TRIES_PER_SLOT):
                root, cell = rng.choice(roots), rng.randrange(len(self.cells))
                stems = self._stems(root, binyan, cell)
                if root not in taken and not stems & used:
                    taken.add(root)
                    used |= stems
                    context.append((root, cell))
                    break
            else:
                return None
        return target, tuple(context), (answer_root, answer_cell)

    @functools.lru_cache(maxsize=None)
    def _stems(self, root: str, binyan: str, cell: int) -> frozenset[str]:
        return morphology.content_stems(self.roots[root][binyan][cell], self.language) | {f"root:{root}"}

    # --- the framework's hooks -----------------------------------------------------------------
    def matrix(self, spec: ConfigSpec, plan: Hashable) -> Matrix:
        """Steps are binyanim; the answer's words map each binyan to its candidate sentence (natural)
        or give the root and cell every candidate shares (synthetic)."""
        target = plan[0]
        steps = (*self.columns[target], target)
        if spec.variant == "natural":
            sentences = plan[1]
            answers = dict(zip(rules.answer_binyanim(target, self.binyanim), sentences[self.context_size:]))
            words = (*sentences[: self.context_size], answers)
            lemma = answers[target].lemma
        else:
            _, ctx, answer = plan
            words, lemma = (*ctx, answer), answer[0]
        return Matrix(f"{spec.variant}-{target}", steps, words, lemma, facts=self.binyanim)

    def sentence(self, words, step: str, template: str) -> Sentence:
        pattern = rules.pattern(step, self.pattern_template)
        if isinstance(words, dict):           # natural: the candidate sentence of this binyan
            words = words[step]
        if isinstance(words, corpus.CorpusSentence):
            return Sentence(words.text, words.chunks, pattern)
        root, cell = words                    # synthetic: the root's form in this binyan and cell
        form = self.roots[root][step][cell]
        return Sentence(form, (form,), pattern)

    def sequences(self):
        for variant in self.variants:
            for target, column in self.columns.items():
                yield f"{variant}-{target}", (*column, target)

    def pattern(self, step: str, template: str) -> str:
        return rules.pattern(step, self.pattern_template)


def _picks(pool: list, rng: random.Random):
    """Random picks from ``pool``; then, for a pool small enough, every member once (from a
    random offset), so a slot of a rare binyan fails only when no sentence of it fits."""
    size = len(pool)
    for _ in range(min(TRIES_PER_SLOT, 2 * size)):
        yield pool[rng.randrange(size)]
    if size <= TRIES_PER_SLOT:
        start = rng.randrange(size)
        for k in range(size):
            yield pool[(start + k) % size]
