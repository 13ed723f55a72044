"""COS+ (000 §4.2): exact instances per language, Fig. 10's cases, the class of every kind of
candidate (decided by its words, the same in T2I and I2T), German agreement and word order,
the balanced audit, lexicon and template errors. Size, validator and twins: tests/test_configs.py."""

import dataclasses

import pytest
import yaml

from blm_datasets.audit import audit_rows
from builders import registry
from builders.base import ConfigSpec
from builders.cosplus import CosPlusGenerator, lexicon, rules
from builders.cosplus.realise import Material, Realiser
from builders.generate import Options, generate
from builders.lexicon import LexiconError, load_yaml
from builders.template import load

# German articles, written out here independently of morphology/de.py
ARTICLE = {("m", "NOM"): "der", ("m", "ACC"): "den", ("f", "NOM"): "die", ("f", "ACC"): "die",
           ("n", "NOM"): "das", ("n", "ACC"): "das"}


def gen(name, size=100):
    return generate(registry.get_spec(name), Options(size=size), progress=False)


def first_test_record(name):
    return gen(name)["test"].records[0]


def by_label(rec):
    return dict(zip(rec["answer_labels"], zip(rec["answers"], rec["answer_error_classes"])))


def answer_set(language, variant, verb, agent, patient, tense="present", balanced=False):
    """{label: (sentence, class)} of a type I matrix built from these words."""
    generator = registry.generator("cosplus", language)
    spec = ConfigSpec("cosplus", language, "I", variant)
    matrix = generator.matrix(spec, (tense, verb, agent, patient))
    return {c.label: (c.sentence.text, c.error_class) for c in generator.candidates(matrix, balanced)}


# --- exact instances (fixed seed), one per language ------------------------------------------

def test_english_t2i_type_i_instance():
    rec = first_test_record("cosplus_en_t2i_typeI")
    assert rec["template"] == "T2I" and rec["lemma"] == "boil" and rec["language"] == "en"
    assert rec["context"] == ["The volunteer boils the onion.", "The volunteer who boils the onion.",
                              "The onion that the volunteer boils.", "The onion that boils."]
    assert rec["context_patterns"] == ["NP-Agent V-pres NP-Patient", "NP-Agent REL V-pres NP-Patient",
                                       "NP-Patient REL NP-Agent V-pres", "NP-Patient REL V-pres"]
    assert by_label(rec) == {"Correct": ("The onion boils.", "CORRECT"), "I-INT": ("The volunteer boils.", "GRAMMAR"),
                             "R-TRANS": ("The onion boils the volunteer.", "GRAMMAR")}  # was SEQUENCE


def test_italian_i2t_type_i_instance_has_si_on_the_intransitive():
    rec = first_test_record("cosplus_it_i2t_typeI")
    assert rec["context"] == ["La granita si scioglie.", "La granita che si scioglie.",
                              "La granita che il commensale scioglie.", "Il commensale che scioglie la granita."]
    assert rec["context_patterns"][:2] == ["NP-Patient si-V-pres", "NP-Patient REL si-V-pres"]
    assert by_label(rec) == {"Correct": ("Il commensale scioglie la granita.", "CORRECT"),
                             # I-INT 'Il commensale si scioglie.' (was SEQUENCE, then GRAMMAR): marginal, not generated
                             "R-TRANS": ("La granita scioglie il commensale.", "GRAMMAR")}


def test_german_case_t2i_type_i_instance():
    rec = first_test_record("cosplus_decase_t2i_typeI")
    assert rec["language"] == "de"
    assert rec["context"] == ["Der Angestellte verbrannte den Brei.", "Der Angestellte, der den Brei verbrannte.",
                              "Der Brei, den der Angestellte verbrannte.", "Der Brei, der verbrannte."]  # was Den Brei
    assert rec["context_patterns"] == [
        "NP-Agent.NOM V-past NP-Patient.ACC", "NP-Agent.NOM REL.NOM NP-Patient.ACC V-past",
        "NP-Patient.NOM REL.ACC NP-Agent.NOM V-past", "NP-Patient.NOM REL.NOM V-past"]
    assert by_label(rec) == {"Correct": ("Der Brei verbrannte.", "CORRECT"),
                             "I-INT": ("Der Angestellte verbrannte.", "SEQUENCE"),
                             "OVS": ("Den Brei verbrannte der Angestellte.", "SEQUENCE")}  # was labelled R-TRANS


def test_german_mix_i2t_type_iii_instance():
    rec = first_test_record("cosplus_demix_i2t_typeIII")
    assert rec["context"] == ["Das Müsli quillt.", "Die Kruste, die zerbröckelt.",
                              "Die Garnele, die die Gastronomin zerkocht.", "Der Maurer, der die Salami reift."]
    assert by_label(rec) == {"Correct": ("Der Pate vergärt den Sekt.", "CORRECT"),
                             "I-INT": ("Der Pate vergärt.", "GRAMMAR"),
                             "R-TRANS": ("Der Sekt vergärt den Paten.", "GRAMMAR")}  # weak masculine


