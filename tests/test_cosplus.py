"""COS+ (000 §4.2): exact instances, Fig. 9 answer sets, Fig. 10 case alternation, German
agreement on every generated sentence, validator and balanced audit, lexicon errors."""

import pytest
import yaml

from blm_datasets.audit import audit_rows
from blm_datasets.validate import validate_rows
from builders import registry
from builders.base import ImpossibleSize
from builders.cosplus import lexicon, rules
from builders.cosplus.realise import Material, Realiser
from builders.generate import Options, generate
from builders.lexicon import LexiconError, load_yaml

SMALL = Options(size=100)
CONFIGS = [n for n in registry.config_names() if n.startswith("cosplus_")]

# German articles and relative pronouns, written out here independently of morphology/de.py
ARTICLE = {("m", "NOM"): "der", ("m", "ACC"): "den", ("f", "NOM"): "die", ("f", "ACC"): "die",
           ("n", "NOM"): "das", ("n", "ACC"): "das"}


def gen(name, opts=SMALL):
    return generate(registry.get_spec(name), opts, progress=False)


def first_test_record(name):
    return gen(name)["test"].records[0]


def gold(rec):
    return rec["answers"][rec["label"]]


def by_label(rec):
    return dict(zip(rec["answer_labels"], zip(rec["answers"], rec["answer_error_classes"])))


def test_configs_come_from_the_registry():
    assert len(CONFIGS) == 4 * 2 * 2 * 2  # de-case, de-mix, en, it x T2I/I2T x type I/III x balanced
    assert {"cosplus_decase_t2i_typeI", "cosplus_demix_i2t_typeIII_balanced", "cosplus_en_t2i_typeIII",
            "cosplus_it_i2t_typeI"} <= set(CONFIGS)
    assert registry.get_spec("cosplus_decase_t2i_typeI").iso == "de"


# --- exact instances (fixed seed), one per language ------------------------------------------

T2I_PATTERNS = ["NP-Agent V-{t} NP-Patient", "NP-Agent REL V-{t} NP-Patient", "NP-Patient REL NP-Agent V-{t}",
                "NP-Patient REL V-{t}"]


def test_english_t2i_type_i_instance():
    rec = first_test_record("cosplus_en_t2i_typeI")
    assert rec["template"] == "T2I" and rec["lemma"] == "boil" and rec["language"] == "en"
    assert rec["context"] == ["The son boils the corn.", "The son who boils the corn.",
                              "The corn that the son boils.", "The corn that boils."]
    assert rec["context_patterns"] == [p.format(t="pres") for p in T2I_PATTERNS]
    assert gold(rec) == "The corn boils." and rec["answer_patterns"][rec["label"]] == "NP-Patient V-pres"
    assert by_label(rec) == {"Correct": ("The corn boils.", "CORRECT"), "I-INT": ("The son boils.", "GRAMMAR"),
                             "R-TRANS": ("The corn boils the son.", "SEQUENCE")}


def test_italian_t2i_type_i_instance_has_si_on_the_intransitive():
    rec = first_test_record("cosplus_it_t2i_typeI")
    assert rec["context"] == ["La fornaia sciolse lo zucchero.", "La fornaia che sciolse lo zucchero.",
                              "Lo zucchero che la fornaia sciolse.", "Lo zucchero che si sciolse."]
    assert rec["context_patterns"] == [*(p.format(t="past") for p in T2I_PATTERNS[:3]), "NP-Patient REL si-V-past"]
    assert gold(rec) == "Lo zucchero si sciolse."
    assert by_label(rec) == {"Correct": ("Lo zucchero si sciolse.", "CORRECT"),
                             "I-INT": ("La fornaia si sciolse.", "GRAMMAR"),
                             "R-TRANS": ("Lo zucchero sciolse la fornaia.", "SEQUENCE")}


def test_german_case_t2i_type_i_instance():
    rec = first_test_record("cosplus_decase_t2i_typeI")
    assert rec["language"] == "de"
    assert rec["context"] == ["Der Camper erweichte den Kohl.", "Der Camper, der den Kohl erweichte.",
                              "Den Kohl, den der Camper erweichte.", "Der Kohl, der erweichte."]
    assert rec["context_patterns"] == [
        "NP-Agent.NOM V-past NP-Patient.ACC", "NP-Agent.NOM REL.NOM NP-Patient.ACC V-past",
        "NP-Patient.ACC REL.ACC NP-Agent.NOM V-past", "NP-Patient.NOM REL.NOM V-past"]
    assert gold(rec) == "Der Kohl erweichte."
    assert by_label(rec) == {"Correct": ("Der Kohl erweichte.", "CORRECT"),
                             "I-INT": ("Der Camper erweichte.", "GRAMMAR"),
                             "R-TRANS": ("Den Kohl erweichte der Camper.", "SEQUENCE")}


