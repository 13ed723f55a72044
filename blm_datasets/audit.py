"""Answer-only baselines: how far can one get without reading the context?

Three baselines never look at the context: the medoid of the answer set, a classifier over
features of each candidate alone, and the most frequent gold position. Each is reported with
chance levels and a 95% Wilson interval; on ``_balanced`` configs none may beat chance among the
candidates that are well-formed on their own.
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from blm_datasets.validate import pairwise_jaccard
from builders.errors import InputError

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TRAIN_INSTANCES = 4000


def _tokens(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def medoid_pick(answers: Sequence[str]) -> int:
    """The candidate with the highest mean token overlap (Jaccard) with the other candidates."""
    toks = [_tokens(a) for a in answers]
    best, best_score = 0, -1.0
    for i, a in enumerate(toks):
        score = sum(len(a & b) / len(a | b) for j, b in enumerate(toks) if j != i)
        if score > best_score:
            best, best_score = i, score
    return best


@functools.cache
def tfidf_vectorizer() -> type:
    """TfidfVectorizer that counts each distinct document once and copies its row: a candidate recurs across the
    answer sets of a config, and the counting loop is Python (same matrix as the plain vectorizer:
    tests/test_audit.py)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    class DistinctDocsTfidf(TfidfVectorizer):
        def _count_vocab(self, raw_documents, fixed_vocab):
            index: dict[str, int] = {}
            rows = [index.setdefault(doc, len(index)) for doc in raw_documents]
            vocabulary, counts = self._count_documents(list(index), fixed_vocab)
            if not vocabulary:  # scikit-learn's own error for it
                return super()._count_vocab(list(index), fixed_vocab)
            return vocabulary, counts[rows]

        def _count_documents(self, documents: list[str], fixed_vocab: bool):
            """sklearn's counts, numbered in its order of first appearance, by comprehensions and one sparse
            conversion instead of a Python loop with a counter per document."""
            vocabulary = self.vocabulary_ if fixed_vocab else {}
            analyze = self.build_analyzer()
            rows: list[int] = []
            columns: list[int] = []
            for row, document in enumerate(documents):
                ids = feature_ids(vocabulary, analyze(document), fixed_vocab)
                columns += ids
                rows += [row] * len(ids)
            return vocabulary, sparse_counts(rows, columns, (len(documents), len(vocabulary)), self.dtype)

    return DistinctDocsTfidf


def feature_ids(vocabulary: dict[str, int], features: Sequence[str], fixed_vocab: bool) -> list[int]:
    """The features' column numbers: the known ones of a fixed vocabulary, else each new feature numbered in order
    of first appearance (scikit-learn's numbering, which its sorting and pruning then rewrite)."""
    if fixed_vocab:
        return [vocabulary[f] for f in features if f in vocabulary]
    return [vocabulary.setdefault(f, len(vocabulary)) for f in features]


def sparse_counts(rows: list[int], columns: list[int], shape: tuple[int, int], dtype) -> Any:
    """CSR matrix with the number of times each (row, column) pair occurs, indices sorted."""
    import scipy.sparse as sp

    counts = sp.csr_array((np.ones(len(rows), dtype=dtype), (np.asarray(rows, dtype=np.int64),
                          np.asarray(columns, dtype=np.int64))), shape=shape)
    counts.sum_duplicates()
    counts.sort_indices()
    return counts