def test_figure_10_case_alternation():
    """000 Fig. 10 (Chef -> Koch): accusative patient in SVO, SagR and the OR's relative pronoun, nominative
    in SpaR, in the gold and, departing from the figure (issue 25; README), in the OR fragment's head: standard
    German 'Der Käse, den der Koch schmilzt.'; the Pa V Ag candidate is OVS with the cases kept."""
    generator = registry.generator("cosplus", "de-case")
    matrix = generator.matrix(ConfigSpec("cosplus", "de-case", "I", "t2i"), ("present", "schmelzen", "Koch", "Käse"))
    assert [s.text for s in generator.context(matrix)] == [
        "Der Koch schmilzt den Käse.", "Der Koch, der den Käse schmilzt.", "Der Käse, den der Koch schmilzt.",
        "Der Käse, der schmilzt."]
    assert answer_set("de-case", "t2i", "schmelzen", "Koch", "Käse") == {
        "Correct": ("Der Käse schmilzt.", "CORRECT"), "I-INT": ("Der Koch schmilzt.", "GRAMMAR"),
        "OVS": ("Den Käse schmilzt der Koch.", "SEQUENCE")}


# --- one class per kind of sentence, decided by its words (the defects) --------------

@pytest.mark.parametrize("variant", ["t2i", "i2t"])
def test_agent_intransitive_has_one_class_in_both_templates(variant):
    """I-INT was GRAMMAR in T2I and SEQUENCE in I2T for every verb; now the verb decides."""
    assert answer_set("en", variant, "melt", "chef", "butter")["I-INT"] == ("The chef melts.", "GRAMMAR")
    assert answer_set("en", variant, "burn", "chef", "toast")["I-INT"] == ("The chef burns.", "SEQUENCE")
    assert answer_set("it", variant, "raffreddare", "cuoco", "brodo", "past")["I-INT"] == \
        ("Il cuoco si raffreddò.", "SEQUENCE")
    assert answer_set("it", variant, "liquefare", "cuoco", "burro")["I-INT"] == ("Il cuoco si liquefà.", "GRAMMAR")
    assert answer_set("it", variant, "indurire", "cuoco", "pane", "past")["I-INT"] == ("Il cuoco si indurì.", "SEQUENCE")
    assert answer_set("de-mix", variant, "reifen", "Junge", "Käse", "past")["I-INT"] == \
        ("Der Junge reifte.", "SEQUENCE")
    assert answer_set("de-mix", variant, "schmelzen", "Koch", "Käse")["I-INT"] == ("Der Koch schmilzt.", "GRAMMAR")


@pytest.mark.parametrize("variant", ["t2i", "i2t"])
def test_role_reversal_has_one_class_in_both_templates(variant):
    """R-TRANS was SEQUENCE in T2I and GRAMMAR in I2T; now the patient (a causer?) decides."""
    assert answer_set("en", variant, "melt", "chef", "butter")["R-TRANS"] == ("The butter melts the chef.", "GRAMMAR")
    assert answer_set("en", variant, "warm", "teenager", "stew", "past")["R-TRANS"] == \
        ("The stew warmed the teenager.", "SEQUENCE")
    assert answer_set("en", variant, "warm", "teenager", "bread", "past")["R-TRANS"] == \
        ("The bread warmed the teenager.", "GRAMMAR")
    assert answer_set("it", variant, "riscaldare", "marinaio", "brodo", "past")["R-TRANS"] == \
        ("Il brodo riscaldò il marinaio.", "SEQUENCE")


def test_german_pa_v_ag_keeps_roles_in_t2i_and_reverses_them_in_i2t():
    """T2I: OVS with the cases kept (Fig. 10), a well-formed transitive; I2T: the roles reversed,
    GRAMMAR where case shows it. Where neither noun shows its case, the sentence reads as a reversal or
    as OVS: not generated in either template."""
    assert answer_set("de-case", "i2t", "schmelzen", "Koch", "Käse")["R-TRANS"] == \
        ("Der Käse schmilzt den Koch.", "GRAMMAR")
    assert "R-TRANS" not in answer_set("de-mix", "i2t", "schmelzen", "Köchin", "Butter")  # was GRAMMAR, then SEQUENCE
    assert answer_set("de-mix", "i2t", "schmelzen", "Koch", "Butter")["R-TRANS"] == \
        ("Die Butter schmilzt den Koch.", "GRAMMAR")
    assert answer_set("de-mix", "t2i", "schmelzen", "Köchin", "Käse")["OVS"] == \
        ("Den Käse schmilzt die Köchin.", "SEQUENCE")
    assert answer_set("de-mix", "t2i", "schmelzen", "Koch", "Butter")["OVS"] == \
        ("Die Butter schmilzt der Koch.", "SEQUENCE")
    assert "OVS" not in answer_set("de-mix", "t2i", "schmelzen", "Köchin", "Butter")  # 'Die Butter schmilzt die Köchin.'


