"""Roll BLMs: the fixed-seed two-paradigm instance, the scene facts behind each candidate's class (one
test per defect fixed), type II verbs, the balanced set and lexicon errors.
Size, validity, shuffling and twins of every config: tests/test_configs.py."""

import itertools
from pathlib import Path

import pytest

from blm_datasets.audit import audit_rows
from builders.lexical_types import jaccard
from builders import morphology, registry
from builders.generate import Options, generate
from builders.lexicon import LexiconError, load_yaml
from builders.morphology import en as forms
from builders.roll import lexicon
from lexicon_files import check_written, shipped_english

# 002 Fig. 10 in this package's notation (1/2 = the paradigm whose words fill the slot).
FIG10_CONTEXT = ["NP-Agent1 rollV NP-Theme", "NP-Agent1 did PP-Theme", "NP-Theme was PP-Loc1",
                 "NP-Theme rollV PP-Loc1", "NP-Agent2 rollV NP-Theme", "NP-Agent2 did PP-Theme",
                 "NP-Theme was PP-Loc2"]
FIG10_ANSWERS = {"Correct": "NP-Theme rollV PP-Loc2", "SC-RS": "NP-Theme rollV NP-Agent2",
                 "SC-RR": "NP-Agent2 was PP-Loc2", "RR": "NP-Agent2 rollV PP-Loc2",
                 "PSC-RS": "NP-Theme rollV NP-Agent1", "PSC-RR": "NP-Agent1 was PP-Loc1",
                 "PC-RR": "NP-Agent1 rollV PP-Loc1"}
GEN = registry.generator("roll", "en")
SCENES = {scene.id: s for s, scene in enumerate(lexicon.load("en").scenes)}


def gen(name, size=40, **kw):
    return generate(registry.get_spec(name), Options(size=size, **kw), progress=False)


def answers(scene, v1, v2=None, theme=0, agents=(0, 1), locations=(0, 1), balanced=False):
    """[(label, sentence, class)] of the instance with these words."""
    spec = registry.get_spec(f"roll_en_type{'I' if v2 in (None, v1) else 'II'}" + ("_balanced" if balanced else ""))
    plan = (SCENES[scene], v1, v2 or v1, theme, agents, locations)
    return [(c.label, c.sentence.text, c.error_class) for c in GEN.realise(spec, plan).candidates]


def test_type_i_fixed_seed_instance():
    rec = gen("roll_en_typeI")["test"].records[0]
    assert rec["lemma"] == "turn" and rec["context"] == [
        "The ferryman turned the raft.",
        "The ferryman did something to the raft.",
        "The raft was in the cove.",
        "The raft turned into the cove.",
        "The sailor turned the raft.",
        "The sailor did something to the raft.",
        "The raft was in the lagoon.",
    ]
    assert rec["context_patterns"] == FIG10_CONTEXT
    assert dict(zip(rec["answer_labels"], rec["answer_patterns"])) == FIG10_ANSWERS
    assert dict(zip(rec["answer_labels"], zip(rec["answers"], rec["answer_error_classes"]))) == {
        "Correct": ("The raft turned into the lagoon.", "CORRECT"),
        "SC-RS": ("The raft turned the sailor.", "GRAMMAR"),
        "SC-RR": ("The sailor was in the lagoon.", "SEQUENCE"),
        "RR": ("The sailor turned into the lagoon.", "SEQUENCE"),
        "PSC-RS": ("The raft turned the ferryman.", "GRAMMAR"),
        "PSC-RR": ("The ferryman was in the cove.", "SEQUENCE"),
        "PC-RR": ("The ferryman turned into the cove.", "SEQUENCE"),
    }


