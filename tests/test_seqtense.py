"""SeqTense and Mixture: the appendix 11.1 template, exact sentences, morphology, validity, audit."""

import copy
import re

import pytest
import yaml

from blm_datasets.audit import audit_rows
from builders import registry
from builders.generate import Options, generate
from builders.lexicon import LexiconError, load_yaml
from builders.seqtense import lexicon as st_lexicon
from builders.seqtense import rules

CONFIGS = [n for n in registry.config_names() if n.split("_")[0] in ("seqtense", "mixture")]


def gen(name, size=60, **kw):
    return generate(registry.get_spec(name), Options(size=size, **kw), progress=False)


def test_configs_come_from_the_registry():
    assert sorted(CONFIGS) == ["mixture_it_typeI", "mixture_it_typeI_balanced",
                               "seqtense_it_typeI", "seqtense_it_typeI_balanced"]


def test_default_size_is_a_few_hundred():
    spec = registry.get_spec("seqtense_it_typeI")
    assert registry.generator("seqtense", "it").default_size(spec) == 300


def _paper_variant(generator):
    """Appendix 11.1: unreal then future, Sg first, M first, simple first, attractor in half 2."""
    return next(i for i, v in enumerate(generator.sequence_variants)
                if v.periods == ("unreal", "future") and v.number_start == "sg" and v.gender_start == "m"
                and v.aspect_start == "simple" and v.attractor_half == 1)


def test_mixture_reproduces_the_appendix_template():
    g = registry.generator("mixture", "it")
    spec = registry.get_spec("mixture_it_typeI")
    inst = g.realise(spec, ("ragazzo", 0, _paper_variant(g), 0, 0, 0))
    assert [s.pattern for s in inst.context] == [
        "SgM-CPas | SgM-CnPr", "PlM-CPas | PlM-CnPr", "SgF-CTrPas | SgF-CnPas", "PlF-CTrPas | PlF-CnPas",
        "SgM-IFut | attrPlF | SgM-IFut", "PlM-IFutAnt | attrSgM | PlM-IFut", "SgF-IFut | attrPlM | SgF-IFut"]
    answers = {c.label: (c.sentence.pattern, c.error_class) for c in inst.candidates}
    assert answers == {
        "Correct": ("PlF-IFutAnt | attrSgF | PlF-IFut", "CORRECT"),                 # A
        "WN+WT+WA": ("SgF-IFut | SgF-IFut", "SEQUENCE"),                             # B
        "WN+WG+WP+WA": ("SgM-CTrPas | SgM-CnPas", "SEQUENCE"),                       # C
        "WG+WA": ("PlM-IFutAnt | PlM-IFut", "SEQUENCE"),                             # D
        "WN+WP+AGR+SOT": ("SgF-CTrPas | attrPlF | SgF-CTrPas*VPl", "GRAMMAR"),       # E
        "WA": ("PlF-IFutAnt | PlF-IFut", "SEQUENCE"),                                # F
    }
    assert inst.context[0].text == "Se il ragazzo fosse bravo, allora sarebbe premiato."
    assert inst.context[3].text == "Se le ragazze fossero state brave, allora sarebbero state premiate."
    assert inst.candidates[0].sentence.text == ("Se le ragazze saranno state brave, nonostante la critica, "
                                                "allora saranno premiate.")


def test_seqtense_fixed_seed_instance_exact_sentences():
    rec = gen("seqtense_it_typeI")["test"].records[0]   # the frame changed (attento/preparato before): frames fit subjects
    assert rec["template"] == "real-unreal" and rec["lemma"] == "attore"
    assert rec["context"] == [
        "Se gli attori sono stati organizzati, allora sono soddisfatti.",
        "Se l'attore è stato organizzato, allora è soddisfatto.",
        "Se le attrici sono organizzate, allora sono soddisfatte.",
        "Se l'attrice è organizzata, allora è soddisfatta.",
        "Se gli attori fossero stati organizzati, allora sarebbero stati soddisfatti.",
        "Se l'attore fosse organizzato, allora sarebbe soddisfatto.",
        "Se le attrici fossero state organizzate, allora sarebbero state soddisfatte.",
    ]
    # number every sentence, gender every two, aspect a a b b | a b a b, period per half
    assert rec["context_patterns"] == [
        "PlM-IPasPr | PlM-IPr", "SgM-IPasPr | SgM-IPr", "PlF-IPr | PlF-IPr", "SgF-IPr | SgF-IPr",
        "PlM-CTrPas | PlM-CnPas", "SgM-CPas | SgM-CnPr", "PlF-CTrPas | PlF-CnPas"]
    labels = dict(zip(rec["answer_labels"], rec["answers"]))
    assert rec["answers"][rec["label"]] == labels["Correct"]
    assert rec["answer_patterns"][rec["label"]] == "SgF-CPas | SgF-CnPr"
    assert labels == {
        "Correct": "Se l'attrice fosse organizzata, allora sarebbe soddisfatta.",
        "WN": "Se le attrici fossero organizzate, allora sarebbero soddisfatte.",
        "WT": "Se l'attrice fosse stata organizzata, allora sarebbe stata soddisfatta.",
        "WP": "Se l'attrice sarà organizzata, allora sarà soddisfatta.",   # the unused period
        "SOT": "Se l'attrice fosse organizzata, allora fosse soddisfatta.",
        "PCOND": "Se l'attrice sarebbe organizzata, allora sarebbe soddisfatta.",
        "AGR": "Se l'attrice fosse organizzata, allora sarebbero soddisfatta.",
    }
    classes = dict(zip(rec["answer_labels"], rec["answer_error_classes"]))
    assert {k for k, v in classes.items() if v == "GRAMMAR"} == {"SOT", "PCOND", "AGR"}


