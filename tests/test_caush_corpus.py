"""CausH natural from CoNLL-U: main-predicate rules, skip reasons, surface words, content-lemma
disjointness, malformed input, and drawing that a rare binyan does not cap."""

import itertools
import re
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from blm_cli.main import main
from blm_datasets.audit import audit_rows
from blm_datasets.validate import validate_rows
from builders import registry, sampling
from builders.base import ImpossibleSize
from builders.caush import corpus
from builders.generate import Options, generate

FIXTURE = Path(__file__).parent / "fixtures" / "caush" / "predicates.conllu"
SAMPLE = Path(corpus.__file__).parent / "data" / "sample.conllu"
BINYANIM = ("PAAL", "NIFAL", "HIFIL", "HUFAL")
NATURAL = "caush_he_natural_typeIII"


def _expectations(path: Path) -> dict[str, str]:
    """sent_id -> the fixture's own "# expect" line."""
    text = path.read_text(encoding="utf-8")
    return dict(re.findall(r"# sent_id = (\S+)\n# expect = (.+)\n", text))


def _sentences(path: Path) -> dict[str, object]:
    return {s.metadata["sent_id"]: s for _, s in corpus.read_conllu(path)}


def _extract(path: Path, max_words: int = 16):
    return corpus.extract([path], BINYANIM, 3, max_words)


# --- main predicate and skip reasons --------------------------------------------------------------

def test_each_fixture_sentence_is_kept_or_skipped_as_its_expect_line_says():
    expected = _expectations(FIXTURE)
    assert len(expected) == 27
    ex = _extract(FIXTURE)
    kept = {s.source.split("#")[1]: f"keep {s.binyan} {s.lemma}" for s in ex.sentences}
    assert kept == {sid: e for sid, e in expected.items() if e.startswith("keep ")}
    skipped = Counter(e.removeprefix("skip ") for e in expected.values() if e.startswith("skip "))
    assert ex.skipped == skipped and ex.read == 27
    assert len(skipped) == 12  # every skip reason is exercised (NOT_A_VERB twice: NOUN, ADV)


def _verb(sid: str):
    sentence = _sentences(FIXTURE)[sid]
    return corpus.labelling_verb({t["id"]: t for t in sentence if isinstance(t["id"], int)}, sentence)


def test_the_root_verb_labels_and_a_verb_of_another_clause_never_does():
    # נפצע (root, NIFAL) labels "השחקן נפצע ויצא מהמגרש", not its PAAL conjunct יצא
    assert _verb("coordinated-verbs")[0]["form"] == "נפצע"
    # a modal auxiliary is AUX over the infinitive root: "הטופס צריך להישלח" is NIFAL
    assert _verb("auxiliary-infinitive-root")[0]["form"] == "להישלח"
    # the one documented exception: יש/אפשר have no binyan, their infinitive is the only verb
    assert _verb("existential-root")[0]["form"] == "להזמין"
    assert _verb("impersonal-root")[0]["form"] == "לקנות"
    # a relative-clause verb in a verbless sentence, a conjunct after a copular clause, the
    # complement of a copular ADJ: all skipped, never labelling
    assert _verb("verbless-relative") == (None, corpus.NOT_A_VERB.format(upos="NOUN"))
    assert _verb("nominal-conjunct-then-verb") == (None, corpus.COPULAR)
    assert _verb("copular-root-xcomp") == (None, corpus.COPULAR)


def test_copular_adverb_modal_and_adjectival_roots_are_skipped_with_their_reason():
    assert _verb("copular-clause") == (None, corpus.COPULAR)
    assert _verb("copular-verb-root") == (None, corpus.COPULAR)        # VERB root with a copula
    assert _verb("adverb-root") == (None, "root is not a verb (ADV)")   # כנראה ADV over a PIEL clause
    assert _verb("adverb-tagged-verb") == (None, corpus.ADVERB)         # כנראה tagged VERB NIFAL
    assert _verb("modal-root") == (None, corpus.MODAL)                  # ניתן למצוא
    assert _verb("impersonal-clausal-subject") == (None, corpus.MODAL)  # נראה ש…
    assert _verb("passive-participle") == (None, corpus.PASSIVE_PARTICIPLE)
    assert _verb("bare-existential") == (None, corpus.EXISTENTIAL)


def test_a_root_verb_without_a_binyan_is_skipped_not_labelled_by_another_verb():
    assert _verb("no-binyan") == (None, corpus.NO_BINYAN)


