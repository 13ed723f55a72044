"""Spray/load BLMs: fixed-seed instances of both templates, answer sets, verb morphology, lexicon errors."""

import random
import re

import pytest

from blm_datasets.audit import audit_rows
from blm_datasets.validate import validate_rows
from builders import registry
from builders.base import ImpossibleSize
from builders.generate import Options, generate
from builders.lexicon import LexiconError
from lexicon_files import check_written, shipped_english
from builders.sprayload import lexicon, verbs

CONFIGS = [n for n in registry.config_names() if n.startswith("sprayload_")]

# 004 Fig. 3 (ALT-ATL) and Fig. 4 (ATL-ALT): the context patterns and the correct answer.
PASSIVES = ["NP-Theme VerbPass PP-Agent", "NP-Theme VerbPass PP-Loc PP-Agent", "NP-Theme VerbPass PP-Loc",
            "NP-Loc VerbPass PP-Agent", "NP-Loc VerbPass PP-Theme PP-Agent", "NP-Loc VerbPass PP-Theme"]
ALT, ATL = "NP-Agent Verb NP-Loc PP-Theme", "NP-Agent Verb NP-Theme PP-Loc"
FIGURES = {"altatl": ([ALT, *PASSIVES], ATL), "atlalt": ([ATL, *PASSIVES], ALT)}


def gen(name, size=40, **kw):
    return generate(registry.get_spec(name), Options(size=size, **kw), progress=False)


def without_frame(pattern):
    return re.sub(r"(Verb(?:Pass)?)-\w+", r"\1", pattern)


def test_configs_come_from_the_registry():
    assert len(CONFIGS) == 2 * 3 * 2
    assert "sprayload_en_altatl_typeI" in CONFIGS and "sprayload_en_atlalt_typeIII_balanced" in CONFIGS


def test_altatl_type_i_fixed_seed_instance():
    rec = gen("sprayload_en_altatl_typeI")["test"].records[0]
    assert rec["template"] == "ALT-ATL" and rec["lemma"] == "sew"
    assert rec["context"] == [
        "The seamstress sewed the jacket with the badges.",
        "The badges were sewn by the seamstress.",
        "The badges were sewn onto the jacket by the seamstress.",
        "The badges were sewn onto the jacket.",
        "The jacket was sewn by the seamstress.",
        "The jacket was sewn with the badges by the seamstress.",
        "The jacket was sewn with the badges.",
    ]
    patterns, answer = FIGURES["altatl"]
    assert [without_frame(p) for p in rec["context_patterns"]] == patterns
    assert without_frame(rec["answer_patterns"][rec["label"]]) == answer
    assert dict(zip(rec["answer_labels"], rec["answers"])) == {
        "Correct": "The seamstress sewed the badges onto the jacket.",
        "AGENTACT": "The seamstress was sewn the badges onto the jacket.",
        "ALT-NP": "The seamstress sewed the badges the jacket.",
        "ALT-PP": "The seamstress sewed with the badges onto the jacket.",
        "NOEMB": "The seamstress sewed the badges for the jacket.",
        "LEXPREP": "The seamstress sewed the badges under the jacket.",
        "SSM-1": "The badges sewed the seamstress onto the jacket.",
        "SSM-2": "The jacket sewed the seamstress with the badges.",
        "AASSM": "The badges sewed the jacket with the seamstress.",
    }


def test_atlalt_type_i_fixed_seed_instance():
    rec = gen("sprayload_en_atlalt_typeI")["test"].records[0]
    assert rec["template"] == "ATL-ALT"
    assert rec["context"] == [
        "The tailor will sew the badges onto the coat.",
        "The badges will be sewn by the tailor.",
        "The badges will be sewn onto the coat by the tailor.",
        "The badges will be sewn onto the coat.",
        "The coat will be sewn by the tailor.",
        "The coat will be sewn with the badges by the tailor.",
        "The coat will be sewn with the badges.",
    ]
    patterns, answer = FIGURES["atlalt"]
    assert [without_frame(p) for p in rec["context_patterns"]] == patterns
    assert rec["answers"][rec["label"]] == "The tailor will sew the coat with the badges."
    assert without_frame(rec["answer_patterns"][rec["label"]]) == answer
    answers = dict(zip(rec["answer_labels"], rec["answers"]))
    assert answers["SSM-1"] == "The coat will sew the tailor with the badges."     # Fig. 4: NP-Loc Verb NP-Agent PP-Theme
    assert answers["SSM-2"] == "The badges will sew the tailor onto the coat."     # NP-Theme Verb NP-Agent PP-Loc
    assert answers["AASSM"] == "The coat will sew the badges onto the tailor."     # NP-Loc Verb NP-Theme PP-Agent
    assert answers["AGENTACT"] == "The tailor will be sewn the coat with the badges."