MARGINAL_INTRANSITIVE = [("en", "brown", "chef", "steak"), ("en", "break", "chef", "egg"), ("en", "crumble", "chef", "cake"),
                         ("en", "warm", "chef", "soup"), ("en", "cool", "chef", "soup"), ("en", "defrost", "chef", "fish"),
                         ("it", "sciogliere", "cuoco", "burro"), ("it", "rompere", "cuoco", "uovo"),
                         ("it", "dorare", "cuoco", "pane"), ("it", "restringere", "cuoco", "sugo"),
                         ("it", "scongelare", "cuoco", "pesce"), ("de-case", "trocknen", "Koch", "Schinken"),
                         ("de-case", "schmoren", "Koch", "Braten"), ("de-case", "bräunen", "Koch", "Braten"),
                         ("de-case", "köcheln", "Koch", "Eintopf"), ("de-case", "fermentieren", "Koch", "Kohl"),
                         ("de-case", "zerbrechen", "Koch", "Keks")]


@pytest.mark.parametrize("language,verb,agent,patient", MARGINAL_INTRANSITIVE)
def test_marginal_person_intransitive_is_not_generated(language, verb, agent, patient):
    """'The chef browned.', 'Il cuoco si sciolse.', 'Der Koch bräunte.': odd bare, fine with a trigger
    (the review's finding): no I-INT in either template, paper or balanced; the reversal stays."""
    for variant in ("t2i", "i2t"):
        for balanced in (False, True):
            answers = answer_set(language, variant, verb, agent, patient, "past", balanced)
            assert not any("I-INT" in label for label in answers), answers
        assert len(answer_set(language, variant, verb, agent, patient, "past")) == 2


@pytest.mark.parametrize("language,verb,agent,patient,sentence", [
    ("en", "burn", "chef", "pie", "The pie burned the chef."), ("en", "burn", "chef", "steak", "The steak burned the chef."),
    ("en", "burn", "chef", "bacon", "The bacon burned the chef."), ("en", "warm", "chef", "milk", "The milk warmed the chef."),
    ("en", "warm", "chef", "chocolate", "The chocolate warmed the chef."),
    ("en", "warm", "chef", "polenta", "The polenta warmed the chef."),
    ("de-case", "verbrennen", "Koch", "Karamell", "Der Karamell verbrannte den Koch."),
    ("de-case", "verbrennen", "Koch", "Milchreis", "Der Milchreis verbrannte den Koch."),
    ("de-mix", "verbrennen", "Koch", "Suppe", "Die Suppe verbrannte den Koch.")])
def test_new_person_causer_makes_the_reversal_a_sequence_error(language, verb, agent, patient, sentence):
    assert answer_set(language, "i2t", verb, agent, patient, "past")["R-TRANS"] == (sentence, "SEQUENCE")


def test_person_object_sense_and_marginal_causers_leave_the_reversal_out():
    """seccare 'annoy', ammorbidire, intenerire, ammaccare, burn 'injure with heat': the reversal reads on
    the person-object sense (Il pane seccò il cuoco), marginal; a listed causer stays SEQUENCE."""
    for verb, patient in (("seccare", "pane"), ("ammorbidire", "burro"), ("intenerire", "carne"),
                          ("ammaccare", "pesca")):
        for variant in ("t2i", "i2t"):
            answers = answer_set("it", variant, verb, "cuoco", patient)
            assert "R-TRANS" not in answers and answers["I-INT"][1] == "SEQUENCE", answers
    assert "R-TRANS" not in answer_set("en", "i2t", "burn", "chef", "toast")
    for language, verb, agent, patient in (("it", "indurire", "cuoco", "pane"), ("en", "soften", "chef", "butter"),
                                           ("en", "harden", "chef", "caramel"), ("de-case", "erweichen", "Koch", "Käse"),
                                           ("de-case", "verderben", "Koch", "Fisch")):
        assert "R-TRANS" not in answer_set(language, "i2t", verb, agent, patient), (verb, patient)
    assert answer_set("en", "i2t", "burn", "chef", "soup")["R-TRANS"] == ("The soup burns the chef.", "SEQUENCE")
    assert answer_set("en", "i2t", "melt", "chef", "butter")["R-TRANS"][1] == "GRAMMAR"