def test_axis_scene_role_errors_are_grammar():
    assert answers("axis", "rotate", agents=(4, 0), locations=(0, 4)) == [
        ("Correct", "The wheel rotated on the pivot.", "CORRECT"),
        ("SC-RS", "The wheel rotated the mechanic.", "GRAMMAR"),
        ("SC-RR", "The mechanic was on the pivot.", "GRAMMAR"),        # was SEQUENCE
        ("RR", "The mechanic rotated on the pivot.", "GRAMMAR"),       # was SEQUENCE
        ("PSC-RS", "The wheel rotated the machinist.", "GRAMMAR"),
        ("PSC-RR", "The machinist was on the axle.", "GRAMMAR"),       # was SEQUENCE
        ("PC-RR", "The machinist rotated on the axle.", "GRAMMAR"),    # was SEQUENCE
    ]


# --- the scene facts: each test pins a candidate whose class used to be false ---------------------

def test_role_error_is_sequence_only_where_the_agent_moving_is_natural():
    balls = answers("balls", "roll", locations=(0, 2))   # the boy … the girl, the gutter … the pool
    assert ("RR", "The girl rolled into the pool.", "SEQUENCE") in balls
    assert ("SC-RR", "The girl was in the pool.", "SEQUENCE") in balls
    wind = answers("wind", "twirl", "whirl")             # the wind twirled …, the squall whirled …
    assert ("RR", "The squall whirled into the pond.", "SEQUENCE") in wind
    ropes = answers("ropes", "twist", "coil")
    assert ("PC-RR", "The sailor twisted around the post.", "SEQUENCE") in ropes
    assert ("RR", "The engineer rotated on the axle.", "GRAMMAR") in answers("axis", "rotate", locations=(1, 0))


def test_marginal_role_errors_give_no_candidate():
    """Review finding 6: "The sailor was around the pole" was GRAMMAR, but 'around' also means 'near';
    borderline: "The wind was in the yard" (poetic rather than anomalous). Both are marginal now, as
    are "The gust twirled into the alley" and "The climber wound around the pole" (a winding course):
    no candidate claims a class for them."""
    ropes = {label for label, _, _ in answers("ropes", "twist", "coil")}
    assert not ropes & {"SC-RR", "PSC-RR", "RR"}
    wind = answers("wind", "whirl", "twirl")
    assert [label for label, _, _ in wind] == ["Correct", "SC-RS", "PSC-RS", "PC-RR"]   # no SC-RR, PSC-RR, RR (twirl)
    records = [r for split in gen("roll_en_typeII", 600).values() for r in split.records]
    located = [a for r in records for a, label in zip(r["answers"], r["answer_labels"]) if label.endswith("SC-RR")]
    winds = ("wind", "squall", "storm", "gust", "gale")
    assert located and not [a for a in located if " around " in a or a.split()[1] in winds]


def test_marginal_role_swaps_give_no_candidate():
    """Borderline: "The raft floated the oarsman" (kept him afloat), "The wardrobe moved the movers"
    (a psych reading) and "The sack dropped the farmer" (knocked him down) were GRAMMAR; they are
    marginal now, so neither the paper set nor the balanced set (GRAMMAR swaps only) has them."""
    for scene, verb in (("boats", "float"), ("furniture", "move"), ("balls", "drop"), ("buckets", "drop")):
        for balanced in (False, True):
            labels = {label for label, _, _ in answers(scene, verb, balanced=balanced)}
            assert not labels & {"SC-RS", "PSC-RS"}, (scene, verb, balanced)
    assert ("SC-RS", "The canoe turned the fisherman.", "GRAMMAR") in answers("boats", "turn", theme=2)


def test_verbs_without_a_natural_transitive_never_appear():
    """Borderline: "The fisherman glided the kayak", "The oarsman drifted the dinghy", "The machinist
    revolved the disk" were context sentences; a verb is used only in scenes where its transitive is
    natural (causative), so glide, drift and revolve are not used."""
    lemmas = GEN.lemmas(registry.get_spec("roll_en_typeI"))
    assert len(lemmas) == 15 and not {"glide", "drift", "revolve"} & set(lemmas)
    for name in ("roll_en_typeI", "roll_en_typeII"):
        texts = [t for split in gen(name, 600).values() for r in split.records for t in r["context"] + r["answers"]]
        assert not [t for t in texts if {"glided", "drifted", "revolved"} & set(t.rstrip(".").split())]


