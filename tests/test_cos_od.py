"""COS and OD: the template's sequence, the figures' answer sets, Italian morphology, lexicons."""

import re
import shutil

import pytest
import yaml

from blm_datasets.audit import audit_rows
from blm_datasets.validate import validate_rows
from builders import registry
from builders.base import ImpossibleSize
from builders.cos_od import lexicon, rules
from builders.cos_od.verbs import en as verbs_en
from builders.cos_od.verbs import it as verbs_it
from builders.generate import Options, generate
from builders.lexicon import LexiconError, load_yaml
from builders.spellcheck import allowlist, rejected

CONFIGS = [n for n in registry.config_names() if n.split("_")[0] in ("cos", "od")]
_CACHE: dict = {}


def gen(name, size=60, seed=42):
    key = (name, size, seed)
    if key not in _CACHE:
        _CACHE[key] = generate(registry.get_spec(name), Options(size=size, seed=seed), progress=False)
    return _CACHE[key]


def structures(patterns):
    return [rules.split_pattern(p)[0] for p in patterns]


# --- the template, realised --------------------------------------------------------------------

TRANSITIVE = ["NP-Agent ActiveV NP-Theme P-NP", "NP-Agent ActiveV NP-Theme by-NP",
              "NP-Theme PassiveV by-NP-Agent P-NP", "NP-Theme PassiveV by-NP-Agent by-NP",
              "NP-Theme PassiveV P-NP", "NP-Theme PassiveV by-NP"]
SEVENTH = {("cos", "en"): "NP-Theme ActiveV P-NP", ("cos", "it"): "NP-Theme si ActiveV P-NP",
           ("od", "en"): "NP-Agent ActiveV P-NP", ("od", "it"): "NP-Agent ActiveV P-NP"}
GOLD = {("cos", "en"): "NP-Theme ActiveV by-NP", ("cos", "it"): "NP-Theme si ActiveV by-NP",
        ("od", "en"): "NP-Agent ActiveV by-NP", ("od", "it"): "NP-Agent ActiveV by-NP"}