def test_german_words_with_no_wrong_candidate_are_never_planned():
    """de-mix bräunen with two nouns that hide their case: I-INT marginal and the reversal (or OVS)
    ambiguous, so the words would leave the gold alone; the planner never draws them."""
    generator = registry.generator("cosplus", "de-mix")
    assert not generator.answerable("i2t", Material("bräunen", "Köchin", "Zwiebel"))
    assert generator.answerable("i2t", Material("bräunen", "Koch", "Zwiebel"))
    assert generator.answerable("t2i", Material("verbrennen", "Köchin", "Zwiebel"))  # I-INT natural
    lex = lexicon.load("de")
    marginal = {lemma for lemma, v in lex.verbs.items() if v.marginal_person_intransitive}
    seen = 0
    for name in ("cosplus_demix_i2t_typeI", "cosplus_demix_t2i_typeIII"):
        for rec in gen(name, 400)["train"].records:
            assert len(rec["answers"]) >= 2
            seen += rec["lemma"] in marginal
    assert seen > 0


def test_german_patients_restricted_on_review():
    """Transitive reifen only for what a trade matures (cheese, ham, wine: not 'reift die Orange');
    kristallisieren for sugars, syrups, honey, salt; erweichen for what warmth or soaking softens;
    no boiling oil or syrup (sieden), no melting marzipan."""
    verbs = lexicon.load("de").verbs
    assert {"Orange", "Apfel", "Banane"}.isdisjoint(verbs["reifen"].patients) and "Käse" in verbs["reifen"].patients
    assert {"Ingwer", "Lutscher", "Eis"}.isdisjoint(verbs["kristallisieren"].patients)
    assert {"Wirsing", "Kohl", "Reis", "Braten"}.isdisjoint(verbs["erweichen"].patients)
    assert {"Öl", "Sirup", "Ahornsirup", "Zucker"}.isdisjoint(verbs["sieden"].patients)
    assert "Marzipan" not in verbs["schmelzen"].patients


def _lexicon_truth(language):
    """Per verb: its I-INT reading, causers, marginal causers and person-object sense, read from the
    YAML here, not via lexicon.py; and each German noun form's gender."""
    raw = yaml.safe_load((lexicon.HERE / "lexicons" / f"{language}.yaml").read_text(encoding="utf-8"))
    genders = {n["sg"]: n["gender"] for n in raw["agents"] + raw["patients"] if isinstance(n, dict)}
    genders.update({n["acc_sg"]: n["gender"] for n in raw["agents"] + raw["patients"]
                    if isinstance(n, dict) and "acc_sg" in n})
    verbs = {}
    for v in raw["verbs"]:
        reading = "natural" if "person_intransitive" in v else "marginal" if "marginal_person_intransitive" in v else None
        verbs[v["lemma"]] = (reading, set(v.get("person_causers", [])), set(v.get("marginal_person_causers", [])),
                             "person_object" in v)
    return verbs, genders


def _starts_with(words, nouns):
    return next((c for c in nouns if words[1:1 + len(c.split())] == c.split()), None)


@pytest.mark.parametrize("name", ["cosplus_en_i2t_typeI", "cosplus_it_i2t_typeIII", "cosplus_demix_i2t_typeI",
                                  "cosplus_decase_t2i_typeIII", "cosplus_demix_t2i_typeIII", "cosplus_en_t2i_typeIII"])
def test_every_candidate_class_follows_the_lexicon(name):
    """Every I-INT / R-TRANS / OVS of a config has the class its words give it, in either template, and
    is absent exactly where its status is marginal (the verb's or causer's fact, or German nouns that
    both hide their case) or where it is a second answer (a natural T2I I-INT in type III: the person
    undergoes the change, as the gold's subject does); every instance keeps at least one wrong candidate."""
    language = "de" if "_de" in name else name.split("_")[1]
    verbs, genders = _lexicon_truth(language)
    for rec in gen(name, 300)["train"].records:
        reading, causers, marginal, person_object = verbs[rec["lemma"]]
        gold = rec["answers"][rec["label"]].rstrip(".").split()
        by_lab = {lab: a.rstrip(".").split() for a, lab in zip(rec["answers"], rec["answer_labels"])}
        agent = patient = None
        if language == "de" and rec["template"] == "I2T":   # main clauses: article + noun (one word)
            agent, patient = gold[1], gold[-1]
        elif language == "de":
            agent, patient = by_lab["I-INT"][1] if "I-INT" in by_lab else by_lab["OVS"][-1], gold[1]
        expected = {"Correct": "CORRECT"}
        second_answer = reading == "natural" and rec["template"] == "T2I" and name.endswith("typeIII")
        if reading != "marginal" and not second_answer:
            expected["I-INT"] = "SEQUENCE" if reading else "GRAMMAR"
        labels = dict(zip(rec["answer_labels"], rec["answer_error_classes"]))
        if language == "de":
            hidden = all(genders[w] != "m" for w in (agent, patient))
            if not hidden and rec["template"] == "T2I":
                expected["OVS"] = "SEQUENCE"
            elif not hidden and patient in causers:
                expected["R-TRANS"] = "SEQUENCE"
            elif not hidden and patient not in marginal and not person_object:
                expected["R-TRANS"] = "GRAMMAR"
        else:
            for text, label in zip(rec["answers"], rec["answer_labels"]):
                if label == "R-TRANS":
                    words = text.rstrip(".").split()
                    if _starts_with(words, causers):
                        expected["R-TRANS"] = "SEQUENCE"
                    elif not (_starts_with(words, marginal) or person_object):
                        expected["R-TRANS"] = "GRAMMAR"
            gold_patient = [w for w in rec["answers"][rec["label"]].rstrip(".").split()]
            if "R-TRANS" not in labels and not person_object:   # absent only for a marginal causer
                assert any(f" {m} " in f" {' '.join(gold_patient)} " for m in marginal), rec["answers"]
        assert labels == expected, (rec["answers"], labels, expected, agent)
        assert len(labels) >= 2