def test_role_swap_is_never_natural():
    """The theme acting on the agent (*The ball rolled the girl*) is natural with no scene's verb;
    the furniture scene has no piano (*The piano moved the landlord* has a psych reading)."""
    for scene in lexicon.load("en").scenes:
        assert not scene.themes_move_agents
    assert "the piano" not in [t.text for s in lexicon.load("en").scenes for t in s.themes]
    assert ("SC-RS", "The ball rolled the girl.", "GRAMMAR") in answers("balls", "roll")


def test_no_axis_location_can_be_switched_on():
    """*The machinist turned on the spindle* is a well-formed sentence (switch on): the axis scene
    has no location a person turns on, so RR with turn is GRAMMAR."""
    axis = lexicon.load("en").scenes[SCENES["axis"]]
    assert not {"the spindle", "the hub"} & {loc.text for loc in axis.locations}
    assert ("RR", "The engineer turned on the shaft.", "GRAMMAR") in answers("axis", "turn", locations=(0, 1))


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


def test_balanced_set_has_unused_locations_and_grammar_swaps():
    got = answers("balls", "roll", locations=(0, 1), balanced=True)
    assert sorted((label, cls) for label, _, cls in got) == [
        ("Correct", "CORRECT"), ("LOC", "SEQUENCE"), ("LOC", "SEQUENCE"), ("PSC-RS", "GRAMMAR"), ("SC-RS", "GRAMMAR")]
    assert ("Correct", "The ball rolled into the hole.", "CORRECT") in got
    unused = {text.split()[-1].rstrip(".") for label, text, _ in got if label == "LOC"}
    assert len(unused) == 2 and not unused & {"gutter", "hole"}   # the context's locations are gutter and hole


def test_balanced_config_leaves_no_answer_only_shortcut():
    out = gen("roll_en_typeII_balanced", 800)
    res = audit_rows(out["train"].records, out["test"].records, "en")
    assert res["chance_wellformed"] == pytest.approx(1 / 3)
    for baseline, r in res["baselines"].items():
        assert not r["above_chance"], (baseline, r)


def test_test_verbs_come_from_one_scene():
    test = {r["lemma"] for r in gen("roll_en_typeII", 600)["test"].records}
    assert len(test) == 2 and any(test <= set(scene.verbs) for scene in lexicon.load("en").scenes)


def test_roll_does_not_depend_on_the_sprayload_package():
    sources = " ".join(p.read_text() for p in Path(lexicon.HERE).glob("*.py"))
    assert "sprayload" not in sources


# --- lexicon errors -------------------------------------------------------------------------------

@pytest.fixture()
def english():
    return shipped_english(lexicon)


def _check(tmp_path, data_or_text):
    return check_written(lexicon, tmp_path, data_or_text)


def test_shipped_lexicon_has_the_18_roll_verbs():
    lex = lexicon.load("en")
    assert len(lex.verbs) == 18 and {"roll", "wind", "revolve", "glide"} <= set(lex.verbs)
    assert all(set(scene.causative) <= set(scene.verbs) for scene in lex.scenes)


def test_invented_past_is_rejected(tmp_path, english):
    swing = next(v for v in english["verbs"] if v["lemma"] == "swing")
    swing["past"] = swing["participle"] = "swinged"
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: verbs\.8: forms 'swinged'/'swinged' of 'swing' "
                                           "should be 'swung'/'swung'"):
        _check(tmp_path, english)
    assert forms.form_error(forms.Verb("drop", "dropped", "dropped")) is None