def test_blm_generate_prints_skip_counts_and_reuse(tmp_path, capsys):
    path = tmp_path / "fixture_and_sample.conllu"
    path.write_text(FIXTURE.read_text(encoding="utf-8") + "\n" + SAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["generate", NATURAL, "--size", "8", "--split", "random", "--sources", str(path)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith(f"{NATURAL}: ")]
    corpus_line = next(line for line in lines if ": corpus: " in line)
    assert "read 94 sentences; kept 72 " in corpus_line
    for reason in ("copular clause 5", "root is not a verb (NOUN) 3", f"{corpus.MODAL} 2", f"{corpus.ADVERB} 1",
                   f"{corpus.PASSIVE_PARTICIPLE} 1", f"{corpus.NO_BINYAN} 1", "root verb in PIEL 2"):
        assert reason in corpus_line, reason
    reuse = next(line for line in lines if ": reuse: " in line)
    distinct, mean = re.search(r"8 instances use (\d+) distinct sentences \(of 72 kept\); each is in ([\d.]+)",
                               reuse).groups()
    assert abs(float(mean) - 8 * 11 / int(distinct)) < 0.05
    assert not any("warning" in line for line in lines)   # 88 slots over dozens of sentences


def test_a_size_that_reuses_sentences_beyond_the_threshold_warns(capsys):
    from builders.caush.generator import MAX_REUSE
    assert main(["generate", NATURAL, "--size", "400", "--split", "random", "--sources", str(SAMPLE)]) == 0
    out = capsys.readouterr().out
    mean = float(re.search(r"reuse: 400 instances use \d+ distinct sentences \(of 64 kept\); each is in ([\d.]+)",
                           out).group(1))
    assert mean > MAX_REUSE   # 4400 slots over at most 64 sentences
    warning = re.search(rf"{NATURAL}: warning: each sentence is reused in \d+ instances, more than {MAX_REUSE}.*"
                        r"--size (\d+) or less", out)
    assert warning and int(warning.group(1)) <= 64


# --- surface words --------------------------------------------------------------------------------

def test_words_are_counted_on_the_surface_not_as_syntactic_words():
    sentences = _sentences(FIXTURE)
    sixteen = sentences["sixteen-words"]
    assert sum(isinstance(t["id"], int) and t["upos"] != "PUNCT" for t in sixteen) == 34
    assert corpus.chunks_of(sixteen)[1] == 16
    assert corpus.chunks_of(sentences["seventeen-words"])[1] == 17
    hyphen = sentences["hyphenated-prefix"]    # ב-2004: three tokens, one word of the text
    chunks, n_words = corpus.chunks_of(hyphen)
    assert n_words == 5 and "ב-2004" in chunks
    # the bounds act on that count
    at = {s.source.split("#")[1] for s in _extract(FIXTURE, max_words=15).sentences}
    assert "sixteen-words" not in at and "hyphenated-prefix" in at


# --- type III on content lemmas -------------------------------------------------------------------

def test_content_lemmas_leave_out_function_words_modals_and_digits():
    # (computed on any sentence, kept or not: these two are skipped as modal and nominal)
    by_id = {sid: SimpleNamespace(content_lemmas=corpus.content_lemmas(t for t in s if isinstance(t["id"], int)))
             for sid, s in _sentences(FIXTURE).items()}
    assert by_id["modal-root"].content_lemmas == {"VERB:מצא", "NOUN:פסיפס", "ADJ:רב", "PROPN:גליל"}
    assert by_id["verbless-relative"].content_lemmas == {"NOUN:קיר", "NOUN:פסיפס", "VERB:הוצב", "NOUN:שנה"}
    # a lemma shared through different surface forms: פסיפסים / פסיפס, and UD sees through בשנת
    assert by_id["modal-root"].content_lemmas & by_id["verbless-relative"].content_lemmas == {"NOUN:פסיפס"}


def _few_hufal(tmp_path: Path, keep: int) -> Path:
    """The sample with only its first ``keep`` HUFAL sentences."""
    blocks = SAMPLE.read_text(encoding="utf-8").split("\n\n")
    hufal = [b for b in blocks if "sent_id = hufal-" in b]
    kept = [b for b in blocks if b not in hufal[keep:]]
    path = tmp_path / "few_hufal.conllu"
    path.write_text("\n\n".join(kept), encoding="utf-8")
    return path


def _generate(path: Path, size: int, **kw):
    return generate(registry.get_spec(NATURAL), Options(size=size, sources=(str(path),), **kw), progress=False)


def test_no_two_of_the_eleven_sentences_share_a_content_lemma(tmp_path):
    path = _few_hufal(tmp_path, 6)
    lemmas = {s.text: s.content_lemmas for s in _extract(path).sentences}
    # pairs the validator's surface stems would let through: the rule must keep them apart itself
    hidden = {frozenset((a, b)) for a, b in itertools.combinations(lemmas, 2)
              if lemmas[a] & lemmas[b]}
    assert frozenset(("מיכל למדה רפואה שש שנים.", "הפרויקט הושלם השנה.")) in hidden
    for split in _generate(path, 400).values():
        for rec in split.records:
            for a, b in itertools.combinations(rec["context"] + rec["answers"], 2):
                assert frozenset((a, b)) not in hidden, (a, b)


# --- drawing: a rare binyan does not cap the size ----------------------------------------------------

def test_six_hufal_sentences_do_not_cap_the_size(tmp_path):
    path = _few_hufal(tmp_path, 6)       # 16 sentences of each other binyan, 6 of HUFAL
    spec = registry.get_spec(NATURAL)
    out = _generate(path, 1000)
    assert {s: len(o.records) for s, o in out.items()}["train"] + len(out["test"].records) == 1000
    for split in out.values():
        assert not any(validate_rows(split.records, spec)["failures"].values())
        hufal = Counter(a for r in split.records for a, p in zip(r["answers"] + r["context"],
                                                                 r["answer_patterns"] + r["context_patterns"])
                        if p == "V-HUFAL")
        # every split keeps at least three HUFAL verbs, each sentence reused across many instances
        assert len(hufal) >= 3 and min(hufal.values()) > 20
        targets = Counter(r["template"] for r in split.records)
        assert max(targets.values()) - min(targets.values()) <= 1
    test_lemmas = {r["lemma"] for r in out["test"].records}
    assert not test_lemmas & {r["lemma"] for r in out["train"].records}


def test_answer_only_baselines_stay_at_chance_with_a_rare_binyan(tmp_path):
    # the answer set is drawn the same way for every column, so it cannot tell which one is gold
    out = _generate(_few_hufal(tmp_path, 6), 1600, split="random")
    result = audit_rows(out["train"].records, out["test"].records, "he")
    for base in result["baselines"].values():
        assert base["ci_low"] <= 0.25, result


def test_a_split_with_fewer_than_three_verbs_of_a_binyan_is_impossible(tmp_path):
    path = _few_hufal(tmp_path, 4)       # 4 HUFAL verbs: no lemma split leaves 3 on each side
    with pytest.raises(ImpossibleSize, match=r"too few verbs in HUFAL .*HUFAL 2 \(2\)"):
        _generate(path, 200)
    assert len(_generate(path, 200, split="random")["test"].records) == 20


def test_a_size_beyond_the_sentences_names_the_total_asked_and_possible(tmp_path, monkeypatch):
    blocks = SAMPLE.read_text(encoding="utf-8").split("\n\n")
    kept = [b for b in blocks if not re.search(r"sent_id = \w+-(0[4-9]|1\d)\n", b)]
    path = tmp_path / "three_each.conllu"   # three sentences per binyan: 6**4 instances per column
    path.write_text("\n\n".join(kept), encoding="utf-8")
    monkeypatch.setattr(sampling, "MAX_MISSES", 200)  # keep the exhausting draw short
    with pytest.raises(ImpossibleSize) as err:
        _generate(path, 10000, split="random")
    message = str(err.value)
    assert "--size 10000" in message and "give more CoNLL-U files" in message
    found = int(re.search(r"found only (\d+) distinct instances of the 10000 asked", message).group(1))
    assert 4 * 1000 < found <= 4 * 6 ** 4 and found % 4 == 0  # the four columns stay balanced


# --- malformed input --------------------------------------------------------------------------------

def test_an_empty_file_names_the_file(tmp_path):
    for name, text in (("empty.conllu", ""), ("comments.conllu", "# only a comment\n\n")):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        with pytest.raises(corpus.CorpusError, match=rf"{re.escape(str(path))}:1: file: no sentences"):
            _extract(path)


def test_non_utf8_bytes_name_the_file_and_line(tmp_path):
    path = tmp_path / "latin1.conllu"
    text = SAMPLE.read_text(encoding="utf-8").replace("# text = הילד אכל תפוח ירוק.", "# text = caf\xe9")
    path.write_bytes(text.encode("utf-8").replace("caf\xe9".encode("utf-8"), b"caf\xe9"))
    line = text[: text.index("caf\xe9")].count("\n") + 1
    with pytest.raises(corpus.CorpusError, match=rf"latin1.conllu:{line}: file: not UTF-8 \(byte 0xe9"):
        _extract(path)


def test_a_folder_given_as_a_source_is_named(tmp_path):
    with pytest.raises(corpus.CorpusError, match=rf"{re.escape(str(tmp_path))}: file: is a folder"):
        _extract(tmp_path)


def test_a_line_with_the_wrong_number_of_columns_names_file_and_line(tmp_path):
    text = FIXTURE.read_text(encoding="utf-8")
    bad = "3\tשבר\tשבר\tVERB"
    path = tmp_path / "columns.conllu"
    path.write_text(text.replace("3\tשבר\tשבר\tVERB\tVERB", bad + " VERB", 1), encoding="utf-8")
    line = text[: text.index("3\tשבר\tשבר\tVERB\tVERB")].count("\n") + 1
    with pytest.raises(corpus.CorpusError, match=rf"columns.conllu:{line}: sentence verb-root: expected 10 "
                                                 r"tab-separated columns, found 9"):
        _extract(path)


def test_the_cli_reports_a_malformed_source_in_one_line_with_status_2(tmp_path, capsys):
    path = tmp_path / "bad.conllu"
    path.write_bytes(b"# sent_id = x\n1\t\xff\n")
    assert main(["generate", NATURAL, "--size", "20", "--sources", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "bad.conllu:2: " in err and "UTF-8" in err and "Traceback" not in err