# --- German agreement and word order ----------------------------------------------------------

def _noun_entry(lex, form):
    for pool in (lex.agents, lex.patients):
        for entry in pool.values():
            if form in (entry["sg"], entry.get("acc_sg")):
                return entry
    raise AssertionError(f"{form!r} is no noun form of the lexicon")


@pytest.mark.parametrize("name", ["cosplus_demix_t2i_typeI", "cosplus_demix_i2t_typeIII_balanced",
                                  "cosplus_decase_i2t_typeIII", "cosplus_decase_t2i_typeI_balanced"])
def test_every_german_article_and_relative_pronoun_agrees(name):
    """Gender from the noun's entry, case from the pattern: article, noun form (weak masculines)
    and relative pronoun agree in every context sentence and candidate; verbs of relatives are final;
    de-case has masculine nouns only, so every noun phrase shows its case."""
    lex = lexicon.load("de")
    checked = 0
    for split in gen(name).values():
        for rec in split.records:
            sentences = list(zip(rec["context_chunks"], rec["context_patterns"], rec["context"]))
            for text, pattern in zip(rec["answers"], rec["answer_patterns"]):  # main clauses: NP = 2 words
                words, chunks = text.rstrip(".").split(), []
                for tok in pattern.split():
                    chunks.append(" ".join(words[:2]) if tok.startswith("NP") else words[0])
                    words = words[2:] if tok.startswith("NP") else words[1:]
                sentences.append((chunks, pattern, text))
            for chunks, pattern, text in sentences:
                tokens, head = pattern.split(), None
                if "REL" in pattern:
                    assert tokens[-1].startswith("V-") and ", " in text, text
                for chunk, tok in zip(chunks, tokens):
                    case = tok.rsplit(".", 1)[-1] if "." in tok else None
                    if tok.startswith("NP"):
                        art, form = chunk.split()
                        entry = _noun_entry(lex, form)
                        assert art.lower() == ARTICLE[(entry["gender"], case)], (text, chunk)
                        assert form == (entry["acc_sg"] if case == "ACC" and "acc_sg" in entry else entry["sg"]), text
                        assert "decase" not in name or entry["gender"] == "m", text
                        head = head or entry
                    elif tok.startswith("REL"):
                        assert chunk == ARTICLE[(head["gender"], case)], (text, chunk)
                        checked += 1
    assert checked > 0


def test_weak_masculines_and_strong_intransitives():
    realiser = Realiser(lexicon.load("de"))
    reversed_ = rules.Step("main", "patient", "agent", "present")
    assert realiser(Material("schmelzen", "Student", "Käse"), reversed_).text == "Der Käse schmilzt den Studenten."
    assert realiser(Material("schmoren", "Koch", "Hase"), rules.Step("main", "agent", "patient", "past")).text == \
        "Der Koch schmorte den Hasen."
    ovs = rules.Step("main", "agent", "patient", "present", fronted_object=True)
    assert realiser(Material("schmoren", "Student", "Hase"), ovs).text == "Den Hasen schmort der Student."
    mat = Material("quellen", "Koch", "Reis")
    assert realiser(mat, rules.Step("main", "agent", "patient", "present")).text == "Der Koch quellt den Reis."
    assert realiser(mat, rules.Step("main", "patient", None, "past")).text == "Der Reis quoll."


def test_object_first_needs_case():
    with pytest.raises(ValueError, match="needs case"):
        Realiser(lexicon.load("en"))(Material("melt", "chef", "butter"),
                                     rules.Step("main", "agent", "patient", "present", fronted_object=True))


def test_german_noun_phrases_show_case_only_for_masculines():
    from builders.morphology import de

    assert de.shows_case({"gender": "m", "sg": "Koch"})
    assert not de.shows_case({"gender": "f", "sg": "Butter"}) and not de.shows_case({"gender": "n", "sg": "Eis"})
    assert de.shows_case({"gender": "m", "sg": "Koch"}, cases=("acc", "dat"))