def test_fact_errors_name_file_line_and_scene(tmp_path, english):
    english["scenes"][0]["agents_move"].append("spin")
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: scenes\.0: agents_move: 'spin' is not a verb of this scene"):
        _check(tmp_path, english)
    english = shipped_english(lexicon)
    english["scenes"][0]["agents_located"] = "sometimes"
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: scenes\.0\.agents_located: "
                                           "Input should be 'natural', 'anomalous' or 'marginal'"):
        _check(tmp_path, english)
    english = shipped_english(lexicon)
    english["scenes"][0]["causative"].append("spin")
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: scenes\.0: causative: 'spin' is not a verb of this scene"):
        _check(tmp_path, english)
    english = shipped_english(lexicon)
    english["scenes"][2]["marginal"]["themes_move_agents"].append("glide")
    english["scenes"][2]["themes_move_agents"].append("glide")
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: scenes\.2: marginal: themes_move_agents: 'glide' "
                                           "is also listed as natural"):
        _check(tmp_path, english)
    english = shipped_english(lexicon)
    english["scenes"][2]["marginal"] = {"agents_located": ["float"]}
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: scenes\.2\.marginal\.agents_located: unknown key; "
                                           "this section takes: agents_move, themes_move_agents"):
        _check(tmp_path, english)
    english = shipped_english(lexicon)
    del english["scenes"][1]["themes_move_agents"]
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: scenes\.1\.themes_move_agents: missing key"):
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


def _located(tmp_path, data) -> tuple[str, dict]:
    """The one-line error for ``data`` written as en.yaml, and the file as parsed (for its lines)."""
    with pytest.raises(LexiconError) as err:
        _check(tmp_path, data)
    assert "\n" not in str(err.value)
    return str(err.value), load_yaml(tmp_path / "en.yaml")


def test_schema_errors_are_located_one_liners(tmp_path, english):
    """Wrong type, unknown key, too few entries: the key's (or the list's) line and the path to it."""
    english["scenes"][0]["agents"][1] = 5
    message, parsed = _located(tmp_path, english)
    assert message == (f"{tmp_path / 'en.yaml'}:{parsed['scenes'][0]['agents'].line}: scenes.0.agents.1: "
                       "5 must be a string (singular) or {pl: ...} (plural)")
    english = shipped_english(lexicon)
    english["scenes"][3]["agent_moves"] = []
    message, parsed = _located(tmp_path, english)
    assert message == (f"{tmp_path / 'en.yaml'}:{parsed['scenes'][3].key_lines['agent_moves']}: scenes.3.agent_moves: "
                       "unknown key; this section takes: " + ", ".join(lexicon.SceneEntry.model_fields))
    english = shipped_english(lexicon)
    english["scenes"][1]["themes"] = english["scenes"][1]["themes"][:4]
    message, parsed = _located(tmp_path, english)
    assert message == (f"{tmp_path / 'en.yaml'}:{parsed['scenes'][1]['themes'].line}: scenes.1.themes: "
                       "Tuple should have at least 5 items after validation, not 4")


def test_cross_reference_errors_are_located_one_liners(tmp_path, english):
    """What the schema cannot state: a lemma or scene id given twice."""
    english["verbs"].append(dict(english["verbs"][0]))
    message, parsed = _located(tmp_path, english)
    assert message == f"{tmp_path / 'en.yaml'}:{parsed['verbs'][-1].line}: verb 'bounce': listed twice"
    english = shipped_english(lexicon)
    english["scenes"].append(dict(english["scenes"][0]))
    message, parsed = _located(tmp_path, english)
    assert message == f"{tmp_path / 'en.yaml'}:{parsed['scenes'][-1].line}: scene 'balls': duplicate id"


def test_no_malformed_value_escapes_as_a_traceback(tmp_path):
    """Every key of the file, a verb and a scene, given a number or a mapping: a located LexiconError."""
    shipped = shipped_english(lexicon)
    targets = [((), key) for key in shipped] + [(("verbs", 0), key) for key in shipped["verbs"][0]] + [
        (("scenes", 2), key) for key in shipped["scenes"][2]]
    for bad in (5, {}):
        for where, key in targets:
            if bad == {} and key == "marginal":
                continue  # no marginal sentences: a valid scene
            data = shipped_english(lexicon)
            node = data[where[0]][where[1]] if where else data
            node[key] = bad
            with pytest.raises(LexiconError) as err:
                _check(tmp_path, data)
            assert err.value.line and "\n" not in str(err.value)
