"""CausH: Fig. 12 template, exact instances, binyan morphology, CoNLL-U extraction, validity."""

import copy
import itertools
from pathlib import Path

import pytest
import yaml

from blm_datasets.audit import audit_rows
from blm_datasets.validate import validate_rows
from builders import registry
from builders.base import ImpossibleSize
from builders.caush import corpus
from builders.caush import lexicon as caush_lexicon
from builders.generate import Options, generate
from builders.lexicon import LexiconError, load_yaml

SAMPLE = str(Path(corpus.__file__).parent / "data" / "sample.conllu")
BINYANIM = ("PAAL", "NIFAL", "HIFIL", "HUFAL")
CELLS = ("past.3ms", "past.3fs", "past.3pl", "pres.ms", "pres.fs", "pres.mpl", "pres.fpl")
NATURAL = dict(size=24, test_size=0.25, sources=(SAMPLE,))


def gen(name, **kw):
    kw = {"size": 60, **kw}
    return generate(registry.get_spec(name), Options(**kw), progress=False)


def test_configs_are_type_iii_natural_and_synthetic_without_balanced_twins():
    names = [n for n in registry.config_names() if n.startswith("caush_")]
    assert names == ["caush_he_natural_typeIII", "caush_he_synthetic_typeIII"]
    spec = registry.get_spec("caush_he_synthetic_typeIII")
    assert registry.generator("caush", "he").default_size(spec) == 8000


def test_template_columns_are_figure_12():
    g = registry.generator("caush", "he")
    assert g.columns == {
        "HUFAL": ["PAAL", "PAAL", "NIFAL", "NIFAL", "HIFIL", "HIFIL", "HUFAL"],
        "HIFIL": ["PAAL", "PAAL", "NIFAL", "NIFAL", "HUFAL", "HUFAL", "HIFIL"],
        "NIFAL": ["PAAL", "PAAL", "HIFIL", "HIFIL", "HUFAL", "HUFAL", "NIFAL"],
        "PAAL": ["NIFAL", "NIFAL", "HIFIL", "HIFIL", "HUFAL", "HUFAL", "PAAL"],
    }
    spec = registry.get_spec("caush_he_synthetic_typeIII")
    for target, column in g.columns.items():
        assert g.next_patterns(spec, f"synthetic-{target}", [f"V-{b}" for b in column]) == {f"V-{target}"}


def test_synthetic_fixed_seed_instance_exact_forms():
    rec = gen("caush_he_synthetic_typeIII")["test"].records[0]
    assert rec["template"] == "synthetic-HUFAL" and rec["lemma"] == "זרק"
    assert rec["context"] == ["שמע", "צבעו", "נשכר", "נזעק", "מחליקות", "מכרית", "הוזכרה"]
    assert rec["context_patterns"] == ["V-PAAL", "V-PAAL", "V-NIFAL", "V-NIFAL", "V-HIFIL", "V-HIFIL", "V-HUFAL"]
    # the answer set is one fresh root in the four binyanim, in one cell (past 3ms)
    assert dict(zip(rec["answer_labels"], rec["answers"])) == {
        "Correct": "הוזרק", "PAAL": "זרק", "NIFAL": "נזרק", "HIFIL": "הזריק"}
    assert rec["answers"][rec["label"]] == "הוזרק" and rec["answer_patterns"][rec["label"]] == "V-HUFAL"


def test_natural_fixed_seed_instance_exact_sentences():
    rec = gen("caush_he_natural_typeIII", **NATURAL)["test"].records[0]
    assert rec["template"] == "natural-HUFAL" and rec["lemma"] == "הוקלט"
    assert rec["context"] == [
        "הגנבים גנבו מכונית חדשה.", "הפועלים בנו גשר מעל הנהר.",   # PAAL
        "הארמון נבנה על גבעה.", "שלושה חיילים נפצעו קשה.",        # NIFAL
        "הדוור הביא חבילה.", "העד הזכיר פרט חשוב.",              # HIFIL
        "מצב חירום הוכרז.",                                       # HUFAL
    ]
    assert rec["context_chunks"][3] == ["שלושה חיילים", "נפצעו", "קשה."]
    assert dict(zip(rec["answer_labels"], rec["answers"])) == {
        "Correct": "האלבום הוקלט בלונדון.", "PAAL": "המשפחה עזבה את העיר.",
        "NIFAL": "התכשיטים היקרים נגנבו.", "HIFIL": "הנהג הכניס את המזוודות."}
    assert rec["answers"][rec["label"]] == "האלבום הוקלט בלונדון."


