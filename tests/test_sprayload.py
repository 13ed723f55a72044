"""Spray/load BLMs: fixed-seed instances of both templates, the per-verb facts behind each candidate's
class (one test per defect fixed), the balanced set, verb morphology and lexicon errors.
Size, validity, shuffling and twins of every config: tests/test_configs.py."""

import re

import pytest

from blm_datasets.audit import audit_rows
from builders import registry, template
from builders.base import ImpossibleSize
from builders.generate import Options, generate
from builders.lexicon import LexiconError
from builders.morphology import en
from builders.sprayload import lexicon, verbs
from builders.sprayload.generator import SprayLoadTemplate
from builders.sprayload.realise import Material
from lexicon_files import check_written, shipped_english

# 004 Fig. 3 (ALT-ATL) and Fig. 4 (ATL-ALT): the context patterns and the correct answer.
PASSIVES = ["NP-Theme VerbPass PP-Agent", "NP-Theme VerbPass PP-Loc PP-Agent", "NP-Theme VerbPass PP-Loc",
            "NP-Loc VerbPass PP-Agent", "NP-Loc VerbPass PP-Theme PP-Agent", "NP-Loc VerbPass PP-Theme"]
ALT, ATL = "NP-Agent Verb NP-Loc PP-Theme", "NP-Agent Verb NP-Theme PP-Loc"
FIGURES = {"altatl": ([ALT, *PASSIVES], ATL), "atlalt": ([ATL, *PASSIVES], ALT)}
GEN = registry.generator("sprayload", "en")
INDEX = {e.lemma: i for i, e in enumerate(lexicon.load("en"))}


def gen(name, size=40, **kw):
    return generate(registry.get_spec(name), Options(size=size, **kw), progress=False)


def without_frame(pattern):
    return re.sub(r"(Verb(?:Pass)?)-\w+", r"\1", pattern)


def answers(variant, lemma, agent=0, theme=0, loc=0, frame=0, balanced=False):
    """{label: (sentence, class)} of the type I instance with these words (past tense by default)."""
    spec = registry.get_spec(f"sprayload_en_{variant}_typeI" + ("_balanced" if balanced else ""))
    instance = GEN.realise(spec, ("I", frame, Material(INDEX[lemma], agent, theme, loc)))
    return {c.label: (c.sentence.text, c.error_class) for c in instance.candidates}


def test_altatl_type_i_fixed_seed_instance():
    rec = gen("sprayload_en_altatl_typeI")["test"].records[0]
    assert rec["template"] == "ALT-ATL" and rec["lemma"] == "plant"
    assert rec["context"] == [
        "The landscaper planted the flowerbed with the saplings.",
        "The saplings were planted by the landscaper.",
        "The saplings were planted in the flowerbed by the landscaper.",
        "The saplings were planted in the flowerbed.",
        "The flowerbed was planted by the landscaper.",
        "The flowerbed was planted with the saplings by the landscaper.",
        "The flowerbed was planted with the saplings.",
    ]
    patterns, answer = FIGURES["altatl"]
    assert [without_frame(p) for p in rec["context_patterns"]] == patterns
    assert without_frame(rec["answer_patterns"][rec["label"]]) == answer
    assert dict(zip(rec["answer_labels"], zip(rec["answers"], rec["answer_error_classes"]))) == {
        "Correct": ("The landscaper planted the saplings in the flowerbed.", "CORRECT"),
        "AGENTACT": ("The landscaper was planted the saplings in the flowerbed.", "GRAMMAR"),
        "ALT-NP": ("The landscaper planted the saplings the flowerbed.", "GRAMMAR"),
        "ALT-PP": ("The landscaper planted with the saplings in the flowerbed.", "GRAMMAR"),
        "NOEMB": ("The landscaper planted the saplings for the flowerbed.", "SEQUENCE"),
        "LEXPREP": ("The landscaper planted the saplings beside the flowerbed.", "SEQUENCE"),
        "SSM-1": ("The saplings planted the landscaper in the flowerbed.", "GRAMMAR"),
        "SSM-2": ("The flowerbed planted the landscaper with the saplings.", "GRAMMAR"),
        "AASSM": ("The saplings planted the flowerbed with the landscaper.", "GRAMMAR"),
    }