PINNED = {  # seed 42, --size 20, first test instance
    "cos_en_typeI": dict(lemma="expand", context=[
        "The manager can expand the business in a few months.",
        "The manager can expand the business by a third.",
        "The business must have been expanded by the manager in a few months.",
        "The business must have been expanded by the manager by a third.",
        "The business had been expanded in a few months.",
        "The business had been expanded by a third.",
        "The business expanded in a few months.",
    ], answers={
        "Correct": "The business expanded by a third.",
        "I-INT": "The manager expanded by a third.",
        "ER-PASS": "The business was expanded by the manager.",
        "IER-PASS": "The manager was expanded by the business.",
        "R-TRANS": "The business expanded the manager.",
        "IR-TRANS": "The manager expanded the business.",
        "E-WRBY": "The business expanded by the manager.",
        "IE-WRBY": "The manager expanded by the business.",
    }),
    "od_en_typeI": dict(lemma="polish", context=[
        "The maid will polish the silver with a soft cloth.",
        "The maid will polish the silver by hand.",
        "The silver should be polished by the maid with a soft cloth.",
        "The silver should be polished by the maid by hand.",
        "The silver must have been polished with a soft cloth.",
        "The silver must have been polished by hand.",
        "The maid polished with a soft cloth.",
    ], answers={
        "Correct": "The maid polished by hand.",
        "I-INT": "The silver polished by hand.",
        "ER-PASS": "The maid was polished by the silver.",
        "IER-PASS": "The silver was polished by the maid.",
        "R-TRANS": "The maid polished the silver.",
        "IR-TRANS": "The silver polished the maid.",
        "E-WRBY": "The maid polished by the silver.",
        "IE-WRBY": "The silver polished by the maid.",
    }),
    "cos_it_typeI": dict(lemma="scongelare", context=[
        "La cuoca deve scongelare il pesce in frigorifero.",
        "La cuoca deve scongelare il pesce dai bordi.",
        "Il pesce viene scongelato dalla cuoca in frigorifero.",
        "Il pesce viene scongelato dalla cuoca dai bordi.",
        "Il pesce può essere scongelato in frigorifero.",
        "Il pesce può essere scongelato dai bordi.",
        "Il pesce si era scongelato in frigorifero.",
    ], answers={
        "Correct": "Il pesce si era scongelato dai bordi.",
        "I-INT": "La cuoca si era scongelata dai bordi.",
        "ER-PASS": "Il pesce era stato scongelato dalla cuoca.",
        "IER-PASS": "La cuoca era stata scongelata dal pesce.",
        "R-TRANS": "Il pesce aveva scongelato la cuoca.",
        "IR-TRANS": "La cuoca aveva scongelato il pesce.",
        "E-WRBY": "Il pesce aveva scongelato dalla cuoca.",
        "IE-WRBY": "La cuoca aveva scongelato dal pesce.",
        "E-SI": "Il pesce aveva scongelato dai bordi.",
        "IE-SI": "La cuoca aveva scongelato dai bordi.",
    }),
    "od_it_typeI": dict(lemma="arare", context=[
        "I contadini ararono la terra in primavera.",
        "I contadini ararono la terra da lunedì a sabato.",
        "La terra veniva arata dai contadini in primavera.",
        "La terra veniva arata dai contadini da lunedì a sabato.",
        "La terra viene arata in primavera.",
        "La terra viene arata da lunedì a sabato.",
        "I contadini avevano arato in primavera.",
    ], answers={
        "Correct": "I contadini avevano arato da lunedì a sabato.",
        "I-INT": "La terra aveva arato da lunedì a sabato.",
        "ER-PASS": "I contadini erano stati arati dalla terra.",
        "IER-PASS": "La terra era stata arata dai contadini.",
        "R-TRANS": "I contadini avevano arato la terra.",
        "IR-TRANS": "La terra aveva arato i contadini.",
        "E-WRBY": "I contadini avevano arato dalla terra.",
        "IE-WRBY": "La terra aveva arato dai contadini.",
        "E-SI": "I contadini si erano arati da lunedì a sabato.",
        "IE-SI": "La terra si era arata da lunedì a sabato.",
    }),
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_fixed_seed_type_i_instance_realises_the_template(name):
    phenomenon, language = name.split("_")[:2]
    row = gen(name, size=20)["test"].records[0]
    pinned = PINNED[name]
    assert row["lemma"] == pinned["lemma"]
    assert row["context"] == pinned["context"]
    assert dict(zip(row["answer_labels"], row["answers"])) == pinned["answers"]
    # the context realises the template's patterns in order: transitive with p-NP, with by-NP,
    # full passive with p-NP, with by-NP, short passive with p-NP, with by-NP, intransitive with p-NP
    assert structures(row["context_patterns"]) == TRANSITIVE + [SEVENTH[phenomenon, language]]
    frames = [rules.split_pattern(p)[1] for p in row["context_patterns"]]
    assert frames[0] == frames[1] and frames[2] == frames[3] and frames[4] == frames[5]
    assert len({frames[0], frames[2], frames[4], frames[6]}) == 4
    # the gold is the figure's correct answer, in the frame of sentence 7
    gold = row["label"]
    assert row["answer_labels"][gold] == "Correct" and row["answer_error_classes"][gold] == "CORRECT"
    assert row["answer_patterns"][gold] == f"{GOLD[phenomenon, language]} [{frames[6]}]"


# 002 Figs. 8 and 11 (labels), 000 Fig. 6 and appendix Table 3 (error classes)
FIGURE = {
    "cos": {"NP-Theme ActiveV by-NP": ("Correct", "CORRECT"), "NP-Agent ActiveV by-NP": ("I-INT", "GRAMMAR"),
            "NP-Theme PassiveV by-NP-Agent": ("ER-PASS", "SEQUENCE"),
            "NP-Agent PassiveV by-NP-Theme": ("IER-PASS", "SEQUENCE"),
            "NP-Theme ActiveV NP-Agent": ("R-TRANS", "SEQUENCE"), "NP-Agent ActiveV NP-Theme": ("IR-TRANS", "SEQUENCE"),
            "NP-Theme ActiveV by-NP-Agent": ("E-WRBY", "GRAMMAR"),
            "NP-Agent ActiveV by-NP-Theme": ("IE-WRBY", "GRAMMAR")},
    "od": {"NP-Theme ActiveV by-NP": ("I-INT", "GRAMMAR"), "NP-Agent ActiveV by-NP": ("Correct", "CORRECT"),
           "NP-Theme PassiveV by-NP-Agent": ("IER-PASS", "SEQUENCE"),
           "NP-Agent PassiveV by-NP-Theme": ("ER-PASS", "SEQUENCE"),
           "NP-Theme ActiveV NP-Agent": ("IR-TRANS", "SEQUENCE"), "NP-Agent ActiveV NP-Theme": ("R-TRANS", "SEQUENCE"),
           "NP-Theme ActiveV by-NP-Agent": ("IE-WRBY", "GRAMMAR"),
           "NP-Agent ActiveV by-NP-Theme": ("E-WRBY", "GRAMMAR")},
}
# Italian: the COS intransitive keeps "si" (gold and I-INT), the extra pair flips it
FIGURE_IT = {
    "cos": {"NP-Theme si ActiveV by-NP": ("Correct", "CORRECT"), "NP-Agent si ActiveV by-NP": ("I-INT", "GRAMMAR"),
            "NP-Theme ActiveV by-NP": ("E-SI", "GRAMMAR"), "NP-Agent ActiveV by-NP": ("IE-SI", "GRAMMAR")},
    "od": {"NP-Agent ActiveV by-NP": ("Correct", "CORRECT"), "NP-Theme ActiveV by-NP": ("I-INT", "GRAMMAR"),
           "NP-Agent si ActiveV by-NP": ("E-SI", "GRAMMAR"), "NP-Theme si ActiveV by-NP": ("IE-SI", "GRAMMAR")},
}


@pytest.mark.parametrize("name", ["cos_en_typeII", "od_en_typeIII", "cos_it_typeII", "od_it_typeIII"])
def test_answer_sets_follow_the_figures(name):
    phenomenon, language = name.split("_")[:2]
    expected = dict(FIGURE[phenomenon])
    if language == "it":
        for pattern in ("NP-Theme ActiveV by-NP", "NP-Agent ActiveV by-NP"):
            del expected[pattern]
        expected.update(FIGURE_IT[phenomenon])
    for row in gen(name)["train"].records[:20]:
        got = {structures([p])[0]: (lab, cls) for p, lab, cls in
               zip(row["answer_patterns"], row["answer_labels"], row["answer_error_classes"])}
        assert got == expected
        assert len(row["answers"]) == (10 if language == "it" else 8)


@pytest.mark.parametrize("language", ["en", "it"])
def test_cos_and_od_share_one_answer_set_with_labels_swapped(language):
    cos, od = registry.generator("cos", language), registry.generator("od", language)
    cos_steps = {a.step: a.label for a in cos.answer_sets[False]}
    od_steps = {a.step: a.label for a in od.answer_sets[False]}
    assert set(cos_steps) == set(od_steps)
    swapped = {"Correct": "I-INT", "I-INT": "Correct", "ER-PASS": "IER-PASS", "IER-PASS": "ER-PASS",
               "R-TRANS": "IR-TRANS", "IR-TRANS": "R-TRANS", "E-WRBY": "IE-WRBY", "IE-WRBY": "E-WRBY"}
    for step, label in cos_steps.items():
        if label in swapped and language == "en":
            assert od_steps[step] == swapped[label]


# --- every config: validator, twins, balance, determinism ---------------------------------------

@pytest.mark.parametrize("name", CONFIGS)
def test_every_config_is_valid(name):
    out = gen(name)
    spec = registry.get_spec(name)
    assert {s: len(o.records) for s, o in out.items()} == {"train": 54, "test": 6}
    for split in out.values():
        assert not split.rejected
        report = validate_rows(split.records, spec)
        assert not any(report["failures"].values()), report
    assert not {r["lemma"] for r in out["train"].records} & {r["lemma"] for r in out["test"].records}


def test_config_names_and_default_sizes():
    assert len(CONFIGS) == 2 * 2 * 3 * 2
    assert "cos_en_typeI" in CONFIGS and "od_it_typeIII_balanced" in CONFIGS
    for name in ("cos_en_typeI", "od_it_typeIII"):
        spec = registry.get_spec(name)
        assert registry.generator(spec.phenomenon, spec.language).default_size(spec) == 3000


def test_same_seed_same_rows_and_balanced_twin_shares_contexts():
    a, b = gen("od_it_typeII"), generate(registry.get_spec("od_it_typeII"), Options(size=60), progress=False)
    assert a["train"].records == b["train"].records
    assert gen("od_it_typeII", seed=7)["train"].records != a["train"].records
    twin = gen("od_it_typeII_balanced")
    assert [r["context"] for r in twin["train"].records] == [r["context"] for r in a["train"].records]
    row = twin["train"].records[0]
    assert sorted(row["answer_labels"]) == sorted(["Correct", "FRAME", "I-INT", "FRAME+I-INT", "E-SI", "FRAME+E-SI",
                                                   "IE-SI", "FRAME+IE-SI"])
    assert row["answer_error_classes"].count("GRAMMAR") == 6


@pytest.mark.parametrize("name", ["cos_en_typeI_balanced", "od_it_typeIII_balanced"])
def test_balanced_answer_sets_leave_answer_only_baselines_at_chance(name):
    out = gen(name, size=1500)
    report = audit_rows(out["train"].records, out["test"].records, registry.get_spec(name).iso)
    assert report["chance_wellformed"] == 0.5
    for baseline, result in report["baselines"].items():
        assert not result["above_chance"], (baseline, result)


# --- Italian morphology ---------------------------------------------------------------------------

ENDING = {("m", "sg"): "o", ("m", "pl"): "i", ("f", "sg"): "a", ("f", "pl"): "e"}
ARTICLE = re.compile(r"^(?:il|lo|la|i|gli|le|l')\s*", re.I)


@pytest.mark.parametrize("name", ["cos_it_typeI", "cos_it_typeII", "cos_it_typeIII",
                                  "od_it_typeI", "od_it_typeII", "od_it_typeIII_balanced"])
def test_italian_participle_agrees_with_the_subject_in_every_passive(name):
    """Every passive (viene sciolta, sono stati sciolti, deve essere sciolta) and every compound
    si-form (si è sciolta) of the contexts agrees in gender and number with its subject."""
    nouns = lexicon.load("it", name.split("_")[0])["noun_info"]
    checked = 0
    for split in gen(name).values():
        for row in split.records:
            for chunks, pattern in zip(row["context_chunks"], row["context_patterns"]):
                if not ("PassiveV" in pattern or " si " in pattern):
                    continue
                subject, verb_group = chunks[0], chunks[1].split()
                noun = nouns[ARTICLE.sub("", subject)]
                end = ENDING[noun.gender, noun.number]
                if "PassiveV" in pattern or verb_group[1] in ("è", "sono", "era", "erano"):
                    assert verb_group[-1].endswith(end), (subject, chunks[1])
                    checked += 1
                if len(verb_group) > 2 and verb_group[-2].startswith("stat"):
                    assert verb_group[-2] == "stat" + end, (subject, chunks[1])
    assert checked > 50


def test_italian_candidates_agree_too():
    """ER-PASS / IER-PASS / I-INT agree with their own subject (the swapped argument)."""
    g = registry.generator("cos", "it")
    mat = g._random_material("sciogliere", __import__("random").Random(0))._replace(agent="cuoca", theme="candele")
    by_label = {a.label: g.realiser(mat, a.step, "passato_prossimo").text for a in g.answer_sets[False]}
    assert by_label["ER-PASS"] == "Le candele sono state sciolte dalla cuoca."
    assert by_label["IER-PASS"] == "La cuoca è stata sciolta dalle candele."
    assert by_label["Correct"].startswith("Le candele si sono sciolte ")
    assert by_label["I-INT"].startswith("La cuoca si è sciolta ")


def test_italian_verb_groups():
    forms = {"infinito": "rompere", "participio": "rotto", "presente": ["rompe", "rompono"],
             "imperfetto": ["rompeva", "rompevano"], "passato_remoto": ["ruppe", "ruppero"],
             "futuro": ["romperà", "romperanno"]}
    vg = verbs_it.verb_group
    assert vg(forms, "presente", "passive", "pl", "f") == "vengono rotte"
    assert vg(forms, "passato_remoto", "passive", "sg", "f") == "fu rotta"
    assert vg(forms, "trapassato_prossimo", "passive", "pl", "m") == "erano stati rotti"
    assert vg(forms, "dovere", "passive", "sg", "f") == "deve essere rotta"
    assert vg(forms, "potere", "active", "pl", "m", si=True) == "si possono rompere"
    assert vg(forms, "passato_prossimo", "active", "sg", "f", si=True) == "si è rotta"
    assert vg(forms, "passato_prossimo", "active", "sg", "f") == "ha rotto"
    with pytest.raises(ValueError, match="does not end in -o"):
        verbs_it.agree("rotta", "m", "pl")


def test_english_verb_groups():
    forms = {"base": "break", "third": "breaks", "past": "broke", "participle": "broken"}
    vg = verbs_en.verb_group
    assert vg(forms, "present", "active", "sg") == "breaks"
    assert vg(forms, "present", "passive", "pl") == "are broken"
    assert vg(forms, "past", "passive", "pl") == "were broken"
    assert vg(forms, "must have", "passive", "sg") == "must have been broken"
    assert vg(forms, "pluperfect", "active", "pl") == "had broken"
    with pytest.raises(ValueError, match="no reflexive-like marker"):
        vg(forms, "past", "active", "sg", si=True)


needs_hunspell = pytest.mark.skipif(shutil.which("hunspell") is None, reason="hunspell not installed")


@needs_hunspell
@pytest.mark.parametrize("language", ["en", "it"])
def test_every_generated_word_form_is_a_real_word(language):
    """Articles, articulated prepositions, auxiliaries and agreed participles are real words."""
    words = set()
    for name in CONFIGS:
        if f"_{language}_" not in name or name.endswith("balanced"):
            continue
        for split in gen(name).values():
            for row in split.records:
                for sentence in row["context"] + row["answers"]:
                    words.update(re.findall(r"[^\W\d_]+", sentence))
    assert len(words) > 300
    assert rejected(words, language) - allowlist().get(language, set()) == set()


# --- lexicon errors and sizes ---------------------------------------------------------------------

def _broken_lexicon(tmp_path, edit, name="en_cos.yaml"):
    data = yaml.safe_load(lexicon.path_for(name[:2], name[3:-5]).read_text(encoding="utf-8"))
    edit(data)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    load_yaml.cache_clear()
    with pytest.raises(LexiconError) as err:
        lexicon.check(load_yaml(path), path)
    assert str(path) in str(err.value) and err.value.line
    return str(err.value)


def test_lexicon_errors_name_file_line_and_entry(tmp_path):
    msg = _broken_lexicon(tmp_path, lambda d: d["verbs"][2].pop("forms"))
    assert "verb 'blacken'" in msg and "missing field 'forms'" in msg
    msg = _broken_lexicon(tmp_path, lambda d: d["verbs"][0]["agents"].append("flibbertigibbet"))
    assert "'flibbertigibbet' has no entry under 'nouns'" in msg
    msg = _broken_lexicon(tmp_path, lambda d: d["verbs"][0].update(not_with=["yesterday"]))
    assert "unknown frame 'yesterday'" in msg
    msg = _broken_lexicon(tmp_path, lambda d: d["nouns"]["sg"].append("zebra"))
    assert "zebra not used by any verb" in msg
    msg = _broken_lexicon(tmp_path, lambda d: d["verbs"][0]["forms"].update(participio="rotta"), name="it_cos.yaml")
    assert "must be the masculine singular" in msg
    msg = _broken_lexicon(tmp_path, lambda d: d["verbs"][1]["forms"].update(presente=["rompe"]), name="it_cos.yaml")
    assert "3rd person singular and plural" in msg


def test_impossible_sizes_fail_clearly(monkeypatch):
    spec = registry.get_spec("cos_en_typeI")
    g = registry.generator("cos", "en")
    rng = __import__("random").Random(0)
    with pytest.raises(ImpossibleSize, match="no verbs"):
        g.plan(spec, [], 10, rng)
    plan = g._plan_type1(["melt"], rng)
    while plan is None:
        plan = g._plan_type1(["melt"], rng)
    monkeypatch.setattr("builders.base.MAX_MISSES", 30)
    monkeypatch.setattr(g, "_plan_type1", lambda lemmas, rng: plan)
    with pytest.raises(ImpossibleSize, match="found only 1 distinct instances of the 5 asked"):
        g.plan(spec, ["melt"], 5, __import__("random").Random(1))


@pytest.mark.parametrize("name", ["cos_it_typeIII", "od_en_typeII"])
def test_planning_stems_equal_the_validators_stems(name):
    """Plans are checked on the union of the phrases' stems; it must equal the sentence's stems."""
    from builders import morphology

    spec = registry.get_spec(name)
    g = registry.generator(spec.phenomenon, spec.language)
    plans = g.plan(spec, g.lemmas(spec), 30, __import__("random").Random(2))
    for materials, frames, _ in plans:
        for i in range(7):
            sentence = g.realiser(materials[i], g.steps[i], frames[i // 2])
            assert g.realiser.stems(materials[i], g.steps[i], frames[i // 2]) == \
                morphology.content_stems(sentence.text, spec.language)
