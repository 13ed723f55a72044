"""Roll BLMs: the fixed-seed two-paradigm instance, answer sets, type II verbs, lexicon errors."""

import itertools

import pytest

from blm_datasets.audit import audit_rows
from blm_datasets.validate import jaccard, validate_rows
from builders import morphology, registry
from builders.base import ImpossibleSize
from builders.generate import Options, generate
from builders.lexicon import LexiconError
from lexicon_files import check_written, shipped_english
from builders.roll import lexicon

CONFIGS = [n for n in registry.config_names() if n.startswith("roll_")]

# 002 Fig. 10 in this package's notation (1/2 = the paradigm whose words fill the slot).
FIG10_CONTEXT = ["NP-Agent1 rollV NP-Theme", "NP-Agent1 did PP-Theme", "NP-Theme was PP-Loc1",
                 "NP-Theme rollV PP-Loc1", "NP-Agent2 rollV NP-Theme", "NP-Agent2 did PP-Theme",
                 "NP-Theme was PP-Loc2"]
FIG10_ANSWERS = {"Correct": "NP-Theme rollV PP-Loc2", "SC-RS": "NP-Theme rollV NP-Agent2",
                 "SC-RR": "NP-Agent2 was PP-Loc2", "RR": "NP-Agent2 rollV PP-Loc2",
                 "PSC-RS": "NP-Theme rollV NP-Agent1", "PSC-RR": "NP-Agent1 was PP-Loc1",
                 "PC-RR": "NP-Agent1 rollV PP-Loc1"}


def gen(name, size=40, **kw):
    return generate(registry.get_spec(name), Options(size=size, **kw), progress=False)


def test_configs_come_from_the_registry():
    assert sorted(CONFIGS) == ["roll_en_typeI", "roll_en_typeII", "roll_en_typeII_balanced", "roll_en_typeI_balanced"]


def test_type_i_fixed_seed_instance():
    rec = gen("roll_en_typeI")["test"].records[0]
    assert rec["lemma"] == "revolve"
    assert rec["context"] == [
        "The engineer revolved the propeller.",
        "The engineer did something to the propeller.",
        "The propeller was on the axle.",
        "The propeller revolved on the axle.",
        "The mechanic revolved the propeller.",
        "The mechanic did something to the propeller.",
        "The propeller was on the mount.",
    ]
    assert rec["context_patterns"] == FIG10_CONTEXT
    assert rec["answers"][rec["label"]] == "The propeller revolved on the mount."
    assert dict(zip(rec["answer_labels"], rec["answer_patterns"])) == FIG10_ANSWERS
    assert dict(zip(rec["answer_labels"], rec["answers"])) == {
        "Correct": "The propeller revolved on the mount.",
        "SC-RS": "The propeller revolved the mechanic.",
        "SC-RR": "The mechanic was on the mount.",
        "RR": "The mechanic revolved on the mount.",
        "PSC-RS": "The propeller revolved the engineer.",
        "PSC-RR": "The engineer was on the axle.",
        "PC-RR": "The engineer revolved on the axle.",
    }


def test_paper_answer_set_classes():
    rec = gen("roll_en_typeII")["train"].records[0]
    assert dict(zip(rec["answer_labels"], rec["answer_error_classes"])) == {
        "Correct": "CORRECT", "SC-RS": "GRAMMAR", "SC-RR": "SEQUENCE", "RR": "SEQUENCE",
        "PSC-RS": "GRAMMAR", "PSC-RR": "SEQUENCE", "PC-RR": "SEQUENCE"}


@pytest.mark.parametrize("name", CONFIGS)
def test_every_config_is_valid(name):
    spec = registry.get_spec(name)
    out = generate(spec, Options(size=300), progress=False)
    for split in out.values():
        assert not split.rejected
        report = validate_rows(split.records, spec)
        assert report["rows"] == len(split.records) > 0
        assert not any(report["failures"].values()), report


def test_type_ii_uses_one_verb_per_paradigm_and_keeps_overlap():
    lex = lexicon.load("en")
    for split in gen("roll_en_typeII", 300).values():
        for rec in split.records:
            first = rec["context"][0].split()[2]     # "The boy rolled the ball." -> rolled
            second = rec["context"][4].split()[2]
            assert first != second and lex.verbs[rec["lemma"]].past == second
            stems = [morphology.content_stems(s, "en") for s in rec["context"]]
            scores = [jaccard(a, b) for a, b in itertools.combinations(stems, 2)]
            assert sum(scores) / len(scores) >= 0.2


def test_balanced_answer_set_and_audit():
    out = gen("roll_en_typeII_balanced", 1600)
    rec = out["test"].records[0]
    assert sorted(rec["answer_labels"]) == ["Correct", "LOC", "LOC", "PSC-RS", "SC-RS"]
    res = audit_rows(out["train"].records, out["test"].records, "en")
    assert res["chance_wellformed"] == pytest.approx(1 / 3)
    for baseline, r in res["baselines"].items():
        assert not r["above_chance"], (baseline, r)


def test_test_verbs_come_from_one_scene_and_stay_out_of_train():
    out = gen("roll_en_typeII", 600)
    train, test = ({r["lemma"] for r in out[s].records} for s in ("train", "test"))
    assert len(test) == 2 and not train & test
    assert any(test <= set(scene.verbs) for scene in lexicon.load("en").scenes)


def test_impossible_size_is_a_clear_error():
    with pytest.raises(ImpossibleSize, match="combinatorics allow only"):
        gen("roll_en_typeI", 10_000_000)


def test_irregular_pasts_and_plural_themes():
    texts = " ".join(s for split in gen("roll_en_typeI", 1500).values() for r in split.records for s in r["context"])
    for form in ("spun", "swung", "wound", "slid"):
        assert f" {form} " in texts, form
    assert " were in " in texts and not any(w in texts for w in ("spinned", "swinged", "winded", "slided"))


# --- lexicon errors -------------------------------------------------------------------------------

@pytest.fixture()
def english():
    return shipped_english(lexicon)


def _check(tmp_path, data_or_text):
    return check_written(lexicon, tmp_path, data_or_text)


def test_shipped_lexicon_has_the_18_roll_verbs():
    lex = lexicon.load("en")
    assert len(lex.verbs) == 18 and {"roll", "wind", "revolve", "glide"} <= set(lex.verbs)


def test_invented_past_is_rejected(tmp_path, english):
    swing = next(v for v in english["verbs"] if v["lemma"] == "swing")
    swing["past"] = swing["participle"] = "swinged"
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: verb 'swing': .*'swung'"):
        _check(tmp_path, english)


def test_scene_errors_name_the_scene(tmp_path, english):
    english["scenes"][0]["verbs"].append("tumble")
    with pytest.raises(LexiconError, match="scene 'balls': verb 'tumble' is not listed"):
        _check(tmp_path, english)
    english = shipped_english(lexicon)
    english["scenes"][0]["agents"][0] = "the ball boy"
    with pytest.raises(LexiconError, match="shares the word stem 'ball'"):
        _check(tmp_path, english)
    english = shipped_english(lexicon)
    english["scenes"] = [s for s in english["scenes"] if "whirl" not in s["verbs"]]
    with pytest.raises(LexiconError, match="verbs in no scene: .*whirl"):
        _check(tmp_path, english)


def test_unquoted_on_is_caught(tmp_path):
    text = (lexicon.HERE / "lexicons" / "en.yaml").read_text().replace('at: "on"', "at: on", 1)
    with pytest.raises(LexiconError, match="quote it"):
        _check(tmp_path, text)