def test_atlalt_type_i_fixed_seed_instance():
    rec = gen("sprayload_en_atlalt_typeI")["test"].records[0]
    assert rec["template"] == "ATL-ALT" and rec["context"][:2] == [
        "The volunteers will plant the saplings in the park.", "The saplings will be planted by the volunteers."]
    patterns, answer = FIGURES["atlalt"]
    assert [without_frame(p) for p in rec["context_patterns"]] == patterns
    assert without_frame(rec["answer_patterns"][rec["label"]]) == answer
    answers_ = dict(zip(rec["answer_labels"], rec["answers"]))
    assert answers_["Correct"] == "The volunteers will plant the park with the saplings."
    assert answers_["SSM-1"] == "The park will plant the volunteers with the saplings."     # Fig. 4: NP-Loc Verb NP-Agent PP-Theme
    assert answers_["SSM-2"] == "The saplings will plant the volunteers in the park."      # NP-Theme Verb NP-Agent PP-Loc
    assert answers_["AASSM"] == "The park will plant the saplings in the volunteers."      # NP-Loc Verb NP-Theme PP-Agent
    assert answers_["AGENTACT"] == "The volunteers will be planted the park with the saplings."
    # plant's NOEMB and LEXPREP with the location as object are marginal: no candidate
    assert "NOEMB" not in answers_ and "LEXPREP" not in answers_


# --- the per-verb facts: each test pins a candidate whose class used to be false ------------------

def test_a_verb_without_the_with_variant_never_appears():
    """spurt (Levin §9.5) has no with-variant: it used to give gold answers such as "The prankster
    spurted the children with the seltzer." (ATL-ALT) and with-passives in every context."""
    spurt = lexicon.load("en")[INDEX["spurt"]]
    assert spurt.variants == {"locative"}
    for variant in ("altatl", "atlalt"):
        assert "spurt" not in GEN.lemmas(registry.get_spec(f"sprayload_en_{variant}_typeI"))
    for name in ("sprayload_en_atlalt_typeI", "sprayload_en_altatl_typeIII"):
        texts = [s for split in gen(name, 400).values() for r in split.records for s in r["context"] + r["answers"]]
        assert not [s for s in texts if "spurt" in s]


def test_role_swaps_are_sequence_only_where_both_nouns_can_take_their_new_roles():
    squirt = answers("altatl", "squirt", loc=1)    # the clown squirted the water onto the crowd
    assert squirt["SSM-2"] == ("The crowd squirted the clown with the water.", "SEQUENCE")
    assert squirt["SSM-1"] == ("The water squirted the clown onto the crowd.", "GRAMMAR")
    assert answers("atlalt", "squirt", loc=1)["AASSM"] == ("The crowd squirted the water onto the clown.", "SEQUENCE")
    assert answers("altatl", "spray")["SSM-2"] == ("The roses sprayed the gardener with the water.", "GRAMMAR")


def test_no_splash_location_can_splash_anything():
    """Review finding 1: 'the car' was a splash location, so "The car splashed the swimmers with the
    mud" (a passing car does) was a GRAMMAR role swap; the locations are now things that cannot splash."""
    splash = lexicon.load("en")[INDEX["splash"]]
    assert "the car" not in [np.text for np in splash.locations] and not splash.can_also_be
    assert answers("atlalt", "splash", loc=2)["SSM-1"] == ("The fence splashed the kids with the milk.", "GRAMMAR")
    texts = [a for split in gen("sprayload_en_atlalt_typeI", 400).values() for r in split.records for a in r["answers"]]
    assert not [a for a in texts if a.startswith("The car ")]


def test_squirt_locations_are_people_so_no_food_squirts_anyone():
    """Borderline finding: "The sandwich squirted the waitress with the mustard" (it squirts when
    bitten) was GRAMMAR, and "The pretzel can be squirted by the cook" a context sentence; squirt's
    locations are now people, who can be squirted and can squirt back."""
    squirt = lexicon.load("en")[INDEX["squirt"]]
    assert {np.text for np in squirt.locations} == {"the audience", "the crowd", "the spectators", "the guests",
                                                    "the children"}
    assert answers("atlalt", "squirt", loc=4)["SSM-1"] == ("The children squirted the clown with the water.",
                                                           "SEQUENCE")