# --- balanced answer sets -------------------------------------------------------------------------

def test_balanced_set_keeps_only_ungrammatical_role_errors():
    """The tense crossed with the GRAMMAR role candidate; where the role candidate is well-formed
    (The chef burns) it is left out, so the well-formed candidates differ in tense only."""
    assert answer_set("en", "t2i", "melt", "chef", "butter", balanced=True) == {
        "Correct": ("The butter melts.", "CORRECT"), "TENSE": ("The butter melted.", "SEQUENCE"),
        "I-INT": ("The chef melts.", "GRAMMAR"), "I-INT+TENSE": ("The chef melted.", "GRAMMAR")}
    assert answer_set("en", "t2i", "burn", "chef", "toast", balanced=True) == {
        "Correct": ("The toast burns.", "CORRECT"), "TENSE": ("The toast burned.", "SEQUENCE")}
    assert set(answer_set("de-mix", "i2t", "schmelzen", "Köchin", "Butter", balanced=True)) == {"Correct", "TENSE"}


def test_tense_candidate_is_never_a_continuation():
    """Every context is in one tense, so a TENSE candidate's pattern is never the next step."""
    for name in ("cosplus_it_t2i_typeIII_balanced", "cosplus_decase_i2t_typeI_balanced"):
        generator = registry.generator("cosplus", registry.get_spec(name).language)
        for rec in gen(name)["test"].records:
            allowed = generator.next_patterns(registry.get_spec(name), rec["template"], rec["context_patterns"])
            tense = "V-pres" if "V-pres" in rec["context_patterns"][0] else "V-past"
            assert all(tense in p for p in rec["context_patterns"])
            for label, pattern in zip(rec["answer_labels"], rec["answer_patterns"]):
                assert (pattern in allowed) == (label == "Correct")
                assert ("TENSE" in label) == (tense not in pattern)


@pytest.mark.parametrize("name", ["cosplus_en_t2i_typeI_balanced", "cosplus_demix_i2t_typeIII_balanced"])
def test_balanced_audit_is_at_chance(name):
    out = gen(name, 600)
    report = audit_rows(out["train"].records, out["test"].records, name.split("_")[1][:2])
    assert report["chance_wellformed"] == 0.5
    for baseline, res in report["baselines"].items():
        assert not res["above_chance"], (baseline, res)


# --- lexicon and template errors ----------------------------------------------------------------

def _raw(language):
    return yaml.safe_load((lexicon.HERE / "lexicons" / f"{language}.yaml").read_text(encoding="utf-8"))


def _parse(tmp_path, data, language="en"):
    path = tmp_path / f"{language}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    load_yaml.cache_clear()
    return lexicon.parse(load_yaml(path), path), path


def _verb(data, lemma):
    return next(v for v in data["verbs"] if v["lemma"] == lemma)


def test_causer_that_is_not_a_patient_names_file_and_line(tmp_path):
    data = _raw("en")
    _verb(data, "warm")["person_causers"] = ["soup", "gazpacho"]
    with pytest.raises(LexiconError) as err:
        _parse(tmp_path, data)
    assert "en.yaml:" in str(err.value) and "verb 'warm'" in str(err.value) and "'gazpacho'" in str(err.value)
    assert err.value.line > 1


def test_misspelled_or_empty_fact_is_an_error(tmp_path):
    data = _raw("en")
    _verb(data, "melt")["person_causer"] = ["butter"]
    with pytest.raises(LexiconError,
                       match=r"en.yaml:\d+: verbs\.\d+\.person_causer: unknown key; this section takes: lemma, present"):
        _parse(tmp_path, data)
    data = _raw("it")
    _verb(data, "sciogliere")["person_intransitive"] = " "
    with pytest.raises(LexiconError, match=r"it.yaml:\d+: verbs\.\d+\.person_intransitive: is empty"):
        _parse(tmp_path, data, "it")


def test_contradictory_or_misplaced_marginal_facts_name_file_and_line(tmp_path):
    data = _raw("en")
    _verb(data, "burn")["marginal_person_intransitive"] = "a person gets burned"
    with pytest.raises(LexiconError, match=r"en.yaml:\d+: verbs\.\d+\.marginal_person_intransitive: "
                                           "verb 'burn' has both person_intransitive and marginal"):
        _parse(tmp_path, data)
    data = _raw("en")
    _verb(data, "warm")["marginal_person_causers"] = ["soup"]
    with pytest.raises(LexiconError, match="soup is in both person_causers and marginal_person_causers"):
        _parse(tmp_path, data)
    data = _raw("en")
    _verb(data, "warm")["marginal_person_causers"] = ["gazpacho"]
    with pytest.raises(LexiconError, match=r"en.yaml:\d+: verbs\.\d+\.marginal_person_causers: "
                                           "'gazpacho' is not one of the patients of verb 'warm'"):
        _parse(tmp_path, data)
    data = _raw("en")
    _verb(data, "melt")["marginal_person_intransitve"] = "typo"
    with pytest.raises(LexiconError, match=r"en.yaml:\d+: verbs\.\d+\.marginal_person_intransitve: unknown key"):
        _parse(tmp_path, data)


