"""COS and OD: fixed-seed instances, the class each candidate claims for its lemma (one test per
fixed defect), Italian and English verb groups, lexicon facts, the balanced audit.

Generic properties (sizes, validator, shuffling, twins) are tests/test_configs.py's.
"""

import re
import shutil
from types import SimpleNamespace

import pytest
import yaml

from blm_datasets.audit import audit_rows
from builders import registry
from builders.base import Matrix
from builders.cos_od import lexicon, rules
from builders.cos_od.realise import Material
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


def candidates(phenomenon, language, verb, agent, theme, bynp, frame, lexical_type="I", balanced=False):
    """label -> (sentence, class) of the answer set for these words, the answer pair in ``frame``."""
    g = registry.generator(phenomenon, language)
    mat = Material(verb, agent, theme, g.lex["verbs_by_lemma"][verb]["p_nps"][0].text, bynp)
    steps = tuple(g.planner.step(i, frame) for i in range(8))
    other = next(f for f in g.verb_morph.FRAMES if f != frame)
    matrix = Matrix(phenomenon, steps, (mat,) * 8, verb, g.facts(lexical_type, mat, other))
    return {a.label: (g.sentence(mat, a.step, phenomenon).text, a.error_class) for a in g.answers(matrix, balanced)}


# --- fixed-seed instances, one per verb class and language ------------------------------------