def test_alt_pp_is_sequence_where_the_agent_moves_itself_location_first():
    assert answers("atlalt", "load")["ALT-PP"] == ("The movers loaded into the truck with the boxes.", "SEQUENCE")
    assert answers("altatl", "load")["ALT-PP"] == ("The movers loaded with the boxes into the truck.", "GRAMMAR")
    assert answers("atlalt", "spray")["ALT-PP"] == ("The gardener sprayed onto the roses with the water.", "GRAMMAR")


def test_noemb_class_follows_the_verbs_noemb_fact():
    assert answers("atlalt", "inject")["NOEMB"] == ("The vet injected the horse for the vaccine.", "GRAMMAR")
    assert answers("altatl", "splash")["NOEMB"] == ("The kids splashed the milk for the deck.", "GRAMMAR")
    assert answers("altatl", "spray")["NOEMB"] == ("The gardener sprayed the water for the roses.", "SEQUENCE")


def test_marginal_noemb_gives_no_candidate():
    """Borderline findings: "The planter will sow the furrow for the wheat" was SEQUENCE, "The
    surgeon swabbed the scrape for the iodine" GRAMMAR, though both read like "brush the fence for the
    paint" (prepare it); a NOEMB without the goal the verb wants ("The secretary stuck the flags for the
    corkboard") likewise. Each is marginal now, so no candidate claims either class."""
    for variant, lemma in (("atlalt", "sow"), ("atlalt", "seed"), ("atlalt", "load"), ("atlalt", "pack")):
        assert "NOEMB" not in answers(variant, lemma), lemma
    entries = lexicon.load("en")
    for lemma, key in (("sow", "location_for_theme"), ("swab", "location_for_theme"),
                       ("brush", "location_for_theme"), ("stick", "theme_for_location"),
                       ("shower", "theme_for_location")):
        assert entries[INDEX[lemma]].judgement("noemb", key) == "marginal", lemma
    assert "the calendar" not in [np.text for np in entries[INDEX["stick"]].locations]


def test_lexprep_class_follows_the_verbs_lexprep_fact():
    assert answers("atlalt", "inject")["LEXPREP"] == ("The vet injected the horse over the vaccine.", "GRAMMAR")
    # issue 25: odd but grammatical, no claim (GRAMMAR before): sew, smear, stock with the location as object
    for verb in ("smear", "sew", "stock"):
        assert "LEXPREP" not in answers("atlalt", verb)
    assert answers("atlalt", "load")["LEXPREP"] == ("The movers loaded the truck behind the boxes.", "SEQUENCE")
    assert answers("altatl", "spray")["LEXPREP"] == ("The gardener sprayed the water near the roses.", "SEQUENCE")
    assert "LEXPREP" not in answers("atlalt", "spray")    # ?"sprayed the roses near the pesticide"


def test_only_verbs_with_both_bare_passives_are_used():
    """Review finding 7: context sentence 5 (*The corkboard was stuck by the secretary*, *The walkway
    was spread by the contractor*) and sentence 2 (*The butter was basted by the chef*) are anomalous
    for many verbs; a verb is used only where both bare passives are natural."""
    spec = registry.get_spec("sprayload_en_altatl_typeI")
    used = set(GEN.lemmas(spec))
    assert used == {"inject", "load", "pack", "plant", "seed", "sew", "smear", "smudge", "sow", "splash",
                    "splatter", "spray", "sprinkle", "spritz", "squirt", "stock", "wrap"}
    assert not used & {"stick", "scatter", "spread", "strew", "string", "hang", "baste"}
    for name in ("sprayload_en_atlalt_typeII", "sprayload_en_altatl_typeIII"):
        records = [r for split in gen(name, 300).values() for r in split.records]
        bare = [s for r in records for s in (r["context"][1], r["context"][4])]
        assert len(bare) == 600
        assert not [s for s in bare if re.search(r"\b(stuck|spread|scattered|strewn|strung|hung|basted)\b", s)]
    assert GEN.usable(lexicon.load("en")[INDEX["spray"]], "altatl")
    assert not GEN.usable(lexicon.load("en")[INDEX["stick"]], "atlalt")