def test_german_mix_i2t_type_i_instance():
    rec = first_test_record("cosplus_demix_i2t_typeI")
    assert rec["template"] == "I2T"
    assert rec["context"] == ["Der Sherry reifte.", "Der Sherry, der reifte.", "Den Sherry, den der Wirt reifte.",
                              "Der Wirt, der den Sherry reifte."]
    assert gold(rec) == "Der Wirt reifte den Sherry."
    assert rec["answer_patterns"][rec["label"]] == "NP-Agent.NOM V-past NP-Patient.ACC"
    assert by_label(rec) == {"Correct": ("Der Wirt reifte den Sherry.", "CORRECT"),
                             "I-INT": ("Der Wirt reifte.", "SEQUENCE"),
                             "R-TRANS": ("Der Sherry reifte den Wirt.", "GRAMMAR")}


def test_figure_10_case_alternation():
    """000 Fig. 10 (Chef -> Koch): the patient is accusative in SVO, SagR and OR (head and
    pronoun), nominative in SpaR and in the gold answer; R-TRANS is OVS with the cases kept."""
    gen_ = registry.generator("cosplus", "de-case")
    template = gen_.template["templates"]["t2i"]
    steps = rules.sequence(template, "present")
    mat = Material("schmelzen", "Koch", "Käse")
    sentences = [gen_.realiser(mat, s).text for s in steps]
    assert sentences == ["Der Koch schmilzt den Käse.", "Der Koch, der den Käse schmilzt.",
                         "Den Käse, den der Koch schmilzt.", "Der Käse, der schmilzt.", "Der Käse schmilzt."]
    answers = {label: gen_.realiser(mat, s).text
               for s, label, _ in rules.paper_answers(steps[-1], template["candidates"], True)}
    assert answers == {"Correct": "Der Käse schmilzt.", "I-INT": "Der Koch schmilzt.",
                       "R-TRANS": "Den Käse schmilzt der Koch."}


@pytest.mark.parametrize("variant", ["t2i", "i2t"])
def test_decase_patient_alternates_accusative_nominative(variant):
    """Over every instance of a small config, the patient's article follows Fig. 10's cases."""
    expected = {"t2i": ["den", "den", "Den", "Der"], "i2t": ["Der", "Der", "Den", "den"]}[variant]
    lex = lexicon.load("de", ("m",))
    for split in gen(f"cosplus_decase_{variant}_typeI").values():
        for rec in split.records:
            patient = rec["context_chunks"][2][0].split()[1]  # OR: head is the patient
            assert lex.patients[patient]["gender"] == "m"
            articles = [next(c.split()[0] for c, tok in zip(chunks, pattern.split()) if tok.startswith("NP-Patient"))
                        for chunks, pattern in zip(rec["context_chunks"], rec["context_patterns"])]
            assert articles == expected
            gold_article = gold(rec).split()[0] if variant == "t2i" else gold(rec).split()[-2]
            assert gold_article == ("Der" if variant == "t2i" else "den")


def _noun_entry(lex, form):
    for pool in (lex.agents, lex.patients):
        for entry in pool.values():
            if form in (entry["sg"], entry.get("acc_sg")):
                return entry
    raise AssertionError(f"{form!r} is no noun form of the lexicon")


@pytest.mark.parametrize("name", ["cosplus_demix_t2i_typeI", "cosplus_demix_i2t_typeIII_balanced",
                                  "cosplus_decase_i2t_typeIII"])