PINNED = {  # seed 42, --size 20, first test instance: the contexts of the paper's template, true classes
    "cos_en_typeI": dict(lemma="expand", context=[
        "The manager can expand the business in a few months.",
        "The manager can expand the business by a third.",
        "The business must have been expanded by the manager in a few months.",
        "The business must have been expanded by the manager by a third.",
        "The business had been expanded in a few months.",
        "The business had been expanded by a third.",
        "The business expanded in a few months.",
    ], answers={
        "Correct": ("The business expanded by a third.", "CORRECT"),
        "ER-PASS": ("The business was expanded by the manager.", "SEQUENCE"),
        "IER-PASS": ("The manager was expanded by the business.", "GRAMMAR"),
        "R-TRANS": ("The business expanded the manager.", "GRAMMAR"),
        "IR-TRANS": ("The manager expanded the business.", "SEQUENCE"),
        "E-WRBY": ("The business expanded by the manager.", "GRAMMAR"),
        "IE-WRBY": ("The manager expanded by the business.", "GRAMMAR"),
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
        "Correct": ("The maid polished by hand.", "CORRECT"),
        "I-INT": ("The silver polished by hand.", "GRAMMAR"),
        "ER-PASS": ("The maid was polished by the silver.", "GRAMMAR"),
        "IER-PASS": ("The silver was polished by the maid.", "SEQUENCE"),
        "R-TRANS": ("The maid polished the silver.", "SEQUENCE"),
        "IR-TRANS": ("The silver polished the maid.", "GRAMMAR"),
        "E-WRBY": ("The maid polished by the silver.", "GRAMMAR"),
        "IE-WRBY": ("The silver polished by the maid.", "GRAMMAR"),
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
        "Correct": ("Il pesce si era scongelato dai bordi.", "CORRECT"),
        # I-INT ('La cuoca si era scongelata dai bordi.', GRAMMAR before) is not generated: a person who
        # si scongela needs a trigger, marginal as in COS+ (issue 25, tests/test_cross_package.py)
        "ER-PASS": ("Il pesce era stato scongelato dalla cuoca.", "SEQUENCE"),
        "IER-PASS": ("La cuoca era stata scongelata dal pesce.", "GRAMMAR"),
        "R-TRANS": ("Il pesce aveva scongelato la cuoca.", "GRAMMAR"),
        "IR-TRANS": ("La cuoca aveva scongelato il pesce.", "SEQUENCE"),
        "IE-WRBY": ("La cuoca aveva scongelato dal pesce.", "GRAMMAR"),
        "IE-SI": ("La cuoca aveva scongelato dai bordi.", "GRAMMAR"),
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
        "Correct": ("I contadini avevano arato da lunedì a sabato.", "CORRECT"),
        "I-INT": ("La terra aveva arato da lunedì a sabato.", "GRAMMAR"),
        "ER-PASS": ("I contadini erano stati arati dalla terra.", "GRAMMAR"),
        "IER-PASS": ("La terra era stata arata dai contadini.", "SEQUENCE"),
        "R-TRANS": ("I contadini avevano arato la terra.", "SEQUENCE"),
        "IR-TRANS": ("La terra aveva arato i contadini.", "GRAMMAR"),
        "E-WRBY": ("I contadini avevano arato dalla terra.", "GRAMMAR"),
        "IE-WRBY": ("La terra aveva arato dai contadini.", "GRAMMAR"),
        "E-SI": ("I contadini si erano arati da lunedì a sabato.", "GRAMMAR"),
    }),
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_fixed_seed_instance(name):
    row = gen(name, size=20)["test"].records[0]
    pinned = PINNED[name]
    assert row["lemma"] == pinned["lemma"]
    assert row["context"] == pinned["context"]
    got = {lab: (a, cls) for a, lab, cls in zip(row["answers"], row["answer_labels"], row["answer_error_classes"])}
    assert got == pinned["answers"]
    frames = [rules.split_pattern(p)[1] for p in row["context_patterns"]]
    assert frames[0] == frames[1] and frames[2] == frames[3] and frames[4] == frames[5]
    assert len({frames[0], frames[2], frames[4], frames[6]}) == 4
    assert rules.split_pattern(row["answer_patterns"][row["label"]])[1] == frames[6]


def test_cos_and_od_share_the_sentences_with_labels_swapped():
    """002 Figs. 8 and 11 (English): the same eight sentences, the COS gold is the OD I-INT and so on."""
    swap = {"Correct": "I-INT", "I-INT": "Correct", "ER-PASS": "IER-PASS", "IER-PASS": "ER-PASS",
            "R-TRANS": "IR-TRANS", "IR-TRANS": "R-TRANS", "E-WRBY": "IE-WRBY", "IE-WRBY": "E-WRBY"}

    def labelled_steps(g):
        matrix = Matrix(g.phenomenon, g.steps, (), "", SimpleNamespace(has_si=g.has_si, other_frame=""))
        out = {g.steps[7]: "Correct"}
        for decl in g.template.answers.paper:
            step = g.steps[7]
            for ref in decl.rules:
                step = g.rules[ref.name].corrupt(step, matrix)
            out.setdefault(step, decl.label or g.rules[decl.rules[0].name].label)
        return out

    cos, od = labelled_steps(registry.generator("cos", "en")), labelled_steps(registry.generator("od", "en"))
    assert len(cos) == 8 and set(cos) == set(od)
    assert {step: swap[label] for step, label in cos.items()} == od


# --- one test per label claim that used to be false ---------------------------------------------

def test_si_passivante_is_grammatical_where_it_reads_generic():
    """od_it IE-SI: 'I panini si mangiano da mattina a sera.' was GRAMMAR in every instance. In a
    perfective past a preverbal definite subject also reads 'did it to itself' (second review:
    'La statua si è scolpita …', 3,267 of 8,666 IE-SI SEQUENCE candidates at default size): marginal,
    not generated; the present, imperfect, future and modals stay SEQUENCE."""
    got = candidates("od", "it", "mangiare", "ospiti", "panini", "da mattina a sera", "presente")
    assert got["IE-SI"] == ("I panini si mangiano da mattina a sera.", "SEQUENCE")
    assert got["E-SI"] == ("Gli ospiti si mangiano da mattina a sera.", "GRAMMAR")
    assert candidates("od", "it", "mungere", "contadini", "pecore", "dall'alba al tramonto", "imperfetto")["IE-SI"] == \
        ("Le pecore si mungevano dall'alba al tramonto.", "SEQUENCE")
    for frame in ("passato_remoto", "passato_prossimo", "trapassato_prossimo"):
        got = candidates("od", "it", "scolpire", "scultrice", "statua", "da mattina a sera", frame)
        assert "IE-SI" not in got and got["IER-PASS"][1] == "SEQUENCE"


def test_optional_si_gives_no_second_answer():
    """cos_it E-SI: 'La foto rimpicciolisce da un angolo.' is fine Italian: not generated; where si
    is obligatory the bare form stays GRAMMAR. 'Le patate friggevano dalla nonna' ('at grandma's')
    is a second answer too."""
    got = candidates("cos", "it", "rimpicciolire", "fotografo", "foto", "da un angolo", "presente")
    assert got["Correct"][0] == "La foto si rimpicciolisce da un angolo."
    assert "E-SI" not in got and "E-WRBY" not in got
    got = candidates("cos", "it", "friggere", "nonna", "patate", "da un lato", "imperfetto")
    assert "E-SI" not in got and "E-WRBY" not in got
    assert got["IE-SI"] == ("La nonna friggeva da un lato.", "SEQUENCE")   # object drop: grandma was frying
    got = candidates("cos", "it", "sciogliere", "cuoco", "burro", "dai bordi", "presente")
    assert got["E-SI"] == ("Il burro scioglie dai bordi.", "GRAMMAR")
    assert got["E-WRBY"] == ("Il burro scioglie dal cuoco.", "GRAMMAR")


def test_natural_patient_intransitive_is_not_grammar():
    """'The twins will nurse by the window.' was GRAMMAR: babies nurse (twins are now babies, which
    cannot be read as adults who nurse someone). Off the pattern in type I, where the context shows
    the babies as the nursed; a second valid answer in types II and III, so not generated there."""
    assert candidates("od", "en", "nurse", "mother", "babies", "by the window", "future")["I-INT"] == \
        ("The babies will nurse by the window.", "SEQUENCE")
    for lexical_type in ("II", "III"):
        assert "I-INT" not in candidates("od", "en", "nurse", "mother", "babies", "by the window", "future",
                                         lexical_type)


def test_undergoer_intransitive_needs_no_agent_oriented_by_phrase():
    assert candidates("od", "en", "play", "pianist", "waltz", "by candlelight", "past")["I-INT"] == \
        ("The waltz played by candlelight.", "SEQUENCE")
    assert candidates("od", "en", "play", "pianist", "waltz", "by heart", "past")["I-INT"] == \
        ("The waltz played by heart.", "GRAMMAR")


def test_role_swaps_are_classed_by_the_verb():
    """R-TRANS / IER-PASS (COS) and IR-TRANS / ER-PASS (OD) were SEQUENCE whatever the words."""
    melt = candidates("cos", "en", "melt", "chef", "butter", "by noon", "past")
    assert melt["R-TRANS"] == ("The butter melted the chef.", "GRAMMAR")
    assert melt["IER-PASS"] == ("The chef was melted by the butter.", "GRAMMAR")
    assert melt["IR-TRANS"] == ("The chef melted the butter.", "SEQUENCE")
    improve = candidates("cos", "en", "improve", "coach", "team", "by spring", "past")
    assert improve["R-TRANS"] == ("The team improved the coach.", "SEQUENCE")
    assert improve["I-INT"] == ("The coach improved by spring.", "SEQUENCE")   # the coach got better
    assert "I-INT" not in candidates("cos", "en", "improve", "coach", "team", "by spring", "past", "III")
    polish = candidates("od", "en", "polish", "maid", "silver", "by hand", "past")
    assert polish["ER-PASS"] == ("The maid was polished by the silver.", "GRAMMAR")
    assert candidates("cos", "it", "migliorare", "allenatore", "squadra", "da una partita all'altra",
                      "passato_remoto")["R-TRANS"] == ("La squadra migliorò l'allenatore.", "SEQUENCE")


def test_object_drop_use_of_a_cos_verb_is_well_formed():
    assert candidates("cos", "en", "bake", "bakers", "bread", "by noon", "past")["I-INT"] == \
        ("The bakers baked by noon.", "SEQUENCE")


def test_a_by_phrase_that_reads_as_a_place_is_no_error():
    """'The old man fished by the lake.' and 'Gli studenti studiavano dagli appunti.' are valid."""
    assert "E-WRBY" not in candidates("od", "en", "fish", "old man", "lake", "by boat", "past")
    got = candidates("od", "it", "studiare", "studenti", "appunti", "da mattina a sera", "imperfetto")
    assert "E-WRBY" not in got
    assert candidates("od", "it", "studiare", "studenti", "regole", "da mattina a sera", "imperfetto")["E-WRBY"] == \
        ("Gli studenti studiavano dalle regole.", "GRAMMAR")


def test_italian_reflexive_of_an_od_verb_is_well_formed():
    """od_it E-SI: 'La domestica si lavava' (washed herself) was GRAMMAR."""
    assert candidates("od", "it", "lavare", "domestica", "piatti", "da mattina a sera", "imperfetto")["E-SI"] == \
        ("La domestica si lavava da mattina a sera.", "SEQUENCE")


def test_balanced_sets_keep_only_the_frame_well_formed():
    """A well-formed role swap or si flip is never the gold, so it would point answer-only models
    at the gold: the balanced set keeps Correct, FRAME and GRAMMAR candidates only."""
    got = candidates("od", "it", "mangiare", "ospiti", "panini", "da mattina a sera", "passato_remoto", balanced=True)
    assert {lab: cls for lab, (_, cls) in got.items()} == {
        "Correct": "CORRECT", "FRAME": "SEQUENCE", "I-INT": "GRAMMAR", "FRAME+I-INT": "GRAMMAR",
        "E-SI": "GRAMMAR", "FRAME+E-SI": "GRAMMAR"}
    got = candidates("cos", "en", "improve", "coach", "team", "by spring", "past", balanced=True)
    assert set(got) == {"Correct", "FRAME"}


@pytest.mark.parametrize("name", ["cos_en_typeI_balanced", "od_it_typeIII_balanced"])
def test_balanced_answer_sets_leave_answer_only_baselines_at_chance(name):
    out = gen(name, size=1000)
    report = audit_rows(out["train"].records, out["test"].records, registry.get_spec(name).iso)
    assert report["chance_wellformed"] == 0.5
    for baseline, result in report["baselines"].items():
        assert not result["above_chance"], (baseline, result)


# --- second review (native speakers, README "Review"): one test per finding ---------------------

def test_doubtful_intransitives_of_a_cos_agent_are_not_generated():
    """en I-INT was SEQUENCE for corrode, fry, harmonize (The salt had corroded by winter, The cook
    must fry by evening, The conductor can harmonize by degrees) and GRAMMAR for expand and defrost
    (The owners had expanded by winter, The chef had defrosted by lunchtime): all marginal."""
    for verb, agent, theme, bynp, frame in [("corrode", "salt", "pipe", "by winter", "pluperfect"),
                                            ("fry", "cook", "eggs", "by evening", "must"),
                                            ("harmonize", "conductor", "voices", "by degrees", "can"),
                                            ("expand", "owners", "business", "by winter", "pluperfect"),
                                            ("defrost", "chef", "meat", "by lunchtime", "pluperfect")]:
        got = candidates("cos", "en", verb, agent, theme, bynp, frame)
        assert "I-INT" not in got and got["R-TRANS"][1] == "GRAMMAR", verb
    assert "singers" not in lexicon.load("en", "cos")["verbs_by_lemma"]["harmonize"]["themes"]


def test_purify_is_replaced_by_a_verb_with_a_natural_intransitive():
    """'The rainwater had purified by noon.' was a gold answer."""
    verbs = lexicon.load("en", "cos")["verbs_by_lemma"]
    assert "purify" not in verbs and len(verbs) == 30
    assert candidates("cos", "en", "dissolve", "chemist", "tablets", "by noon", "pluperfect")["Correct"] == \
        ("The tablets had dissolved by noon.", "CORRECT")


def test_by_accident_and_by_chance_never_go_with_the_present():
    """'The tile chips by accident.', 'The bowl is chipped by chance.' (a state): 461 candidates
    before, none now."""
    shown = [(s, rules.split_pattern(p)[1]) for row in gen("cos_en_typeI", size=300)["train"].records
             for s, p in zip(row["context"] + row["answers"], row["context_patterns"] + row["answer_patterns"])
             if " by accident" in s or " by chance" in s]
    assert len(shown) > 100 and {f for _, f in shown} >= {"past", "can"}
    assert [s for s, f in shown if f == "present"] == []


def test_by_phrases_with_a_place_or_according_to_reading_make_no_claim():
    """'The welder must bend by the pipe.' (stooping beside it), 'The writer should write by the
    letter.' (the idiom) were GRAMMAR."""
    assert "IE-WRBY" not in candidates("cos", "en", "bend", "welder", "pipe", "by degrees", "must")
    assert "E-WRBY" not in candidates("od", "en", "write", "writer", "letter", "by hand", "should")
    assert "E-WRBY" not in candidates("od", "en", "sculpt", "apprentice", "angel", "by hand", "future")
    assert candidates("od", "en", "write", "writer", "essay", "by hand", "should")["E-WRBY"] == \
        ("The writer should write by the essay.", "GRAMMAR")


def test_nurse_has_no_nanny():
    """'The nanny nursed by candlelight.' was a gold answer (nursing here is breastfeeding)."""
    agents = lexicon.load("en", "od")["verbs_by_lemma"]["nurse"]["agents"]
    assert "nanny" not in agents and "mothers" in agents


def test_a_hot_soup_warms_a_person():
    """cos_it riscaldare R-TRANS / IER-PASS were GRAMMAR (570 candidates); COS+ lists these
    liquids as person_causers of riscaldare."""
    got = candidates("cos", "it", "riscaldare", "nonna", "minestra", "da sotto", "passato_remoto")
    assert got["R-TRANS"] == ("La minestra riscaldò la nonna.", "SEQUENCE")
    assert got["IER-PASS"] == ("La nonna fu riscaldata dalla minestra.", "SEQUENCE")


@pytest.mark.parametrize("verb, agent, theme, bynp, label", [
    ("chiudere", "bidello", "porta", "da un momento all'altro", "I-INT"),   # si chiude: only 'lock oneself in'
    ("allargare", "tecnici", "strada", "da un lato", "I-INT"),              # spread out, or overdo it
    ("aprire", "portiere", "porta", "da un momento all'altro", "I-INT"),     # opened up (confided)
    ("espandere", "soci", "negozio", "da un anno all'altro", "I-INT"),       # business jargon
    ("sbiancare", "domestica", "tovaglia", "da un lato", "IE-SI"),           # a person who sbianca turns pale
    ("rimpicciolire", "fotografa", "foto", "da un angolo", "IE-SI"),
    ("ingrandire", "tecnico", "foto", "da un angolo", "IE-SI"),
    ("illuminare", "guardiano", "sala", "dall'alto", "IE-SI"),               # shone a light from above
    ("armonizzare", "direttore", "voci", "dall'inizio alla fine", "IE-SI"),
    ("armonizzare", "direttore", "voci", "dall'inizio alla fine", "E-SI"),   # Le voci hanno armonizzato: si optional
    ("scongelare", "cuoca", "bistecche", "dai bordi", "E-SI"),              # lasciar scongelare: si optional
    ("migliorare", "allenatori", "squadra", "da una partita all'altra", "IER-PASS"),   # stilted
    ("strappare", "cane", "tenda", "dai bordi", "IER-PASS"),                 # torn away from the tent
])
def test_doubtful_italian_cos_candidates_are_not_generated(verb, agent, theme, bynp, label):
    got = candidates("cos", "it", verb, agent, theme, bynp, "passato_prossimo")
    assert label not in got and got["Correct"][1] == "CORRECT"


def test_swapped_passive_fact_leaves_the_transitive_swap_alone():
    """The swapped passive is stilted where the swapped transitive is natural (The coach is improved
    by the athletes; Gli allenatori saranno migliorati dalla squadra): not generated."""
    improve = candidates("cos", "en", "improve", "coach", "athletes", "by spring", "present")
    assert improve["R-TRANS"] == ("The athletes improve the coach.", "SEQUENCE") and "IER-PASS" not in improve
    assert candidates("cos", "it", "strappare", "cane", "tenda", "dai bordi", "passato_remoto")["R-TRANS"] == \
        ("La tenda strappò il cane.", "GRAMMAR")
    assert candidates("cos", "it", "migliorare", "allenatori", "squadra", "da una partita all'altra", "futuro")[
        "R-TRANS"] == ("La squadra migliorerà gli allenatori.", "SEQUENCE")


def test_illuminare_has_no_theme_that_gives_light():
    """'Le vetrine illumineranno il guardiano.' (R-TRANS) and 'Le vetrine avevano illuminato
    dall'interno.' (E-SI) were GRAMMAR, but lit shop windows do light the street."""
    assert "vetrine" not in lexicon.load("it", "cos")["verbs_by_lemma"]["illuminare"]["themes"]
    got = candidates("cos", "it", "illuminare", "guardiano", "chiesa", "dall'alto", "futuro")
    assert got["R-TRANS"] == ("La chiesa illuminerà il guardiano.", "GRAMMAR")
    assert "IE-WRBY" not in got   # Il guardiano illuminerà dalla chiesa: from the church


def test_affilare_is_replaced_by_a_verb_with_an_anticausative():
    """'Il coltello si è affilato da un lato.' was a gold answer: affilare has no anticausative."""
    verbs = lexicon.load("it", "cos")["verbs_by_lemma"]
    assert "affilare" not in verbs and len(verbs) == 30
    got = candidates("cos", "it", "restringere", "domestica", "maglione", "da un lavaggio all'altro",
                     "passato_prossimo")
    assert got["Correct"] == ("Il maglione si è ristretto da un lavaggio all'altro.", "CORRECT")
    assert "I-INT" not in got   # 'La domestica si è ristretta …' (GRAMMAR before): marginal, as in COS+ (issue 25)


def test_stirarsi_is_no_reflexive_of_ironing():
    """od_it E-SI 'Il sarto si stira da mattina a sera.' was SEQUENCE (stirarsi = stretch)."""
    assert "E-SI" not in candidates("od", "it", "stirare", "sarto", "camicie", "da mattina a sera", "presente")
    assert "E-SI" not in candidates("od", "it", "pulire", "operai", "bagno", "da mattina a sera", "presente")
    assert candidates("od", "it", "lavare", "domestica", "piatti", "da mattina a sera", "presente")["E-SI"] == \
        ("La domestica si lava da mattina a sera.", "SEQUENCE")


@pytest.mark.parametrize("verb, agent, theme", [("recitare", "attrice", "monologo"), ("scolpire", "scultrice", "busto"),
                                                ("intagliare", "artigiano", "legno"), ("spazzare", "bidello", "scale")])
def test_da_phrases_with_a_source_or_model_reading_make_no_claim(verb, agent, theme):
    """'L'attrice aveva recitato dal monologo.', 'La scultrice scolpiva dal busto.' were GRAMMAR."""
    bynp = lexicon.load("it", "od")["verbs_by_lemma"][verb]["by_nps"][0].text
    assert "E-WRBY" not in candidates("od", "it", verb, agent, theme, bynp, "imperfetto")


def test_italian_role_swap_of_two_singulars_stays_grammar():
    """Rejected on review: 'La poesia scrisse l'autrice.' could be OVS with contrastive focus, but
    written without intonation it reads SVO, and an object-first clause without a clitic needs that
    focus (unlike German V2, whose object-first order is neutral: COS+ de-mix)."""
    got = candidates("od", "it", "scrivere", "autrice", "poesia", "dall'alba al tramonto", "passato_remoto")
    assert got["IR-TRANS"] == ("La poesia scrisse l'autrice.", "GRAMMAR")


# --- verb groups ----------------------------------------------------------------------------------

ENDING = {("m", "sg"): "o", ("m", "pl"): "i", ("f", "sg"): "a", ("f", "pl"): "e"}
ARTICLE = re.compile(r"^(?:il|lo|la|i|gli|le|l')\s*", re.I)


@pytest.mark.parametrize("name", ["cos_it_typeII", "od_it_typeIII"])
def test_italian_participle_agrees_with_the_subject(name):
    """Every passive and compound si-form agrees with its subject, in the context and the answers."""
    nouns = lexicon.load("it", name.split("_")[0])["noun_info"]
    checked = 0
    for row in gen(name)["train"].records:
        chunked = list(zip(row["context_chunks"], row["context_patterns"]))
        for chunks, pattern in chunked:
            if "PassiveV" not in pattern and " si " not in pattern:
                continue
            noun = nouns[ARTICLE.sub("", chunks[0])]
            end = ENDING[noun.gender, noun.number]
            group = chunks[1].split()
            if "PassiveV" in pattern or group[1] in ("è", "sono", "era", "erano"):
                assert group[-1].endswith(end), (chunks[0], chunks[1])
                checked += 1
    assert checked > 50


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
    assert vg(forms, "present", "passive", "pl") == "are broken"
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
        if f"_{language}_" in name and not name.endswith("balanced"):
            for split in gen(name).values():
                for row in split.records:
                    for sentence in row["context"] + row["answers"]:
                        words.update(re.findall(r"[^\W\d_]+", sentence))
    assert len(words) > 300
    assert rejected(words, language) - allowlist().get(language, set()) == set()


# --- lexicon facts: errors name file and line -------------------------------------------------------

def _broken(tmp_path, edit, name="it_cos.yaml"):
    path = tmp_path / name
    text = lexicon.path_for(name[:2], name[3:-5]).read_text(encoding="utf-8")
    path.write_text(edit(text), encoding="utf-8")
    load_yaml.cache_clear()
    with pytest.raises(LexiconError) as err:
        lexicon.check(load_yaml(path), path)
    assert str(path) in str(err.value) and err.value.line
    return err.value


def test_lexicon_fact_errors_name_file_and_line(tmp_path):
    source = lexicon.path_for("it", "cos").read_text(encoding="utf-8")
    fact = 'si: {optional: "La pentola annerisce sul fuoco."}'
    err = _broken(tmp_path, lambda t: t.replace('    si: {obligatory: "L\'uva si addolcisce al sole."}\n', "", 1))
    assert "verb 'addolcire'" in str(err) and "missing fact 'si'" in str(err)
    err = _broken(tmp_path, lambda t: t.replace(fact, 'si: {sometimes: "La pentola annerisce."}'))
    assert "fact 'si' is 'sometimes'; expected one of obligatory, optional" in str(err)
    assert err.line == next(i for i, line in enumerate(source.splitlines(), 1) if fact in line)
    err = _broken(tmp_path, lambda t: t.replace(fact, "si: optional"))
    assert "fact 'si' must be {value: example sentence}" in str(err)
    err = _broken(tmp_path, lambda t: t.replace('agent_intransitive: {doer: "Il fornaio',
                                                'agent_intransitive: {no: "Il fornaio'))
    assert "is False" in str(err) and "write none" in str(err)
    err = _broken(tmp_path, lambda t: t.replace('agent_intransitive: {marginal: "Il caldo',
                                                'agent_intransitive: {undergoer: "Il caldo'))
    assert "verb 'addolcire'" in str(err) and "needs si: optional" in str(err)
    err = _broken(tmp_path, lambda t: t.replace('swapped_passive: {marginal: "Il cane',
                                                'swapped_passive: {natural: "Il cane'))
    assert "fact 'swapped_passive' is 'natural'; expected one of like_transitive, marginal" in str(err)
    err = _broken(tmp_path, lambda t: t.replace("patient_si_marginal_in: [passato_remoto,",
                                                "patient_si_marginal_in: [ieri, passato_remoto,"), "it_od.yaml")
    assert "patient_si_marginal_in" in str(err) and "unknown frame 'ieri'" in str(err)
    err = _broken(tmp_path, lambda t: t + "patient_si_marginal_in: [passato_remoto]\n")
    assert "applies only where the fact 'patient_si' does, not to it cos" in str(err)
    err = _broken(tmp_path, lambda t: t.replace('agent_intransitive: {doer: "The bakers', 'si: {optional: "The bakers'),
                  "en_cos.yaml")
    assert "fact 'si' does not apply to en cos verbs" in str(err)
    err = _broken(tmp_path, lambda t: t.replace("by_place: [kitchen,", "by_place: [zebra, kitchen,"), "en_od.yaml")
    assert "'zebra' is not a noun of 'nouns'" in str(err)
    err = _broken(tmp_path, lambda t: t.replace("agent_oriented: [by hand,", "agent_oriented: [by magic, by hand,"),
                  "en_od.yaml")
    assert "'by magic' is not a by-NP of any verb" in str(err)


def test_lexicon_schema_errors_name_file_line_and_entry(tmp_path):
    def edit(change, name="en_cos.yaml"):
        def apply(text):
            data = yaml.safe_load(text)
            change(data)
            return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
        return _broken(tmp_path, apply, name)
    assert "verb 'blacken' (verbs.2.forms): missing key" in str(edit(lambda d: d["verbs"][2].pop("forms")))
    assert "'flibbertigibbet' has no entry" in str(edit(lambda d: d["verbs"][0]["agents"].append("flibbertigibbet")))
    assert "unknown frame 'yesterday'" in str(edit(lambda d: d["verbs"][0].update(not_with=["yesterday"])))
    assert "must be the masculine singular" in str(
        edit(lambda d: d["verbs"][0]["forms"].update(participio="rotta"), "it_cos.yaml"))


@pytest.mark.parametrize("old, new, at, message", [
    # a wrong type, an unknown key, too few entries (the schema); a noun that is not in 'nouns' (after it)
    ("    agents: [baker, bakers, chef, pastry chef]", "    agents: baker", "    agents: baker",
     "verb 'bake' (verbs.0.agents): Input should be a valid tuple"),
    ("    themes: [bread, cake, cookies, pie, loaves]", "    themes: [bread, cake, cookies, pie, loaves]\n    objects: [pie]",
     "    objects: [pie]", "verb 'bake' (verbs.0.objects): unknown key; this section takes: lemma, forms, agents, themes"),
    ("    by_nps: [by noon, by lunchtime,\n             by dawn]", "    by_nps: [by noon]", "    by_nps: [by noon]",
     "verb 'bake' (verbs.0.by_nps): Tuple should have at least 2 items after validation, not 1"),
    ("    agents: [baker, bakers, chef, pastry chef]", "    agents: [baker, bakers, chef, pastry cook]", "  - lemma: bake",
     "verb 'bake': agent 'pastry cook' has no entry under 'nouns'"),
])
def test_a_malformed_lexicon_is_one_located_line(tmp_path, old, new, at, message):
    """The schema states shapes, types, keys and sizes; check() the cross-references: either way one line
    ``file:line: entry: reason`` at the offending line, never a traceback."""
    err = _broken(tmp_path, lambda text: text.replace(old, new, 1), "en_cos.yaml")
    text = (tmp_path / "en_cos.yaml").read_text(encoding="utf-8")
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row == at)
    assert str(err).startswith(f"{tmp_path / 'en_cos.yaml'}:{line}: {message}") and "\n" not in str(err)


