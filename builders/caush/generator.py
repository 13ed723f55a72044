"""The CausH generator: Hebrew binyanim matrices from UD sentences (natural) or verb forms alone
(synthetic), lexical type III only (Samo & Merlo §4.3)."""

from __future__ import annotations

import functools
import logging
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Hashable

from builders import morphology
from builders.base import Candidate, ConfigSpec, Generator, ImpossibleSize, Instance, Sentence
from builders.caush import corpus, lexicon, rules
from builders.lexicon import load_yaml

logger = logging.getLogger(__name__)

MAX_MISSES = 5_000   # consecutive draws without a new instance before giving up
TRIES_PER_SLOT = 40  # random picks for one sentence slot before the draw is abandoned
NEEDED = 3           # sentences of a binyan an instance may use (two in context + one candidate)


class CausHGenerator(Generator):
    phenomenon = "caush"
    description = "Hebrew binyanim PAAL/NIFAL/HIFIL/HUFAL from UD sentences or verb forms (BLM-CausH)."
    context_size = 7
    lexical_types = ("III",)
    variants = ("natural", "synthetic")
    # Every answer set holds one candidate per binyan (the only manipulated attribute) and the gold
    # binyan is uniform over instances, so the paper's answer set is already balanced; all wrong
    # answers are GRAMMAR, so k = 1 well-formed candidate. A `_balanced` twin would be identical.
    has_balanced = False

    def __init__(self, language: str):
        super().__init__(language)
        self.template = load_yaml(self.directory() / "template.yaml")
        self.binyanim = tuple(self.template["binyanim"])
        self.columns = {t: list(seq) for t, seq in self.template["columns"].items()}
        rules.check_columns(self.columns, self.binyanim, self.context_size)
        self.cells = tuple(self.template["synthetic"]["cells"])
        self.lex = lexicon.load(language, self.binyanim, self.cells)
        self.roots = self.lex["roots"]
        self.pattern_template = self.template["pattern"]
        self.wrong_class = self.template["wrong_class"]
        self.variant_: str | None = None
        self._natural_key: tuple | None = None
        self.extraction: corpus.Extraction | None = None

    # --- options and split ---------------------------------------------------------------------
    def configure(self, spec: ConfigSpec, options) -> None:
        """natural: read the CoNLL-U files of ``options.sources`` (or fetch the UD treebanks)."""
        self.variant_ = spec.variant
        self.test_lemma_fraction = self.template["test_lemma_fraction"][spec.variant]
        if spec.variant != "natural":
            return
        settings = self.template["natural"]
        sources = getattr(options, "sources", None)
        paths = [Path(p) for p in sources] if sources else corpus.fetch_default_sources(
            settings["sources"], spec.name.removesuffix("_balanced"))
        key = tuple((str(p.resolve()), p.stat().st_mtime_ns if p.exists() else 0) for p in paths)
        if key != self._natural_key:
            self.extraction = corpus.extract(paths, self.binyanim, settings["min_words"], settings["max_words"])
            self._natural_key = key
            self._lemma_binyan = self._majority_binyan(self.extraction.sentences)

    @staticmethod
    def _majority_binyan(sentences) -> dict[str, str]:
        counts: dict[str, Counter] = defaultdict(Counter)
        for s in sentences:
            counts[s.lemma][s.binyan] += 1
        return {lemma: c.most_common(1)[0][0] for lemma, c in counts.items()}

    def default_size(self, spec: ConfigSpec) -> int:
        return self.template["sizes"][spec.lexical_type]

    def _pool(self) -> list[corpus.CorpusSentence]:
        if self.extraction is None:
            raise ValueError("caush natural: no corpus loaded; generate through builders.generate (which calls "
                             "configure with the --sources files) or call configure(spec, options) first")
        return self.extraction.sentences

    def lemmas(self, spec: ConfigSpec) -> list[str]:
        """natural: the UD lemmas of the main verbs; synthetic: the roots."""
        if spec.variant == "natural":
            return sorted({s.lemma for s in self._pool()})
        return sorted(self.roots)

    def split_lemmas(self, lemmas: Sequence[str], n_test: int, rng: random.Random) -> list[str]:
        """natural: test lemmas drawn in every binyan in proportion, so each binyan has test sentences."""
        if self.variant_ != "natural":
            return super().split_lemmas(lemmas, n_test, rng)
        groups: dict[str, list[str]] = defaultdict(list)
        for lemma in sorted(lemmas):
            groups[self._lemma_binyan[lemma]].append(lemma)
        shares = {b: n_test * len(groups[b]) / len(lemmas) for b in self.binyanim}
        quota = {b: int(share) for b, share in shares.items()}
        for b in sorted(self.binyanim, key=lambda b: quota[b] - shares[b])[: n_test - sum(quota.values())]:
            quota[b] += 1
        chosen = []
        for b in self.binyanim:
            group = groups[b]
            rng.shuffle(group)
            chosen += group[: quota[b]]
        return chosen

    # --- planning ------------------------------------------------------------------------------
    def plan(self, spec: ConfigSpec, lemmas: Sequence[str], n: int, rng: random.Random) -> list[Hashable]:
        """``n`` distinct instances, the four columns used equally often; every sentence from the
        given lemmas, no content word shared by two of the eleven sentences."""
        if spec.variant == "natural":
            draw, pools = self._draw_natural, self._natural_pools(spec, lemmas)
        else:
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

    def _natural_pools(self, spec: ConfigSpec, lemmas: Sequence[str]) -> dict[str, list]:
        allowed = set(lemmas)
        pools = {b: [s for s in self._pool() if s.binyan == b and s.lemma in allowed] for b in self.binyanim}
        short = {b: len(p) for b, p in pools.items() if len(p) < NEEDED}
        if short:
            raise ImpossibleSize(
                f"{spec.name}: too few sentences for {', '.join(short)} among {len(allowed)} lemmas "
                f"({self._pool_report(pools)}); every instance uses {NEEDED} sentences of each binyan. Give more "
                f"CoNLL-U sources or a larger --test-size. Corpus: {self.extraction.summary()}")
        return pools

    def _pool_report(self, pools) -> str:
        if isinstance(pools, dict):
            return "sentences per binyan: " + ", ".join(f"{b} {len(p)}" for b, p in pools.items())
        return f"{len(pools)} roots"

    def _draw_natural(self, target: str, pools: dict[str, list], rng: random.Random) -> Hashable | None:
        slots = self.columns[target] + rules.answer_binyanim(target, self.binyanim)
        used, chosen = set(), []
        for binyan in slots:
            pool = pools[binyan]
            for _ in range(TRIES_PER_SLOT):
                sentence = pool[rng.randrange(len(pool))]
                if sentence not in chosen and not sentence.keys & used:
                    chosen.append(sentence)
                    used |= sentence.keys
                    break
            else:
                return None
        return target, tuple(chosen)

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

    # --- realisation ---------------------------------------------------------------------------
    def realise(self, spec: ConfigSpec, plan: Hashable) -> Instance:
        target, binyans = plan[0], rules.answer_binyanim(plan[0], self.binyanim)
        labels = rules.answer_labels(target, self.binyanim, self.wrong_class)
        if spec.variant == "natural":
            _, sentences = plan
            context = [self._natural(s) for s in sentences[: self.context_size]]
            answers = [self._natural(s) for s in sentences[self.context_size:]]
            lemma = sentences[self.context_size].lemma
        else:
            _, ctx, (root, cell) = plan
            context = [self._synthetic(r, b, c) for (r, c), b in zip(ctx, self.columns[target])]
            answers = [self._synthetic(root, b, cell) for b in binyans]
            lemma = root
        candidates = [Candidate(sentence, label, cls) for sentence, (label, cls) in zip(answers, labels)]
        return Instance(context, candidates, lemma=lemma, template=f"{spec.variant}-{target}")

    def _natural(self, s: corpus.CorpusSentence) -> Sentence:
        return Sentence(s.text, s.chunks, rules.pattern(s.binyan, self.pattern_template))

    def _synthetic(self, root: str, binyan: str, cell: int) -> Sentence:
        form = self.roots[root][binyan][cell]
        return Sentence(form, (form,), rules.pattern(binyan, self.pattern_template))

    def next_patterns(self, spec: ConfigSpec, template: str, context_patterns: Sequence[str]) -> set[str]:
        return rules.next_patterns(self.columns, context_patterns, self.pattern_template)