def test_every_german_article_and_relative_pronoun_agrees(name):
    """Gender from the noun's lexicon entry, case from the pattern: article, noun form (weak
    masculines) and relative pronoun must all agree, in every context sentence and candidate."""
    lex = lexicon.load("de")
    checked = 0
    for split in gen(name).values():
        for rec in split.records:
            sentences = list(zip(rec["context_chunks"], rec["context_patterns"]))
            sentences += [(None, p) for p in rec["answer_patterns"]]
            texts = rec["context"] + rec["answers"]
            for (chunks, pattern), text in zip(sentences, texts):
                if chunks is None:  # candidates: main clauses, one word per NP head
                    words = text.rstrip(".").split()
                    chunks, i = [], 0
                    for tok in pattern.split():
                        chunks.append(" ".join(words[i:i + 2]) if tok.startswith("NP") else words[i])
                        i += 2 if tok.startswith("NP") else 1
                head = None
                for chunk, tok in zip(chunks, pattern.split()):
                    case = tok.rsplit(".", 1)[-1] if "." in tok else None
                    if tok.startswith("NP"):
                        art, form = chunk.split()
                        entry = _noun_entry(lex, form)
                        assert art.lower() == ARTICLE[(entry["gender"], case)], (text, chunk)
                        weak_acc = case == "ACC" and "acc_sg" in entry
                        assert form == (entry["acc_sg"] if weak_acc else entry["sg"]), (text, chunk)
                        head = head or entry
                    elif tok.startswith("REL"):
                        assert chunk == ARTICLE[(head["gender"], case)], (text, chunk)
                        checked += 1
    assert checked > 0


def test_weak_masculine_takes_its_accusative():
    lex = lexicon.load("de", ("m",))
    realiser = Realiser(lex)
    rtrans = rules.Step("main", "patient", "agent", "present")  # I2T R-TRANS: roles reversed
    assert realiser(Material("schmelzen", "Student", "Käse"), rtrans).text == "Der Käse schmilzt den Studenten."
    assert realiser(Material("schmoren", "Koch", "Hase"), rules.Step("main", "agent", "patient", "past")).text == \
        "Der Koch schmorte den Hasen."


def test_german_morphology_module():
    from builders.morphology import de

    koch, butter, eis = {"gender": "m", "sg": "Koch", "pl": "Köche"}, {"gender": "f", "sg": "Butter"}, \
        {"gender": "n", "sg": "Eis"}
    student = {"gender": "m", "sg": "Student", "acc_sg": "Studenten", "pl": "Studenten"}
    assert [de.definite(koch, "sg", c) for c in ("nom", "acc", "dat")] == ["der Koch", "den Koch", "dem Koch"]
    assert [de.definite(butter, "sg", c) for c in ("nom", "acc", "dat")] == ["die Butter", "die Butter", "der Butter"]
    assert de.definite(eis, "sg", "acc") == "das Eis" and de.definite(koch, "pl", "dat") == "den Köchen"
    assert de.definite(student, "sg", "acc") == "den Studenten" and de.definite(student, "sg", "dat") == "dem Studenten"
    assert [de.relative_pronoun(n, "sg", "acc") for n in (koch, butter, eis)] == ["den", "die", "das"]
    assert de.relative_pronoun(koch, "pl", "dat") == "denen" and de.relative_pronoun(butter, "sg", "gen") == "deren"
    assert de.prep_phrase("von", koch, "sg") == "vom Koch" and de.prep_phrase("für", eis, "sg") == "für das Eis"
    assert de.finalize("der Topf, in dem") == "der Topf, in dem"  # relative pronouns never contract
    with pytest.raises(KeyError, match="needs a 'gen_sg' form"):
        de.genitive(koch, "sg")
    with pytest.raises(ValueError, match="case must be one of"):
        de.definite(koch, "sg", "abl")


def test_german_intransitive_forms_can_differ():
    realiser = Realiser(lexicon.load("de"))
    mat = Material("quellen", "Koch", "Reis")
    assert realiser(mat, rules.Step("main", "agent", "patient", "present")).text == "Der Koch quellt den Reis."
    assert realiser(mat, rules.Step("main", "patient", None, "past")).text == "Der Reis quoll."


# --- configs: validator, splits, sizes, balanced twins ------------------------------------------

def test_every_config_validates_at_small_size():
    for name in CONFIGS:
        spec = registry.get_spec(name)
        out = gen(name)
        for split, o in out.items():
            assert not o.rejected, (name, split, dict(o.rejected))
            report = validate_rows(o.records, spec)
            assert not any(report["failures"].values()), (name, split, report["failures"])
        train = {r["lemma"] for r in out["train"].records}
        test = {r["lemma"] for r in out["test"].records}
        assert test and not train & test, name


def test_generation_is_deterministic_and_the_twin_shares_contexts():
    a, b = gen("cosplus_it_i2t_typeIII"), gen("cosplus_it_i2t_typeIII")
    assert a["train"].records == b["train"].records
    twin = gen("cosplus_it_i2t_typeIII_balanced")
    assert [r["context"] for r in a["test"].records] == [r["context"] for r in twin["test"].records]
    assert {len(r["answers"]) for r in a["test"].records} == {3}
    assert {len(r["answers"]) for r in twin["test"].records} == {4}