def test_an_agreement_error_that_reads_as_first_person_is_not_generated():
    """*sono* is the plural copula and the first person singular: "Se la vicina è sicura, allora
    sono tranquilla" is a well-formed "then I am calm", so no AGR candidate where it would say it."""
    for name in ("seqtense_it_typeI", "mixture_it_typeI_balanced"):
        rows = [r for split in gen(name, size=300).values() for r in split.records]
        agr = [a for r in rows for a, label in zip(r["answers"], r["answer_labels"]) if "AGR" in label]
        assert agr and not [a for a in agr if " allora sono " in a]
        real = [r for r in rows if r["answer_patterns"][r["label"]].endswith("-IPr")]
        assert real and all("AGR" not in "".join(r["answer_labels"]) for r in real)


def test_mixture_fixed_seed_instance_exact_sentences():
    rec = gen("mixture_it_typeI")["test"].records[0]   # changed on purpose (issue 25): frames choose attractors
    assert rec["context"][4:] == [
        "Se il ragazzo fosse stato bravo, malgrado le fatiche, allora sarebbe stato premiato.",
        "Se i ragazzi fossero bravi, malgrado il dubbio, allora sarebbero premiati.",
        "Se la ragazza fosse stata brava, malgrado i dubbi, allora sarebbe stata premiata.",
    ]
    assert rec["answers"][rec["label"]] == "Se le ragazze fossero brave, malgrado la fatica, allora sarebbero premiate."


def test_mixture_attractors_are_difficulties_the_frame_can_concede():
    """Issue 25: 'Se le studentesse saranno informate, malgrado il pericolo, allora saranno preoccupate.',
    'Se il cameriere sarà simpatico, nonostante le paure, allora sarà invitato.' were incoherent: a frame
    lists the attractor nouns it concedes, and informato leads to tranquillo."""
    frames = st_lexicon.load("it")["frames"]
    informed = next(f for f in frames if f["premise"] == "informato")
    assert informed["consequent"] == "tranquillo" and "pericolo" in informed["attractors"]
    conceded = {f["premise"]: set(f["attractors"]) for f in frames}
    assert "paura" not in conceded["simpatico"] and "pericolo" in conceded["coraggioso"]
    nouns = {form: n["sg"] for n in st_lexicon.load("it")["attractors"]["nouns"] for form in (n["sg"], n["pl"])}
    records = [r for split in gen("mixture_it_typeI", 300, seed=123).values() for r in split.records]
    forms = {form: premise for premise in conceded
             for form in st_lexicon.load("it")["adjectives"][premise].values()}
    for r in records:
        premise = forms[r["context"][0].split(",")[0].split()[-1]]   # Se il ragazzo è stato bravo, …
        used = {nouns[w] for s in r["context"] for w in re.findall(r"\w+", s) if w in nouns}
        assert used and used <= conceded[premise], (r["context"], used - conceded[premise])
    assert not [r for r in records if any("preoccupat" in s for s in r["context"])]


@pytest.mark.parametrize("name", ["seqtense_it_typeI_balanced", "mixture_it_typeI_balanced"])
def test_balanced_answer_only_baselines_are_at_chance(name):
    out = gen(name, size=800)
    rows = out["test"].records
    for row in rows:  # four well-formed candidates, each with a GRAMMAR twin (or, where the twin
        classes = row["answer_error_classes"]  # would be ambiguous, none of them has one)
        assert len(classes) - classes.count("GRAMMAR") == 4 and classes.count("GRAMMAR") in (0, 4)
    result = audit_rows(out["train"].records, rows, "it")
    assert result["chance_wellformed"] == 0.25
    for base in result["baselines"].values():
        assert not base["above_chance"], result


# --- morphology ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mixture():
    return registry.generator("mixture", "it")


def _sentence(g, step):
    from builders.seqtense.realise import Material

    return g.realiser(Material("studente", 0, 1, 0, 0), step).text


