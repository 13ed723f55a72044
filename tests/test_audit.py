"""Answer-only baselines: high on the paper configs, at chance on the balanced ones."""

import pytest

from blm_datasets.audit import audit_rows, medoid_pick
from builders import registry
from builders.generate import Options, generate


def _audit(name, size=800):
    out = generate(registry.get_spec(name), Options(size=size), progress=False)
    return audit_rows(out["train"].records, out["test"].records, registry.get_spec(name).language)


def test_medoid_picks_the_central_candidate():
    assert medoid_pick(["a b c d", "a b c x", "a b y d", "q r s t"]) == 0


def test_paper_config_gold_is_the_medoid():
    res = _audit("agr_en_typeI")
    assert res["baselines"]["medoid"]["accuracy"] > 0.95
    assert res["baselines"]["medoid"]["above_chance"]


@pytest.mark.parametrize("name", ["agr_en_typeI_balanced", "agr_fr_typeII_balanced", "agr_ro_typeIII_balanced",
                                  "agr_it_typeI_balanced", "agr_es_typeII_balanced", "agr_es_typeIII_balanced"])
def test_balanced_configs_leave_no_answer_only_shortcut(name):
    res = _audit(name)
    for baseline, r in res["baselines"].items():
        assert not r["above_chance"], (baseline, r)


@pytest.mark.parametrize("language", ["fr", "es"])
def test_lexical_types_differ_in_overlap(language):
    jac = {t: _audit(f"agr_{language}_type{t}", 400)["context_content_jaccard"] for t in ("I", "II", "III")}
    assert jac["I"] > jac["II"] > jac["III"]
    assert jac["III"] < 0.05 and jac["I"] > 0.5


def test_word_cached_char_ngrams_are_the_plain_vectorizers():
    from sklearn.feature_extraction.text import TfidfVectorizer

    from blm_datasets.audit import char_vectorizer

    texts = ["Le chat  dort.", "L'élève\tdes voisins\n arrive", "a b", "I", "", "Die Katze schläft, die Katze",
             "הילד  אכל", "le chat dort."]
    kwargs = dict(analyzer="char_wb", ngram_range=(2, 4), min_df=1, sublinear_tf=True)
    cached, plain = char_vectorizer()(**kwargs), TfidfVectorizer(**kwargs)
    assert [cached.build_analyzer()(t) for t in texts] == [plain.build_analyzer()(t) for t in texts]
    assert (cached.fit_transform(texts) != plain.fit_transform(texts)).nnz == 0
    assert cached.get_feature_names_out().tolist() == plain.get_feature_names_out().tolist()


@pytest.mark.parametrize("analyzer", ["word", "char_wb"])
def test_counting_each_distinct_candidate_once_gives_the_plain_matrices(analyzer):
    """Repeated documents: document frequencies, min_df, max_features and the idf count every copy."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from blm_datasets.audit import char_vectorizer, tfidf_vectorizer

    train = ["the cat sleeps.", "the dogs sleep.", "the cat sleeps.", "a cat sleeps.", "the cat sleeps.",
             "dogs sleep.", "the dogs sleep."]
    test = ["the cat sleeps.", "a dog sleeps.", "the cat sleeps.", "birds sing."]
    kwargs = dict(analyzer=analyzer, ngram_range=(1, 2) if analyzer == "word" else (2, 4), min_df=2,
                  sublinear_tf=True, max_features=12)
    fast = (tfidf_vectorizer() if analyzer == "word" else char_vectorizer())(**kwargs)
    plain = TfidfVectorizer(**kwargs)
    assert abs(fast.fit_transform(train) - plain.fit_transform(train)).max() < 1e-12
    assert fast.get_feature_names_out().tolist() == plain.get_feature_names_out().tolist()
    assert abs(fast.transform(test) - plain.transform(test)).max() < 1e-12
    assert fast.transform(test).shape == (4, 9 if analyzer == "word" else 12)  # min_df and max_features bind


@pytest.mark.parametrize("analyzer", ["word", "char_wb"])
def test_empty_documents_count_as_scikit_learns(analyzer):
    from sklearn.feature_extraction.text import TfidfVectorizer

    from blm_datasets.audit import char_vectorizer, tfidf_vectorizer

    fast = (tfidf_vectorizer() if analyzer == "word" else char_vectorizer())(analyzer=analyzer)
    plain = TfidfVectorizer(analyzer=analyzer)
    fast.fit(["the cat sleeps", "a dog"])
    plain.fit(["the cat sleeps", "a dog"])
    assert fast.transform(["", "  "]).shape == plain.transform(["", "  "]).shape
    assert fast.transform(["", "  "]).nnz == 0
    with pytest.raises(ValueError, match="empty vocabulary"):
        (tfidf_vectorizer() if analyzer == "word" else char_vectorizer())(analyzer=analyzer).fit(["", " "])