@pytest.mark.parametrize("name,kw", [("caush_he_synthetic_typeIII", {"size": 400}),
                                     ("caush_he_natural_typeIII", {"size": 80, "test_size": 0.25,
                                                                   "sources": (SAMPLE,)})])
def test_every_config_is_valid(name, kw):
    spec = registry.get_spec(name)
    out = gen(name, **kw)
    lemmas = [{r["lemma"] for r in o.records} for o in out.values()]
    assert not lemmas[0] & lemmas[1]
    for split in out.values():
        assert len(split.records) == split.planned  # every planned instance delivered, none dropped
        report = validate_rows(split.records, spec)
        assert report["rows"] == len(split.records) > 0
        assert not any(report["failures"].values()), report
        targets = [r["template"].split("-")[1] for r in split.records]
        counts = [targets.count(b) for b in BINYANIM]
        assert max(counts) - min(counts) <= 1  # the four columns equally often


def test_answer_sets_name_the_binyan_of_every_candidate_and_call_it_well_formed():
    """Each wrong candidate is a real Hebrew sentence in another binyan: SEQUENCE (the paper says
    GRAMMAR, but nothing in it is ungrammatical; builders/README.md class policy)."""
    for rec in gen("caush_he_natural_typeIII", **NATURAL)["train"].records:
        assert len(rec["answers"]) == 4
        assert sorted(p[2:] for p in rec["answer_patterns"]) == sorted(BINYANIM)
        for label, cls, pattern in zip(rec["answer_labels"], rec["answer_error_classes"], rec["answer_patterns"]):
            assert (label, cls) == (("Correct", "CORRECT") if pattern == rec["answer_patterns"][rec["label"]]
                                    else (pattern[2:], "SEQUENCE"))
        assert rec["answer_patterns"][rec["label"]] == rec["context_patterns"][6]


def test_no_content_lemma_shared_within_an_instance():
    g = registry.generator("caush", "he")
    out = gen("caush_he_natural_typeIII", **NATURAL)
    lemmas = {s.text: s.content_lemmas for s in g.extraction.sentences}
    for rec in out["train"].records:
        sentences = rec["context"] + rec["answers"]
        for a, b in itertools.combinations(sentences, 2):
            assert not lemmas[a] & lemmas[b], (a, b)


def test_same_seed_same_rows():
    assert gen("caush_he_synthetic_typeIII")["train"].records == gen("caush_he_synthetic_typeIII")["train"].records


def test_answer_only_baselines_are_at_chance():
    out = gen("caush_he_synthetic_typeIII", size=1600)
    result = audit_rows(out["train"].records, out["test"].records, "he")
    for base in result["baselines"].values():
        assert base["ci_low"] <= 0.25, result  # one candidate per binyan, gold binyan uniform


# --- binyan morphology --------------------------------------------------------------------------

def test_lexicon_forms_follow_the_binyan_templates():
    lex = caush_lexicon.load("he", BINYANIM, CELLS)
    assert len(lex["roots"]) >= 40
    kat = lex["roots"]["כתב"]
    assert [kat[b][0] for b in BINYANIM] == ["כתב", "נכתב", "הכתיב", "הוכתב"]   # Fig. 11
    assert [kat[b][4] for b in BINYANIM] == ["כותבת", "נכתבת", "מכתיבה", "מוכתבת"]
    for forms in lex["roots"].values():
        assert all(f.startswith("הו") for f in forms["HUFAL"][:3])
        assert all(f.startswith("ה") and not f.startswith("הו") for f in forms["HIFIL"][:3])
        assert all(f[-1] not in "כמנפצ" for b in BINYANIM for f in forms[b])   # final letters
    assert lex["roots"]["סמך"]["HIFIL"][:2] == ["הסמיך", "הסמיכה"]