def _drop_agents(data):
    data["agents"] = data["agents"][:5]


def _unknown_patient(data):
    _verb(data, "melt")["patients"][3] = "flibbertigibbet"


@pytest.mark.parametrize("language, edit, message, at", [
    ("en", lambda d: _verb(d, "melt").update(present=3), r"verbs\.\d+\.present: Input should be a valid string",
     "present: 3"),                                                                              # wrong type
    ("en", lambda d: _verb(d, "melt").update(reading="a person melts"),
     r"verbs\.\d+\.reading: unknown key; this section takes: lemma, present, past", "reading:"),   # unknown key
    ("en", _drop_agents, r"agents: .*at least 60 items.*not 5", "- chef"),                       # too few entries
    ("en", _unknown_patient, r"verb 'melt': patient 'flibbertigibbet' has no entry under 'patients'",
     None),                                                                                      # cross-reference
    ("it", lambda d: d["agents"].append("cuoca"),
     r"agents 'cuoca': needs a mapping with 'sg' and 'gender' \(m, f\) in it", None),           # the morphology's
])
def test_malformed_lexicons_fail_with_one_located_line(tmp_path, language, edit, message, at):
    """The schema and the cross-reference checks: one line ``file:line: entry: reason``, the line the culprit's."""
    data = _raw(language)
    edit(data)
    with pytest.raises(LexiconError, match=rf"^{tmp_path}/{language}\.yaml:\d+: {message}") as err:
        _parse(tmp_path, data, language)
    assert "\n" not in str(err.value)
    if at:
        lines = (tmp_path / f"{language}.yaml").read_text(encoding="utf-8").splitlines()
        assert lines[err.value.line - 1].strip().startswith(at)


@pytest.mark.parametrize("text", ["agents: 5\n", "agents: {a: 1}\n", "verbs: [melt]\n", "patients: [[ice]]\n",
                                  "relative_pronouns: who\n", "language: [en]\n",
                                  "relative_pronouns: {agent: who, patient: }\n"])
def test_any_malformed_shape_is_a_lexicon_error(tmp_path, text):
    path = tmp_path / "en.yaml"
    path.write_text("language: en\nrelative_pronouns: {agent: who, patient: that}\n" + text, encoding="utf-8")
    load_yaml.cache_clear()
    with pytest.raises(LexiconError, match=rf"^{path}(:\d+)?: "):
        lexicon.parse(load_yaml(path), path)


def test_marginal_causers_are_read_and_restricted_with_the_patients(tmp_path):
    data = _raw("en")
    _verb(data, "cool")["marginal_person_causers"] = ["milk", "tea"]
    lex, _ = _parse(tmp_path, data)
    cool = lex.verbs["cool"]
    assert cool.reversal_reading("milk") == "marginal" and cool.reversal_reading("lemonade") == "natural"
    assert cool.reversal_reading("pasta") == "none"
    assert cool.with_patients({"milk", "pasta"}).marginal_person_causers == {"milk"}


def test_facts_are_loaded_and_kept_by_the_gender_restriction():
    assert lexicon.load("en").verbs["warm"].person_causers >= {"stew", "soup"}
    assert lexicon.load("en").verbs["melt"].person_intransitive is None
    assert lexicon.load("de", ("m",)).verbs["reifen"].person_intransitive


def test_unknown_patient_and_invisible_tense_are_rejected(tmp_path):
    data = _raw("en")
    data["verbs"][2]["patients"][0] = "flibbertigibbet"
    with pytest.raises(LexiconError, match="verb 'defrost'.*'flibbertigibbet'"):
        _parse(tmp_path, data)
    data = _raw("en")
    data["verbs"][0]["past"] = data["verbs"][0]["present"]
    with pytest.raises(LexiconError, match="the tense would be invisible"):
        _parse(tmp_path, data)


def test_de_case_needs_enough_masculine_patients(tmp_path):
    data = _raw("de")
    genders = {p["sg"]: p["gender"] for p in data["patients"]}
    verb = data["verbs"][0]
    verb["patients"] = [p for p in verb["patients"] if genders[p] != "m"] + \
        [p for p in verb["patients"] if genders[p] == "m"][:5]
    lex, path = _parse(tmp_path, data, "de")
    with pytest.raises(LexiconError, match="needs at least 20 m patients, has 5"):
        lexicon.check_variant(lex, ("m",), path)