@functools.cache
def char_vectorizer() -> type:
    """``tfidf_vectorizer`` whose ``char_wb`` n-grams are made word by word and cached: a document's are its words'
    joined (each word is padded alone), and the candidates of a config share most words (same features as the
    plain vectorizer: tests/test_audit.py)."""

    class WordCachedTfidf(tfidf_vectorizer()):
        def _count_documents(self, documents: list[str], fixed_vocab: bool):
            """Counts as (documents x words) @ (words x n-grams): each distinct word's n-grams are numbered once,
            not once per occurrence (sklearn's loop runs per n-gram). New features are numbered in sklearn's order
            of first appearance, so the vocabulary and the matrix are sklearn's."""
            if self.analyzer != "char_wb":
                return super()._count_documents(documents, fixed_vocab)
            vocabulary = self.vocabulary_ if fixed_vocab else {}
            preprocess, decode = self.build_preprocessor(), self.decode
            words: dict[str, int] = {}
            grams_rows: list[int] = []
            grams_columns: list[int] = []
            document_rows: list[int] = []
            document_words: list[int] = []
            for row, document in enumerate(documents):
                for word in preprocess(decode(document)).split():
                    number = words.get(word)
                    if number is None:
                        number = words[word] = len(words)
                        ids = feature_ids(vocabulary, self._char_wb_ngrams(word), fixed_vocab)
                        grams_columns += ids
                        grams_rows += [number] * len(ids)
                    document_rows.append(row)
                    document_words.append(number)
            counts = (sparse_counts(document_rows, document_words, (len(documents), len(words)), self.dtype)
                      @ sparse_counts(grams_rows, grams_columns, (len(words), len(vocabulary)), self.dtype))
            counts.sort_indices()
            return vocabulary, counts

        def _char_wb_ngrams(self, text_document: str) -> list[str]:
            cache = self.__dict__.setdefault("_word_ngrams_cache", {})
            grams: list[str] = []
            for word in text_document.split():
                try:
                    grams += cache[word]
                except KeyError:
                    cache[word] = super()._char_wb_ngrams(word)
                    grams += cache[word]
            return grams

    return WordCachedTfidf


def classifier_picks(train: Sequence[dict], test: Sequence[dict], seed: int = 0) -> list[int]:
    """Logistic regression on word and character n-grams of each candidate alone."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import FeatureUnion

    train = list(train)
    if len(train) > MAX_TRAIN_INSTANCES:
        train = random.Random(seed).sample(train, MAX_TRAIN_INSTANCES)
    texts = [a for row in train for a in row["answers"]]
    y = [int(i == row["label"]) for row in train for i in range(len(row["answers"]))]
    if len(set(y)) < 2:
        return [0] * len(test)
    features = FeatureUnion([
        ("word", tfidf_vectorizer()(analyzer="word", ngram_range=(1, 2), min_df=2, sublinear_tf=True)),
        ("char", char_vectorizer()(analyzer="char_wb", ngram_range=(2, 4), min_df=2, sublinear_tf=True,
                                   max_features=50_000)),
    ])
    model = LogisticRegression(max_iter=500, C=1.0)
    model.fit(features.fit_transform(texts), y)
    test_texts = [a for row in test for a in row["answers"]]
    scores = model.decision_function(features.transform(test_texts))
    picks, start = [], 0
    for row in test:
        k = len(row["answers"])
        picks.append(int(np.argmax(scores[start:start + k])))
        start += k
    return picks


def position_picks(train: Sequence[dict], test: Sequence[dict]) -> list[int]:
    """Always the gold position seen most often in train."""
    counts = Counter(row["label"] for row in train)
    top = counts.most_common(1)[0][0] if counts else 0
    return [min(top, len(row["answers"]) - 1) for row in test]


def wilson(correct: int, n: int) -> tuple[float, float]:
    from scipy.stats import binomtest

    if n == 0:
        return (0.0, 1.0)
    ci = binomtest(correct, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def audit_rows(train: Sequence[dict], test: Sequence[dict], language: str, overlap: bool = True) -> dict[str, Any]:
    """Accuracy, chance levels and intervals of every baseline, plus (``overlap``) the contexts' lexical overlap."""
    test = list(test)
    n = len(test)
    if n == 0:
        raise InputError("the test split is empty: nothing to audit")
    chance = float(np.mean([1 / len(r["answers"]) for r in test]))
    chance_wf = float(np.mean([1 / max(1, sum(c != "GRAMMAR" for c in r["answer_error_classes"])) for r in test]))
    picks = {
        "medoid": [medoid_pick(r["answers"]) for r in test],
        "classifier": classifier_picks(train, test),
        "gold_position": position_picks(train, test),
    }
    baselines = {}
    for name, chosen in picks.items():
        correct = sum(p == r["label"] for p, r in zip(chosen, test))
        low, high = wilson(correct, n)
        baselines[name] = {
            "accuracy": correct / n, "ci_low": low, "ci_high": high,
            "above_chance": low > chance_wf,
            "picked_labels": dict(Counter(r["answer_labels"][p] for p, r in zip(chosen, test))),
        }
    out = {"n_test": n, "chance": chance, "chance_wellformed": chance_wf, "baselines": baselines}
    if overlap:
        out["context_content_jaccard"] = float(np.mean([np.mean(pairwise_jaccard(r["context"], language))
                                                        for r in test[:2000]]))
    return out