def test_sample_sentences_are_tagged_with_their_binyan():
    ex = corpus.extract([Path(SAMPLE)], BINYANIM, 3, 16)
    by_text = {s.text: s for s in ex.sentences}
    assert by_text["התערוכה הוצגה בפריז."].binyan == "HUFAL"
    assert by_text["הספר נכתב בצרפתית."].lemma == "נכתב"
    assert {b: sum(s.binyan == b for s in ex.sentences) for b in BINYANIM} == dict.fromkeys(BINYANIM, 16)
    assert ex.skipped == {"root verb in PIEL": 1, "existential or modal root without an infinitive complement": 1,
                          "root is not a verb (ADJ)": 1}
    assert ex.read == 67


# --- CoNLL-U and lexicon errors ------------------------------------------------------------------

def _corrupt_sample(tmp_path, old, new):
    text = Path(SAMPLE).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "bad.conllu"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    line = text[: text.index(old)].count("\n") + 1
    return path, line


def test_malformed_conllu_names_file_and_line(tmp_path):
    path, line = _corrupt_sample(tmp_path, "4\tתפוח\tתפוח\tNOUN\tNOUN", "4\tתפוח\tתפוח\tNOUN")
    with pytest.raises(corpus.CorpusError, match=rf"bad.conllu:{line}: sentence paal-01: expected 10"):
        corpus.extract([path], BINYANIM, 3, 16)
    path, line = _corrupt_sample(tmp_path, "2\tנסע", "5\tנסע")
    with pytest.raises(corpus.CorpusError, match=rf"bad.conllu:{line}: sentence paal-11: word ID 5 out of sequence"):
        corpus.extract([path], BINYANIM, 3, 16)


def test_missing_sources_fail_clearly(tmp_path, monkeypatch):
    with pytest.raises(corpus.CorpusError, match="no such CoNLL-U file"):
        gen("caush_he_natural_typeIII", sources=(str(tmp_path / "nowhere.conllu"),))
    monkeypatch.setenv("BLM_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(corpus.SourceUnavailable, match="--sources"):
        gen("caush_he_natural_typeIII")


def test_too_few_sentences_of_a_binyan_is_reported_not_padded(tmp_path):
    text = Path(SAMPLE).read_text(encoding="utf-8")
    blocks = text.split("\n\n")
    kept = [b for b in blocks if "sent_id = hufal-" not in b or "hufal-01" in b or "hufal-02" in b]
    path = tmp_path / "few.conllu"
    path.write_text("\n\n".join(kept), encoding="utf-8")
    with pytest.raises(ImpossibleSize, match=r"too few verbs in HUFAL.*HUFAL 2 \(2\).*HUFAL 2"):
        gen("caush_he_natural_typeIII", size=20, split="random", sources=(str(path),))


def test_synthetic_split_needs_eight_roots():
    with pytest.raises(ImpossibleSize, match="needs 8 different roots, this split has 4"):
        gen("caush_he_synthetic_typeIII", test_size=0.1)


@pytest.fixture()
def hebrew():
    return yaml.safe_load((caush_lexicon.HERE / "lexicons" / "he.yaml").read_text(encoding="utf-8"))


def _check(tmp_path, data):
    path = tmp_path / "he.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    load_yaml.cache_clear()
    caush_lexicon.check(load_yaml(path), path, BINYANIM, CELLS)


def test_root_missing_a_binyan_names_file_line_and_root(tmp_path, hebrew):
    del hebrew["roots"]["שמע"]["HUFAL"]
    with pytest.raises(LexiconError, match=r"he.yaml:\d+: roots.שמע.HUFAL: missing key") as err:
        _check(tmp_path, hebrew)
    assert err.value.line > 1


def test_form_in_the_wrong_binyan_and_shared_forms_are_rejected(tmp_path, hebrew):
    bad = copy.deepcopy(hebrew)
    bad["roots"]["כתב"]["NIFAL"][0] = "הוכתב"
    with pytest.raises(LexiconError, match="should start with 'נ'"):
        _check(tmp_path, bad)
    bad = copy.deepcopy(hebrew)
    bad["roots"]["כתב"]["HUFAL"][3] = "מכתיב"
    with pytest.raises(LexiconError, match="HUFAL.*should start with 'מו'"):
        _check(tmp_path, bad)


def test_too_few_roots(tmp_path, hebrew):
    hebrew["roots"] = dict(list(hebrew["roots"].items())[:39])
    with pytest.raises(LexiconError, match="at least 40 roots"):
        _check(tmp_path, hebrew)