def test_landmark_themes_and_natural_forces_in_a_by_phrase_make_no_claim():
    """Issue 25: 'The butler had polished by the furniture.' (beside it, as the gold's 'by the window')
    and 'The peaches sweeten by the heat.' / 'The metal will corrode by the salt air.' (a cause) were
    GRAMMAR; a theme that is no landmark keeps its E-WRBY."""
    assert "E-WRBY" not in candidates("od", "en", "polish", "butler", "furniture", "by hand", "pluperfect")
    assert "E-WRBY" not in candidates("od", "en", "milk", "farmer", "cows", "by hand", "past")
    assert candidates("od", "en", "polish", "butler", "silver", "by hand", "pluperfect")["E-WRBY"] == \
        ("The butler had polished by the silver.", "GRAMMAR")
    sweeten = candidates("cos", "en", "sweeten", "heat", "peaches", "by August", "present")
    assert "E-WRBY" not in sweeten and sweeten["Correct"] == ("The peaches sweeten by August.", "CORRECT")
    assert "E-WRBY" not in candidates("cos", "en", "corrode", "salt air", "metal", "by winter", "future")


def test_grafico_is_no_person_and_od_it_has_no_da_phrase_that_reads_as_an_agent():
    """Issue 25: 'Il grafico si rimpicciolirà da un angolo' reads 'the chart'; 'Il vino fu bevuto dal
    bicchiere', 'Il pane fu mangiato dal piatto', 'Le trote furono pescate dalla barca' read the da-phrase
    as the agent of the passive."""
    cos = lexicon.load("it", "cos")["verbs_by_lemma"]
    assert not [v for v, entry in cos.items() if {"grafico", "grafici"} & set(entry["agents"])]
    od = lexicon.load("it", "od")["verbs_by_lemma"]
    phrases = {p.text for entry in od.values() for p in entry["by_nps"]}
    assert not {"dal piatto", "dal bicchiere", "dalla bottiglia", "dalla barca"} & phrases
    texts = [s for split in gen("od_it_typeIII", 300, seed=123).values() for r in split.records
             for s in r["context"] + r["answers"]]
    assert not [s for s in texts if any(p in s for p in ("dal piatto", "dal bicchiere", "dalla barca"))]
    texts = [s for split in gen("cos_it_typeIII", 300, seed=123).values() for r in split.records
             for s in r["context"] + r["answers"]]
    assert not [s for s in texts if "grafic" in s]
    assert candidates("od", "it", "pescare", "pescatore", "trote", "dal molo", "futuro")["Correct"] == \
        ("Il pescatore pescherà dal molo.", "CORRECT")