def test_template_declares_answers_per_template(tmp_path):
    text = CosPlusGenerator.template_path().read_text(encoding="utf-8")
    (tmp_path / "t.yaml").write_text(text + "answers: {paper: [tense]}\n", encoding="utf-8")
    with pytest.raises(LexiconError, match=r"t.yaml:\d+: answers: unknown key; this section takes: .*templates"):
        load(tmp_path / "t.yaml", CosPlusGenerator.template_model)
    (tmp_path / "p.yaml").write_text(text.replace("factors: [agent_subject, tense]", "factors: [{agent_subject: {x: 1}}, tense]"),
                                     encoding="utf-8")
    with pytest.raises(LexiconError, match="templates.t2i.answers.balanced.factors.0: rule 'agent_subject' takes no"):
        load(tmp_path / "p.yaml", CosPlusGenerator.template_model)
    from builders.template import check_rules

    (tmp_path / "u.yaml").write_text(text.replace("- agent_subject ", "- agent_subjekt ", 1), encoding="utf-8")
    template = load(tmp_path / "u.yaml", CosPlusGenerator.template_model)
    with pytest.raises(LexiconError, match=r"u.yaml:\d+: templates.t2i.answers.paper.0.*unknown rule 'agent_subjekt'"):
        check_rules(template, CosPlusGenerator.rules.rules, tmp_path / "u.yaml")


def test_languages_and_unknown_german_variant():
    assert CosPlusGenerator.languages() == ["de-case", "de-mix", "en", "it"]
    with pytest.raises(LexiconError, match="no variant 'xx'"):
        CosPlusGenerator("de-xx")


def typed_answer_set(language, variant, verb, agent, patient, lexical_type):
    """{label: (sentence, class)} of one set of words, judged as in a config of ``lexical_type``."""
    generator = registry.generator("cosplus", language)
    matrix = generator.matrix(ConfigSpec("cosplus", language, "I", variant), ("present", verb, agent, patient))
    matrix = dataclasses.replace(matrix, lexical_type=lexical_type)
    return {c.label: (c.sentence.text, c.error_class) for c in generator.candidates(matrix, False)}


@pytest.mark.parametrize("language, verb, agent, patient, person, gold", [
    ("en", "crack", "hiker", "flatbread", "The hiker cracks.", "The flatbread cracks."),
    ("it", "squagliare", "fruttivendola", "parmigiano", "La fruttivendola si squaglia.", "Il parmigiano si squaglia."),
    ("de-case", "verbrennen", "Mieter", "Toast", "Der Mieter verbrennt.", "Der Toast verbrennt."),
])
def test_t2i_type_iii_leaves_out_a_person_who_undergoes_the_change(language, verb, agent, patient, person, gold):
    """Issue 25: a person who can undergo the change is, in the T2I intransitive, the undergoer the gold's
    subject is; a type III context does not show which noun is the agent, so it is a second answer there
    (type I keeps it as SEQUENCE; I2T's intransitive is another frame and stays)."""
    assert typed_answer_set(language, "t2i", verb, agent, patient, "I")["I-INT"] == (person, "SEQUENCE")
    third = typed_answer_set(language, "t2i", verb, agent, patient, "III")
    assert "I-INT" not in third and third["Correct"] == (gold, "CORRECT") and len(third) == 2
    assert typed_answer_set(language, "i2t", verb, agent, patient, "III")["I-INT"] == (person, "SEQUENCE")


@pytest.mark.parametrize("name", ["cosplus_en_t2i_typeIII", "cosplus_it_t2i_typeIII", "cosplus_demix_t2i_typeIII"])
def test_no_t2i_type_iii_instance_has_a_well_formed_person_intransitive(name):
    records = [r for split in generate(registry.get_spec(name), Options(size=400, seed=123), progress=False).values()
               for r in split.records]
    assert not [r["answers"] for r in records
                if ("I-INT", "SEQUENCE") in zip(r["answer_labels"], r["answer_error_classes"])]
    assert all(len(r["answers"]) >= 2 for r in records)


@pytest.mark.parametrize("name", ["cosplus_decase_i2t_typeIII", "cosplus_demix_t2i_typeI"])
def test_german_object_relative_fragments_have_a_nominative_head(name):
    """Issue 25: 'Den Reis, den der Krämer köchelt.' (every de-case instance, half of de-mix) is non-standard;
    the head is nominative, the relative pronoun accusative."""
    records = [r for split in generate(registry.get_spec(name), Options(size=200, seed=123), progress=False).values()
               for r in split.records]
    fragments = [(s, p) for r in records for s, p in zip(r["context"], r["context_patterns"])
                 if p.startswith("NP-Patient") and "REL.ACC" in p]
    assert len(fragments) == len(records)
    assert all(p.startswith("NP-Patient.NOM REL.ACC") for _, p in fragments)
    assert not [s for s, _ in fragments if s.startswith("Den ")]