def test_balanced_twins_are_frames_crossed_with_candidates_that_are_grammar_for_the_verb():
    """The GRAMMAR twins are chosen among the candidates that are GRAMMAR for this verb, so a
    well-formed paper candidate (load's ALT-PP, shower's role swaps) never poses as one."""
    for variant, lemma in (("atlalt", "load"), ("atlalt", "squirt"), ("altatl", "squirt")):
        wellformed = {label for label, (_, cls) in answers(variant, lemma).items() if cls == "SEQUENCE"}
        for frame in range(4):
            spec = registry.get_spec(f"sprayload_en_{variant}_typeI_balanced")
            got = GEN.realise(spec, ("I", frame, Material(INDEX[lemma], 0, 0, 1))).candidates
            assert sorted(c.label for c in got if c.error_class != "GRAMMAR") == ["Correct", "FRAME", "FRAME"]
            assert len({c.sentence.pattern.split()[1] for c in got if c.error_class != "GRAMMAR"}) == 3
            twins = {c.label.removeprefix("FRAME+") for c in got if c.error_class == "GRAMMAR"}
            assert len(twins) == 2 and not twins & wellformed, (variant, lemma, twins)


def test_balanced_config_leaves_no_answer_only_shortcut():
    out = gen("sprayload_en_atlalt_typeIII_balanced", 800)
    res = audit_rows(out["train"].records, out["test"].records, "en")
    assert res["chance_wellformed"] == pytest.approx(1 / 3)
    for baseline, r in res["baselines"].items():
        assert not r["above_chance"], (baseline, r)


def test_lemma_split_has_eight_test_verbs_and_type_iii_needs_them():
    out = gen("sprayload_en_altatl_typeI", 400)
    assert len({r["lemma"] for r in out["test"].records}) == 8
    with pytest.raises(ImpossibleSize, match="type III needs 8 verbs"):
        gen("sprayload_en_atlalt_typeIII", 100, test_size=0.1)


# --- morphology ----------------------------------------------------------------------------------

def test_verb_forms_follow_english_inflection():
    assert [en.regular_past(v) for v in ("spray", "rub", "drizzle", "spritz", "plaster", "shower", "wrap")] == [
        "sprayed", "rubbed", "drizzled", "spritzed", "plastered", "showered", "wrapped"]
    assert en.expected_forms("sow") == ("sowed", "sown") and en.expected_forms("strew") == ("strewed", "strewn")
    assert en.form_error(en.Verb("sow", "sowed", "sowed")) is not None
    assert en.form_error(en.Verb("hang", "hanged", "hanged")) is not None


def test_frames_agree_with_the_subject():
    sew = verbs.Verb("sew", "sewed", "sewn")
    assert [verbs.passive(sew, f, True) for f in verbs.FRAMES] == [
        "were sewn", "have been sewn", "can be sewn", "will be sewn"]
    assert [verbs.active(sew, f, False) for f in verbs.FRAMES] == ["sewed", "has sewn", "can sew", "will sew"]


# --- lexicon errors -------------------------------------------------------------------------------

@pytest.fixture()
def english():
    return shipped_english(lexicon)


def _check(tmp_path, data_or_text):
    return check_written(lexicon, tmp_path, data_or_text)


def _verb(english, lemma):
    return next(v for v in english["verbs"] if v["verb"]["lemma"] == lemma)