def test_paper_answer_set_labels_and_classes():
    rec = gen("sprayload_en_atlalt_typeII")["train"].records[0]
    assert dict(zip(rec["answer_labels"], rec["answer_error_classes"])) == {
        "Correct": "CORRECT", "AGENTACT": "GRAMMAR", "ALT-NP": "GRAMMAR", "ALT-PP": "GRAMMAR",
        "NOEMB": "SEQUENCE", "LEXPREP": "SEQUENCE", "SSM-1": "GRAMMAR", "SSM-2": "GRAMMAR", "AASSM": "GRAMMAR"}


def test_lexprep_is_the_verbs_wrong_preposition_and_noemb_an_embedded_pp():
    spec = registry.get_spec("sprayload_en_altatl_typeI")
    g = registry.generator("sprayload", "en")
    entries = {e.lemma: e for e in lexicon.load("en")}
    for plan in g.plan(spec, g.lemmas(spec), 30, random.Random(0)):
        inst = g.realise(spec, plan)
        entry = entries[inst.lemma]
        by_label = {c.label: c.sentence for c in inst.candidates}
        gold, lexprep = by_label["Correct"].chunks, by_label["LEXPREP"].chunks
        assert lexprep[:3] == gold[:3] and lexprep[3].split()[0] == entry.wrong_prep
        assert gold[3].split()[0] != entry.wrong_prep
        noemb = by_label["NOEMB"].chunks
        assert len(noemb) == 3 and noemb[2] == f"{gold[2]} for {gold[3].split(' ', 1)[1]}"


@pytest.mark.parametrize("name", CONFIGS)
def test_every_config_is_valid(name):
    spec = registry.get_spec(name)
    out = generate(spec, Options(size=120), progress=False)
    for split in out.values():
        assert not split.rejected
        report = validate_rows(split.records, spec)
        assert report["rows"] == len(split.records) > 0
        assert not any(report["failures"].values()), report


@pytest.mark.parametrize("name", ["sprayload_en_altatl_typeI_balanced", "sprayload_en_atlalt_typeIII_balanced"])
def test_balanced_configs_leave_no_answer_only_shortcut(name):
    out = gen(name, 800)
    res = audit_rows(out["train"].records, out["test"].records, "en")
    assert res["chance_wellformed"] == pytest.approx(1 / 3)
    for baseline, r in res["baselines"].items():
        assert not r["above_chance"], (baseline, r)


def test_balanced_twin_shares_contexts_and_crosses_frames_with_grammar_rules():
    paper, balanced = gen("sprayload_en_atlalt_typeII"), gen("sprayload_en_atlalt_typeII_balanced")
    assert [r["context"] for r in paper["test"].records] == [r["context"] for r in balanced["test"].records]
    for rec in balanced["test"].records:
        classes = rec["answer_error_classes"]
        assert classes.count("CORRECT") == 1 and classes.count("SEQUENCE") == 2 and classes.count("GRAMMAR") == 6
        frames = {p.split()[1] for p, c in zip(rec["answer_patterns"], classes) if c != "GRAMMAR"}
        assert len(frames) == 3   # the gold's frame and two others
        assert not {"NOEMB", "LEXPREP"} & set(rec["answer_labels"])


def test_lemma_split_keeps_test_verbs_out_of_train():
    out = gen("sprayload_en_altatl_typeI", 400)
    train, test = ({r["lemma"] for r in out[s].records} for s in ("train", "test"))
    assert len(test) == 8 and not train & test


def test_same_seed_same_rows():
    assert gen("sprayload_en_altatl_typeII", 60)["train"].records == gen("sprayload_en_altatl_typeII", 60)["train"].records