def test_default_size_is_the_papers():
    out = generate(registry.get_spec("cosplus_en_i2t_typeIII"), Options(), progress=False)
    assert (len(out["train"].records), len(out["test"].records)) == (1600, 400)


def test_impossible_size_is_a_clear_error():
    with pytest.raises(ImpossibleSize, match="combinatorics allow only"):
        gen("cosplus_en_t2i_typeI", Options(size=1_000_000))


def test_balanced_answer_set_crosses_tense_and_role():
    rec = first_test_record("cosplus_en_t2i_typeI_balanced")
    labels = dict(zip(rec["answer_labels"], rec["answer_error_classes"]))
    assert labels == {"Correct": "CORRECT", "TENSE": "SEQUENCE", "I-INT": "GRAMMAR", "I-INT+TENSE": "GRAMMAR"}
    assert set(rec["answers"]) == {"The corn boils.", "The corn boiled.", "The son boils.", "The son boiled."}
    rec = first_test_record("cosplus_decase_i2t_typeI_balanced")
    assert set(rec["answer_labels"]) == {"Correct", "TENSE", "R-TRANS", "R-TRANS+TENSE"}


@pytest.mark.parametrize("name", ["cosplus_en_t2i_typeIII_balanced", "cosplus_it_i2t_typeI_balanced",
                                  "cosplus_decase_t2i_typeI_balanced", "cosplus_demix_i2t_typeIII_balanced"])
def test_balanced_audit_is_at_chance(name):
    out = gen(name, Options(size=1000))
    report = audit_rows(out["train"].records, out["test"].records, "de" if "_de" in name else name.split("_")[1])
    assert report["chance_wellformed"] == 0.5
    for baseline, res in report["baselines"].items():
        assert not res["above_chance"], (baseline, res)


def test_paper_answer_set_is_answer_only_solvable_as_the_audit_reports():
    out = gen("cosplus_en_t2i_typeI", Options(size=600))
    report = audit_rows(out["train"].records, out["test"].records, "en")
    assert report["baselines"]["classifier"]["accuracy"] > 0.8  # gold structure is fixed per config


# --- lexicon errors ---------------------------------------------------------------------------

def _raw(language):
    return yaml.safe_load((lexicon.HERE / "lexicons" / f"{language}.yaml").read_text(encoding="utf-8"))


def _parse(tmp_path, data, language="en"):
    path = tmp_path / f"{language}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    load_yaml.cache_clear()
    return lexicon.parse(load_yaml(path), path), path


def test_unknown_patient_names_file_line_and_verb(tmp_path):
    data = _raw("en")
    data["verbs"][2]["patients"][0] = "flibbertigibbet"
    with pytest.raises(LexiconError) as err:
        _parse(tmp_path, data)
    message = str(err.value)
    assert "en.yaml:" in message and "verb 'defrost'" in message and "'flibbertigibbet'" in message
    assert err.value.line > 1


def test_invisible_tense_and_missing_gender_are_rejected(tmp_path):
    data = _raw("en")
    data["verbs"][0]["past"] = data["verbs"][0]["present"]
    with pytest.raises(LexiconError, match="the tense would be invisible"):
        _parse(tmp_path, data)
    data = _raw("it")
    del data["patients"][3]["gender"]
    with pytest.raises(LexiconError, match="missing field 'gender'"):
        _parse(tmp_path, data, "it")


def test_de_case_needs_enough_masculine_patients(tmp_path):
    data = _raw("de")
    lex_raw = {p["sg"]: p for p in data["patients"]}
    verb = data["verbs"][0]
    verb["patients"] = [p for p in verb["patients"] if lex_raw[p]["gender"] != "m"] + \
        [p for p in verb["patients"] if lex_raw[p]["gender"] == "m"][:5]
    lex, path = _parse(tmp_path, data, "de")
    with pytest.raises(LexiconError, match="needs at least 20 m patients, has 5"):
        lexicon.check_variant(lex, ("m",), path)


def test_agent_that_is_also_a_patient_is_rejected(tmp_path):
    data = _raw("en")
    data["agents"].append("butter")
    with pytest.raises(LexiconError, match="butter is both an agent and a patient"):
        _parse(tmp_path, data)


def test_unknown_german_variant_is_a_clear_error():
    from builders.cosplus import CosPlusGenerator

    with pytest.raises(LexiconError, match="no variant 'xx'"):
        CosPlusGenerator("de-xx")
    assert CosPlusGenerator.languages() == ["de-case", "de-mix", "en", "it"]