def test_shipped_lexicon_has_the_papers_verbs_and_levin_verbs_for_those_without_bare_passives():
    entries = lexicon.load("en")
    papers = {"baste", "brush", "drizzle", "hang", "load", "plaster", "pump", "rub", "scatter", "seed", "sew",
              "shower", "smear", "smudge", "sow", "spatter", "splash", "splatter", "spray", "spread", "sprinkle",
              "spritz", "spurt", "squirt", "stick", "strew", "string", "swab", "swash", "wrap"}
    assert {e.lemma for e in entries} == papers | {"pack", "inject", "plant", "stock"}
    assert all(len(e.agents) == len(e.themes) == len(e.locations) == 5 for e in entries)
    used = [e for e in entries if GEN.usable(e, "altatl")]
    assert len(used) == 17 and all(e.variants == {"locative", "with"} for e in used)
    assert all(e.judgement("bare_passive", k) == "natural" for e in used for k in ("theme", "location"))


def test_regularised_participle_is_rejected_with_file_and_line(tmp_path, english):
    _verb(english, "sow")["verb"]["participle"] = "sowed"
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: verbs\.\d+\.verb: .* of 'sow' should be 'sowed'/'sown'"):
        _check(tmp_path, english)


def test_fact_errors_name_file_line_and_verb(tmp_path, english):
    _verb(english, "spray")["variants"] = ["locative", "onto"]
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: verbs\.\d+\.variants\.1: 'onto' is not one of locative, with"):
        _check(tmp_path, english)
    english = shipped_english(lexicon)
    _verb(english, "spray")["lexprep"]["location_object"] = "odd"
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: verbs\.\d+\.lexprep\.location_object: is 'odd'; "
                                           "expected one of natural, anomalous, marginal"):
        _check(tmp_path, english)
    english = shipped_english(lexicon)
    del _verb(english, "spray")["noemb"]
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: verbs\.\d+\.noemb: missing key"):
        _check(tmp_path, english)
    english = shipped_english(lexicon)
    del _verb(english, "spray")["bare_passive"]["location"]
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: verbs\.\d+\.bare_passive\.location: missing key"):
        _check(tmp_path, english)
    english = shipped_english(lexicon)
    _verb(english, "shower")["can_also_be"] = {"agent": ["agent"]}
    with pytest.raises(LexiconError, match=r"en\.yaml:\d+: verbs\.\d+\.can_also_be: agent: must list other roles"):
        _check(tmp_path, english)


def test_prepositions_are_checked(tmp_path, english):
    text = (lexicon.HERE / "lexicons" / "en.yaml").read_text().replace('loc_prep: "on"', "loc_prep: on", 1)
    with pytest.raises(LexiconError, match="quote it"):
        _check(tmp_path, text)
    english["verbs"][0]["lexprep"]["prep"] = english["verbs"][0]["loc_prep"]
    with pytest.raises(LexiconError, match=r"lexprep: prep .* must differ"):
        _check(tmp_path, english)


def test_roles_sharing_a_word_are_rejected(tmp_path, english):
    _verb(english, "sow")["agents"][2] = "the gardener"
    with pytest.raises(LexiconError, match="'the garden' \\(locations\\) shares the word stem 'gard'"):
        _check(tmp_path, english)


def _twice(english):
    english["verbs"].append(_verb(english, "sow"))


@pytest.mark.parametrize("edit, message, at", [
    (lambda e: _verb(e, "sow").update(agent_moves="yes"), r"verbs\.\d+\.agent_moves: Input should be a valid boolean",
     "agent_moves: "),                                                                           # wrong type
    (lambda e: _verb(e, "sow").update(locative_prep="in"),
     r"verbs\.\d+\.locative_prep: unknown key; this section takes: verb, variants", "locative_prep: "),  # unknown key
    (lambda e: e.update(verbs=e["verbs"][:7]), r"verbs: .*at least 8 items.*not 7", "agents:"),   # too few entries
    (lambda e: _verb(e, "sow")["themes"].__setitem__(4, "the wheat"),
     r"verbs\.\d+: noun phrases must be distinct across agents, themes and locations: \['the wheat'\]", None),
    (_twice, r"verb 'sow': listed twice", None),                                                 # across entries
    (lambda e: _verb(e, "sow").update(loc_prep="inside of"),
     r"verb 'sow': loc_prep 'inside of' is not a function word of en", None),                    # the morphology's
])
def test_malformed_lexicons_fail_with_one_located_line(tmp_path, english, edit, message, at):
    """The schema and the cross-reference checks: one line ``file:line: entry: reason``, the line the culprit's."""
    edit(english)
    with pytest.raises(LexiconError, match=rf"^{tmp_path}/en\.yaml:\d+: {message}") as err:
        _check(tmp_path, english)
    assert "\n" not in str(err.value)
    if at:
        assert (tmp_path / "en.yaml").read_text().splitlines()[err.value.line - 1].lstrip(" -").startswith(at)