def test_impossible_sizes_are_clear_errors():
    with pytest.raises(ImpossibleSize, match="combinatorics allow only"):
        gen("sprayload_en_altatl_typeI", 100_000)
    with pytest.raises(ImpossibleSize, match="type III needs 8 verbs"):
        gen("sprayload_en_atlalt_typeIII", 100, test_size=0.1)


# --- morphology ----------------------------------------------------------------------------------

def test_verb_forms_follow_english_inflection():
    assert [verbs.regular_past(v) for v in ("spray", "rub", "drizzle", "spritz", "plaster", "shower", "wrap")] == [
        "sprayed", "rubbed", "drizzled", "spritzed", "plastered", "showered", "wrapped"]
    assert verbs.expected_forms("sow") == ("sowed", "sown") and verbs.expected_forms("strew") == ("strewed", "strewn")
    assert verbs.form_error(verbs.Verb("sow", "sowed", "sowed")) is not None
    assert verbs.form_error(verbs.Verb("hang", "hanged", "hanged")) is not None
    for entry in lexicon.load("en"):
        assert verbs.form_error(entry.forms) is None


def test_frames_agree_with_the_subject():
    sew = verbs.Verb("sew", "sewed", "sewn")
    assert [verbs.passive(sew, f, True) for f in verbs.FRAMES] == [
        "were sewn", "have been sewn", "can be sewn", "will be sewn"]
    assert [verbs.active(sew, f, False) for f in verbs.FRAMES] == ["sewed", "has sewn", "can sew", "will sew"]


def test_irregular_participles_reach_the_sentences():
    out = gen("sprayload_en_atlalt_typeII", 600)
    texts = " ".join(s for split in out.values() for r in split.records for s in r["context"])
    for form in ("sewn", "sown", "strewn", "hung", "strung", "stuck"):
        assert f" {form} " in texts or f" {form}." in texts, form
    assert not re.search(r"\b(hanged|sticked|stringed|spreaded|been strewed|been sowed|been sewed)\b", texts)


# --- lexicon errors -------------------------------------------------------------------------------

@pytest.fixture()
def english():
    return shipped_english(lexicon)


def _check(tmp_path, data_or_text):
    return check_written(lexicon, tmp_path, data_or_text)


def test_shipped_lexicon_has_the_papers_30_verbs_with_five_of_each_role():
    entries = lexicon.load("en")
    assert len(entries) == 30
    assert all(len(e.agents) == len(e.themes) == len(e.locations) == 5 for e in entries)


def test_regularised_participle_is_rejected_with_file_and_line(tmp_path, english):
    sow = next(v for v in english["verbs"] if v["verb"]["lemma"] == "sow")
    sow["verb"]["participle"] = "sowed"
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: verb 'sow': .*should be 'sowed'/'sown'"):
        _check(tmp_path, english)


def test_missing_field_and_too_few_noun_phrases(tmp_path, english):
    del english["verbs"][2]["themes"]
    with pytest.raises(LexiconError, match="missing field 'themes'"):
        _check(tmp_path, english)
    english = shipped_english(lexicon)
    english["verbs"][0]["agents"] = english["verbs"][0]["agents"][:3]
    with pytest.raises(LexiconError, match="'agents' needs at least 5"):
        _check(tmp_path, english)


def test_prepositions_are_checked(tmp_path, english):
    text = (lexicon.HERE / "lexicons" / "en.yaml").read_text().replace('loc_prep: "on"', "loc_prep: on", 1)
    with pytest.raises(LexiconError, match="quote it"):
        _check(tmp_path, text)
    english["verbs"][0]["wrong_prep"] = english["verbs"][0]["loc_prep"]
    with pytest.raises(LexiconError, match="wrong_prep .* must differ"):
        _check(tmp_path, english)


def test_roles_sharing_a_word_are_rejected(tmp_path, english):
    sow = next(v for v in english["verbs"] if v["verb"]["lemma"] == "sow")
    sow["agents"][2] = "the gardener"
    with pytest.raises(LexiconError, match="'the garden' \\(locations\\) shares the word stem 'gard'"):
        _check(tmp_path, english)