def test_sequence_of_tense_table(mixture):
    cases = {
        ("unreal", "simple"): "Se la studentessa fosse brava, allora sarebbe premiata.",
        ("unreal", "compound"): "Se la studentessa fosse stata brava, allora sarebbe stata premiata.",
        ("future", "simple"): "Se la studentessa sarà brava, allora sarà premiata.",
        ("future", "compound"): "Se la studentessa sarà stata brava, allora sarà premiata.",
        ("real", "simple"): "Se la studentessa è brava, allora è premiata.",
        ("real", "compound"): "Se la studentessa è stata brava, allora è premiata.",
    }
    for (period, aspect), text in cases.items():
        assert _sentence(mixture, rules.Step("sg", "f", period, aspect)) == text


def test_grammar_corruptions(mixture):
    gold = rules.Step("pl", "m", "unreal", "compound")
    assert _sentence(mixture, gold._replace(subjunctive=True)) == (
        "Se gli studenti fossero stati bravi, allora fossero stati premiati.")
    assert _sentence(mixture, gold._replace(conditional=True)) == (
        "Se gli studenti sarebbero stati bravi, allora sarebbero stati premiati.")
    assert _sentence(mixture, gold._replace(disagree=True)) == (
        "Se gli studenti fossero stati bravi, allora sarebbe stati premiati.")


def test_attractor_never_agrees_in_number_with_the_subject(mixture):
    for variant in mixture.sequence_variants:
        for step in variant.steps():
            if step.attractor:
                assert step.attractor[0] != step.num
    step = rules.Step("sg", "m", "future", "simple", attractor=("pl", "f"))
    assert _sentence(mixture, step) == "Se lo studente sarà bravo, malgrado le critiche, allora sarà premiato."


def test_type_i_keeps_one_subject_and_one_adjective_pair():
    rec = gen("mixture_it_typeI")["train"].records[0]
    first, *rest = [chunks for chunks in rec["context_chunks"]]
    adjective = first[1].split()[-1][:-1]  # stem without the agreement vowel
    assert all(adjective in chunks[1] for chunks in rest)


# --- lexicon errors -----------------------------------------------------------------------------

@pytest.fixture()
def italian():
    return yaml.safe_load((st_lexicon.HERE / "lexicons" / "it.yaml").read_text())


def _check(tmp_path, data):
    path = tmp_path / "it.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    load_yaml.cache_clear()
    st_lexicon.check(load_yaml(path), path)


def test_shipped_lexicon_passes_the_schema():
    assert len(st_lexicon.load("it")["subjects"]) >= 30


def test_frame_with_unknown_adjective_names_file_line_and_entry(tmp_path, italian):
    italian["frames"][2]["consequent"] = "sconosciuto"
    with pytest.raises(LexiconError, match=r"it.yaml:\d+: frames\[2\]: consequent adjective 'sconosciuto'"):
        _check(tmp_path, italian)


def test_invisible_agreement_is_rejected(tmp_path, italian):
    bad = copy.deepcopy(italian)
    bad["copula"]["IFut"]["pl"] = bad["copula"]["IFut"]["sg"]
    with pytest.raises(LexiconError, match="agreement would be invisible"):
        _check(tmp_path, bad)
    bad = copy.deepcopy(italian)
    bad["attractors"]["nouns"][0]["pl"] = bad["attractors"]["nouns"][0]["sg"]
    with pytest.raises(LexiconError, match="attractor's number would be invisible"):
        _check(tmp_path, bad)


def test_missing_subject_form(tmp_path, italian):
    del italian["subjects"][4]["f"]
    with pytest.raises(LexiconError, match=r"it.yaml:\d+: subjects.4.f: missing key"):
        _check(tmp_path, italian)


def test_frames_go_only_with_subjects_they_fit():
    """Issue 25: 'Se il nonno fosse preparato, allora sarebbe promosso.' — promosso is said of a pupil or an
    employee, allenato of someone who trains; such a frame lists its subjects and no other subject gets it."""
    frames = st_lexicon.load("it")["frames"]
    fits = {f["premise"]: set(f["subjects"]) for f in frames if "subjects" in f}
    assert set(fits) == {"preparato", "allenato"} and "nonno" not in fits["preparato"] | fits["allenato"]
    for name in ("seqtense_it_typeI", "mixture_it_typeI"):
        records = [r for split in gen(name, 300, seed=123).values() for r in split.records]
        for premise, stem in (("preparato", "promoss"), ("allenato", "allenat")):
            used = {r["lemma"] for r in records if stem in r["context"][0]}
            assert used and used <= fits[premise], (premise, used - fits[premise])
    g = registry.generator("seqtense", "it")
    frame = next(i for i, f in enumerate(frames) if f["premise"] == "preparato")
    inst = g.realise(registry.get_spec("seqtense_it_typeI"), ("studente", frame, 0, 0, 0, 0))
    assert inst.context[0].text == "Se lo studente fosse preparato, allora sarebbe promosso."