@pytest.mark.parametrize("text", ["verbs: 5\n", "verbs: [sow]\n", "verbs: [{verb: sow}]\n", "language: [en]\n",
                                  "language:\n"])
def test_any_malformed_shape_is_a_lexicon_error(tmp_path, text):
    with pytest.raises(LexiconError, match=rf"^{tmp_path}/en\.yaml(:\d+)?: "):
        _check(tmp_path, ("language: en\n" if "language" not in text else "") + text)


def test_template_errors_name_file_and_line(tmp_path):
    text = (lexicon.HERE / "template.yaml").read_text()
    path = tmp_path / "template.yaml"
    path.write_text(text.replace("[NP-Agent, Verb, NP-Loc, PP-Theme]      # the answer", "[NP-Agent, Verb, NP-Loc, PP-Thme]"))
    with pytest.raises(LexiconError, match=r"template\.yaml:\d+: templates\.atlalt\.sequence: .*unknown slot 'PP-Thme'"):
        template.load(path, SprayLoadTemplate)
    path = tmp_path / "other" / "template.yaml"
    path.parent.mkdir()
    path.write_text(text.replace("  other_frames: 2", "  other_frames: 4"))
    with pytest.raises(LexiconError, match=r"template\.yaml:\d+: .*other_frames is 4, but there are only 3 frames"):
        template.load(path, SprayLoadTemplate)


def typed_answers(variant, lemma, lexical_type, **words):
    """{label: (sentence, class)} of these words with a type ``lexical_type`` config's judges."""
    spec = registry.get_spec(f"sprayload_en_{variant}_type{lexical_type}")
    instance = GEN.realise(spec, ("I", 0, Material(INDEX[lemma], words.get("agent", 0), 0, words.get("loc", 0))))
    return {c.label: (c.sentence.text, c.error_class) for c in instance.candidates}


def test_type_ii_iii_leave_out_swaps_and_prepositions_that_keep_the_gold_frame():
    """Issue 25: in type II/III the context does not show which noun is which, so a swap of two nouns that
    can each take the other's role in the gold's alternant (ATL-ALT SSM-1 of squirt) and another locative
    preposition (ALT-ATL LEXPREP) are second answers; a swap into the other alternant stays (AASSM)."""
    squirt_i = typed_answers("atlalt", "squirt", "I", loc=1)
    assert squirt_i["SSM-1"] == ("The crowd squirted the clown with the water.", "SEQUENCE")
    for lexical_type in ("II", "III"):
        squirt = typed_answers("atlalt", "squirt", lexical_type, loc=1)
        assert "SSM-1" not in squirt and squirt["Correct"] == ("The clown squirted the crowd with the water.", "CORRECT")
        assert squirt["AASSM"] == ("The crowd squirted the water onto the clown.", "SEQUENCE")
    assert typed_answers("altatl", "plant", "I")["LEXPREP"] == (
        "The volunteers planted the tulips beside the flowerbed.", "SEQUENCE")
    plant = typed_answers("altatl", "plant", "III")
    assert "LEXPREP" not in plant and plant["Correct"] == ("The volunteers planted the tulips in the flowerbed.",
                                                         "CORRECT")
    for name in ("sprayload_en_altatl_typeIII", "sprayload_en_atlalt_typeII"):
        for split in gen(name, 300, seed=123).values():
            for rec in split.records:
                got = dict(zip(rec["answer_labels"], rec["answer_error_classes"]))
                assert got.get("LEXPREP") != "SEQUENCE" or rec["template"] == "ATL-ALT", rec["answers"]
                assert got.get("SSM-1") != "SEQUENCE", rec["answers"]
