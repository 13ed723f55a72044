"""Per-language claims of the agreement configs: exact sentences, one test per fixed defect (number
crossing, Coord prepositions, agreement errors), and the lexicon checker's located errors."""

from __future__ import annotations

import functools
import re

import pytest
import yaml

from builders import morphology, registry
from builders.agr import lexicon
from builders.agr.rules import FLIP, RULES, Step
from builders.generate import Options, generate
from builders.lexicon import Entry, LexiconError, load_yaml

# every language with a lexicon file, English first (the parallel-seed reference)
LANGUAGES = tuple(sorted(registry.generator_class("agr").languages(), key=lambda lang: lang != "en"))
CLAUSES = ("main", "completive", "relative")


@functools.cache
def generator(language: str):
    return registry.generator("agr", language)


def realise(language: str, seed: str, step: Step, clause: str = "main") -> str:
    gen = generator(language)
    return gen.sentence(gen.base_material(seed), step, clause).text


def two(subj: str, n1: str, n2: str, **kw) -> Step:
    """A two-attractor step whose verb agrees with the subject."""
    return Step(subj, subj, 2, n1, n2, **kw)


# --- one fixed-seed instance per language, word for word ----------------------------------------

INSTANCES = {
    "en": ("offer", "relative", [
        "The proposals to the agent that Linda read about are tempting but risky.",
        "The offer to the agents that Linda asked about is tempting but risky.",
        "The suggestions to the agents that Linda read about are tempting but risky.",
        "The offer to the agent that Linda joked about is tempting but risky.",
        "The offers to the agent of the footballers that Linda was thinking about are tempting but risky.",
        "The offer to the agents of the footballer that Linda asked about is tempting but risky.",
        "The offers to the agents of the wrestler that Linda read about are tempting but risky.",
    ], {
        "Correct": "The offer to the agent of the footballers that Linda was talking about is tempting but risky.",
        "Coord": "The offer to the agent and the footballers that Linda was talking about is tempting but risky.",
        "WNA": "The footballers' offer that Linda was talking about is tempting but risky.",  # issue 25: was 'The offer of the footballers'
        "WN1": "The offer to the agents of the footballers that Linda was talking about is tempting but risky.",
        "WN2": "The offer to the agent of the footballer that Linda was talking about is tempting but risky.",
        "AEN2": "The offer to the agent of the footballers that Linda was talking about are tempting but risky.",
    }),
    "fr": ("video", "relative", [
        "Les vidéos du soigneur que Claire évoquait sont populaires auprès des spectateurs.",
        "La vidéo des dresseurs que Claire photographiait est populaire auprès des spectateurs.",
        "Les vidéos des entraîneurs que Claire évoquait sont populaires auprès des spectateurs.",
        "La vidéo du dresseur que Thomas évoquait est populaire auprès des spectateurs.",
        "Les vidéos du dresseur du chien que Claire connaissait sont populaires auprès des spectateurs.",
        "La vidéo des soigneurs des chiens que Claire évoquait est populaire auprès des spectateurs.",
        "Les documentaires des dresseurs des chiens que Claire évoquait sont populaires auprès des spectateurs.",
    ], {
        "Correct": "La photographie du dresseur du chien que Claire évoquait est populaire auprès des spectateurs.",
        "Coord": "La photographie du dresseur et du chien que Claire évoquait est populaire auprès des spectateurs.",
        "WNA": "La photographie du chien que Claire évoquait est populaire auprès des spectateurs.",
        "WN1": "La photographie des dresseurs du chien que Claire évoquait est populaire auprès des spectateurs.",
        "WN2": "La photographie du dresseur des chiens que Claire évoquait est populaire auprès des spectateurs.",
        "AEV": "La photographie du dresseur du chien que Claire évoquait sont populaires auprès des spectateurs.",
    }),
    "it": ("compliment", "main", [
        "L'elogio agli apprendisti è gentile e sincero.",
        "I complimenti al tirocinante sono gentili e sinceri.",
        "La lettera all'apprendista è gentile e sincera.",
        "I complimenti agli assistenti sono gentili e sinceri.",
        "Il complimento agli assistenti del fornaio è gentile e sincero.",
        "Le lettere all'apprendista dei fornai sono gentili e sincere.",
        "Il complimento all'apprendista dei farmacisti è gentile e sincero.",
    ], {
        "Correct": "I complimenti ai tirocinanti del fornaio sono gentili e sinceri.",
        "Coord": "I complimenti ai tirocinanti e al fornaio sono gentili e sinceri.",
        "WNA": "I complimenti del fornaio sono gentili e sinceri.",
        "WN1": "I complimenti al tirocinante del fornaio sono gentili e sinceri.",
        "WN2": "I complimenti ai tirocinanti dei fornai sono gentili e sinceri.",
        "AEN2": "I complimenti ai tirocinanti del fornaio è gentile e sincero.",
    }),
    "es": ("consultation", "main", [
        "Las consultas con el auxiliar son rápidas y baratas.",
        "La consulta con el enfermero es rápida y barata.",
        "Las revisiones con los asistentes son rápidas y baratas.",
        "La consulta con los ayudantes es rápida y barata.",
        "Las consultas con el enfermero de los dentistas son rápidas y baratas.",
        "El tratamiento con el asistente del dentista es rápido y barato.",
        "Las visitas con los asistentes del dentista son rápidas y baratas.",
    ], {
        "Correct": "La consulta con los sustitutos de los dentistas es rápida y barata.",
        "Coord": "La consulta con los sustitutos y los dentistas es rápida y barata.",
        "WNA": "La consulta de los dentistas es rápida y barata.",
        "WN1": "La consulta con el sustituto de los dentistas es rápida y barata.",
        "WN2": "La consulta con los sustitutos del dentista es rápida y barata.",
        "AEN2": "La consulta con los sustitutos de los dentistas son rápidas y baratas.",
    }),
    "ro": ("warning", "completive", [
        "Ion declară că avertismentele de la veterinar sunt clare, dar îngrijorătoare.",
        "Maria crede că avertismentul de la veterinar este clar, dar îngrijorător.",
        "Ion crede că verdictele de la veterinari sunt clare, dar îngrijorătoare.",
        "Ion crede că mesajul de la veterinari este clar, dar îngrijorător.",
        "Ion crede că verdictele de la veterinarul ciobanului sunt clare, dar îngrijorătoare.",
        "Ion crede că răspunsul de la veterinarul ciobanului este clar, dar îngrijorător.",
        "Ion crede că scrisorile de la veterinarii ciobanilor sunt clare, dar îngrijorătoare.",
    ], {
        "Correct": "Ion explică că avertismentul de la veterinarii ciobanilor este clar, dar îngrijorător.",
        "Coord": "Ion explică că avertismentul de la veterinari și de la ciobani este clar, dar îngrijorător.",
        "WNA": "Ion explică că avertismentul ciobanilor este clar, dar îngrijorător.",
        "WN1": "Ion explică că avertismentul de la veterinarul ciobanilor este clar, dar îngrijorător.",
        "WN2": "Ion explică că avertismentul de la veterinarii ciobanului este clar, dar îngrijorător.",
        "AEN2": "Ion explică că avertismentul de la veterinarii ciobanilor sunt clare, dar îngrijorătoare.",
    }),
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_one_type_ii_instance_reads_word_for_word(language):
    out = generate(registry.get_spec(f"agr_{language}_typeII"), Options(size=20, seed=3), progress=False)
    record = out["test"].records[0]
    lemma, clause, context, answers = INSTANCES[language]
    assert (record["lemma"], record["template"]) == (lemma, clause)
    assert record["context"] == context
    assert dict(zip(record["answer_labels"], record["answers"])) == answers
    assert record["answers"][record["label"]] == answers["Correct"]


# --- defect 1: number crossing -----------------------------------------------------------------

def test_seeds_are_parallel_with_the_same_relations_in_every_language():
    english = lexicon.load("en")["seeds"]
    for language in LANGUAGES[1:]:
        seeds = lexicon.load(language)["seeds"]
        assert [s["id"] for s in seeds] == [s["id"] for s in english]
        assert [dict(s["relations"]) for s in seeds] == [dict(s["relations"]) for s in english]


def test_every_declared_relation_is_plausible_under_number_crossing():
    for language in LANGUAGES:
        kinds = {kind for seed in lexicon.load(language)["seeds"] for kind in seed["relations"].values()}
        assert kinds <= set(lexicon.PLAUSIBLE) and not kinds & set(lexicon.IMPLAUSIBLE)


@pytest.mark.parametrize("language, expected", [
    # formerly "the report on the accident of the factories" (fr/it/ro) and "the article about the
    # singer of the bands" (a member of one band): now a singular head with plural dependents reads well
    ("en", ["The report from the inspectors of the schools is detailed and positive.",
            "The article about the drivers of the singers is everywhere."]),
    ("fr", ["Le rapport des inspecteurs des écoles est détaillé et positif.",
            "L'article sur les chauffeurs des chanteuses est partout."]),
    ("it", ["Il rapporto degli ispettori delle scuole è dettagliato e positivo.",
            "L'articolo sugli autisti dei cantanti è ovunque."]),
    ("es", ["El informe de los inspectores de las escuelas es detallado y positivo.",
            "El artículo sobre los chóferes de las cantantes está en todas partes."]),
    ("ro", ["Raportul de la inspectorii școlilor este detaliat și pozitiv.",
            "Articolul despre șoferii cântăreților este peste tot."]),
])
def test_a_singular_head_with_plural_dependents_is_plausible(language, expected):
    assert [realise(language, seed, two("sg", "pl", "pl")) for seed in ("report", "article")] == expected


# --- defect 2: Coord repeats what cannot scope over a coordination ----------------------------

@pytest.mark.parametrize("language, seed, n2, expected", [
    ("en", "letter", "sg", "The letter from the lawyer and the client is on the kitchen table."),
    ("fr", "letter", "sg", "La lettre de l'avocat et du client est sur la table de la cuisine."),
    ("fr", "petition", "pl", "La pétition au patron et aux ouvriers est polie mais ferme."),
    ("fr", "present", "pl", "Le cadeau pour l'institutrice et les enfants est prêt pour la fête."),
    ("it", "letter", "sg", "La lettera dell'avvocato e del cliente è sul tavolo della cucina."),
    ("it", "petition", "pl", "La petizione al capo e agli operai è educata ma ferma."),
    ("it", "interview", "pl", "L'intervista con lo psicologo e le vittime è breve ma utile."),
    ("es", "letter", "sg", "La carta del abogado y del cliente está en la mesa de la cocina."),
    ("es", "petition", "pl", "La petición al jefe y a los obreros es educada pero firme."),
    ("es", "interview", "pl", "La entrevista con el psicólogo y las víctimas es breve pero útil."),
    ("es", "present", "pl", "El regalo para la maestra y los niños está listo para la fiesta."),
    ("ro", "present", "pl", "Cadoul pentru profesoară și pentru copii este gata pentru petrecere."),
    ("ro", "letter", "sg", "Scrisoarea de la avocat și de la client este pe masa din bucătărie."),
    ("ro", "interview", "pl", "Interviul cu psihologul și victimele este scurt, dar util."),
])
def test_coord_repeats_only_the_prepositions_that_cannot_scope_over_a_coordination(language, seed, n2, expected):
    assert realise(language, seed, two("sg", "sg", n2, coord=True)) == expected


def test_every_fusing_or_bare_taking_preposition_is_repeated():
    """fr de/à and it's articulated prepositions fuse with the article; ro prepositions other than
    cu take the bare noun: each such preposition a seed uses is listed in coordination_repeats."""
    fused = {"fr": {"de", "à"}, "it": set(morphology.language("it").ARTICULATED),
             "es": set(morphology.language("es").CONTRACTIONS)}
    for language in ("fr", "it", "ro", "es"):
        lex = lexicon.load(language)
        for seed in lex["seeds"]:
            prep = seed["attractor1"]["prep"]
            last = prep.rsplit(" ", 1)[-1]
            if language == "ro":
                must = prep not in morphology.language("ro").ARTICLED_PREPOSITIONS
            else:
                must = last in fused[language]
            assert must == (prep in lex["coordination_repeats"] or last in lex["coordination_repeats"]), \
                (language, seed["id"], prep)


# --- defect 3: agreement errors flip the predicate's number and nothing else -------------------

@pytest.mark.parametrize("language", LANGUAGES)
def test_an_agreement_error_changes_the_predicate_only_and_visibly(language):
    gen = generator(language)
    agreement = RULES["agreement"]
    for seed in lexicon.load(language)["seeds"]:
        material = gen.base_material(seed["id"])
        for clause in CLAUSES:
            for subj in ("sg", "pl"):
                for count, n1, n2 in ((1, "sg", "pl"), (2, "pl", "sg"), (2, FLIP[subj], FLIP[subj])):
                    gold = Step(subj, subj, count, n1, n2)
                    wrong = agreement.corrupt(gold, None)
                    good, bad = gen.sentence(material, gold, clause), gen.sentence(material, wrong, clause)
                    assert good.chunks[:-1] == bad.chunks[:-1] and good.chunks[-1] != bad.chunks[-1]


@pytest.mark.parametrize("language, seed, expected", [
    # Italian and Romanian predicates agree in gender too: the error keeps the gender, flips the number
    ("it", "cake", ("La torta per il collega del pompiere è deliziosa e fresca.",
                    "La torta per il collega del pompiere sono deliziose e fresche.")),
    ("ro", "cake", ("Tortul pentru colegul pompierului este delicios și proaspăt.",
                    "Tortul pentru colegul pompierului sunt delicioase și proaspete.")),
    ("ro", "interview", ("Interviul cu psihologul victimei este scurt, dar util.",
                         "Interviul cu psihologul victimei sunt scurte, dar utile.")),
    # Spanish: gender agreement kept; "e" before inútil/inteligente, not "y"
    ("es", "cake", ("La tarta para el colega del bombero está deliciosa y fresca.",
                    "La tarta para el colega del bombero están deliciosas y frescas.")),
    ("es", "seminar", ("El seminario para el residente del cirujano es aburrido e inútil.",
                       "El seminario para el residente del cirujano son aburridos e inútiles.")),
    # French: elision and contractions untouched, participle and adjectives agree in the error
    ("fr", "interview", ("L'interview avec le psychologue de la victime est courte mais utile.",
                         "L'interview avec le psychologue de la victime sont courtes mais utiles.")),
    ("en", "postcard", ("The postcard from the friend of the twin has finally arrived.",
                        "The postcard from the friend of the twin have finally arrived.")),
])
def test_agreement_error_keeps_gender_and_flips_number(language, seed, expected):
    gold = two("sg", "sg", "sg")
    assert (realise(language, seed, gold), realise(language, seed, gold._replace(verb="pl"))) == expected


# --- the checker's errors, with file and line ----------------------------------------------------

def _shipped(language: str) -> dict:
    return yaml.safe_load((lexicon.HERE / "lexicons" / f"{language}.yaml").read_text(encoding="utf-8"))


def _check(tmp_path, data: dict, language: str = "en") -> None:
    path = tmp_path / f"{language}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    load_yaml.cache_clear()
    lexicon.check(load_yaml(path), path)


def _error(tmp_path, data: dict, language: str = "en") -> LexiconError:
    with pytest.raises(LexiconError) as err:
        _check(tmp_path, data, language)
    assert err.value.path.endswith(f"{language}.yaml") and err.value.line and err.value.line > 1
    return err.value


def test_an_implausible_relation_is_rejected_with_why(tmp_path):
    data = _shipped("en")
    data["seeds"][2]["relations"]["attractor1"] = "location"
    err = _error(tmp_path, data)
    assert err.entry == "seeds.2.relations.attractor1"
    assert "'location'" in err.reason and "the painting on the walls" in err.reason


def test_an_unknown_or_missing_relation_is_rejected(tmp_path):
    data = _shipped("en")
    data["seeds"][0]["relations"]["attractor2"] = "near"
    assert "not a relation type" in _error(tmp_path, data).reason
    data = _shipped("en")
    del data["seeds"][0]["relations"]["subject_attractor2"]
    err = _error(tmp_path, data)
    assert (err.entry, err.reason) == ("seeds.0.relations.subject_attractor2", "missing key")
    data = _shipped("en")
    data["seeds"][0]["relations"]["attractor3"] = "topic"
    err = _error(tmp_path, data)
    assert err.entry == "seeds.0.relations.attractor3"
    assert err.reason == "unknown key; this section takes: attractor1, attractor2, subject_attractor2"


def test_a_preposition_without_a_coordination_decision_is_rejected(tmp_path):
    data = _shipped("fr")
    data["coordination_shares"].remove("pour")
    err = _error(tmp_path, data, "fr")
    assert "'pour'" in err.reason and "coordination_repeats" in err.reason
    data = _shipped("fr")
    data["coordination_shares"].append("de")
    assert "in both" in _error(tmp_path, data, "fr").reason


def test_a_noun_whose_number_is_invisible_in_its_slot_is_rejected(tmp_path):
    data = _shipped("ro")
    data["nouns"]["învățătoare"] = {"gender": "f", "sg": "învățătoarea", "pl": "învățătoarele",
                                    "gen_sg": "învățătoarei", "gen_pl": "învățătoarelor",
                                    "bare_sg": "învățătoare", "bare_pl": "învățătoare"}
    present = next(s for s in data["seeds"] if s["id"] == "present")
    present["attractor1"]["noun"] = "învățătoare"
    err = _error(tmp_path, data, "ro")
    assert "'pentru învățătoare' in both numbers" in err.reason


def test_fewer_than_forty_seeds_is_an_error(tmp_path):
    data = _shipped("it")
    data["seeds"] = data["seeds"][:39]
    err = _error(tmp_path, data, "it")
    assert err.entry == "seeds" and "at least 40 items" in err.reason and "not 39" in err.reason


def _located(tmp_path, data: dict, language: str = "en") -> tuple[str, Entry]:
    """The one-line error for ``data`` written as <language>.yaml, and the file as parsed (for its lines)."""
    err = _error(tmp_path, data, language)
    assert "\n" not in str(err)
    return str(err), load_yaml(tmp_path / f"{language}.yaml")


def test_the_schema_follows_the_language_s_morphology(tmp_path):
    """Wrong type, unknown key (a gender on an English noun), too few entries, each at its line."""
    data = _shipped("fr")
    data["nouns"]["duel"]["one_counterpart"] = "yes"
    message, parsed = _located(tmp_path, data, "fr")
    assert message == (f"{tmp_path / 'fr.yaml'}:{parsed['nouns']['duel'].key_lines['one_counterpart']}: "
                       "nouns.duel.one_counterpart: "
                       "Input should be a valid boolean")
    data = _shipped("en")
    data["nouns"]["lawyer"]["gender"] = "m"
    message, parsed = _located(tmp_path, data)
    assert message == (f"{tmp_path / 'en.yaml'}:{parsed['nouns']['lawyer'].key_lines['gender']}: nouns.lawyer.gender: "
                       "unknown key; this section takes: one_counterpart, sg, pl")
    data = _shipped("it")
    data["completive_verbs"] = data["completive_verbs"][:9]
    message, parsed = _located(tmp_path, data, "it")
    assert message == (f"{tmp_path / 'it.yaml'}:{parsed['completive_verbs'].line}: completive_verbs: "
                       "Tuple should have at least 10 items after validation, not 9")


def test_cross_references_are_checked_after_the_schema(tmp_path):
    """What a schema cannot state: a second seed with one id, the genders a predicate must cover."""
    data = _shipped("es")
    data["seeds"].append(dict(data["seeds"][0]))
    message, parsed = _located(tmp_path, data, "es")
    assert message == (f"{tmp_path / 'es.yaml'}:{parsed['seeds'][-1].line}: seed {data['seeds'][0]['id']!r}: "
                       "duplicate id")
    data = _shipped("fr")
    seed = next(s for s in data["seeds"] if "m" in s["predicate"] and "f" in s["predicate"])
    del seed["predicate"]["f"]
    message, parsed = _located(tmp_path, data, "fr")
    index = data["seeds"].index(seed)
    assert message == (f"{tmp_path / 'fr.yaml'}:{parsed['seeds'][index]['predicate'].line}: seed {seed['id']!r}."
                       "predicate: no form for gender 'f' of a subject noun")
    data = _shipped("fr")
    data["possessive_relations"] = ["source"]
    assert _error(tmp_path, data, "fr").reason == "fr has no prenominal possessive (morphology.fr.possessive)"


def test_no_malformed_value_escapes_as_a_traceback(tmp_path):
    """Every key of the file and of a seed, given a number: a located LexiconError, nothing else (the
    checks after the schema read only what it let through)."""
    shipped = _shipped("en")
    for seed, key in [(None, key) for key in shipped] + [(0, key) for key in shipped["seeds"][0]]:
        data = _shipped("en")
        (data if seed is None else data["seeds"][seed])[key] = 5
        with pytest.raises(LexiconError) as err:
            _check(tmp_path, data)
        assert err.value.line and "\n" not in str(err.value)


# --- the independent review (README, Review): each finding pinned by the sentences it now gives ---

def realise_with(language: str, seed: str, slot: str | None, noun: str | None, step: Step) -> str:
    """A seed's sentence with one noun swapped for an alternative (type II/III material)."""
    gen = generator(language)
    material = gen.base_material(seed)
    if slot:
        assert noun in gen.lex["seeds_by_id"][seed]["alternatives"][slot]
        material = material._replace(**{slot: noun})
    return gen.sentence(material, step, "main").text


REVIEWED = [
    # offer: every subject alternative is something offered that can tempt (not a request or a
    # letter, it not a contract "to" the agent)
    ("offer", "subject", {
        "en": ("loan", "The loan to the agent of the footballer is tempting but risky."),
        "fr": ("prêt", "Le prêt à l'agent du footballeur est tentant mais risqué."),
        "it": ("prestito", "Il prestito all'agente del calciatore è allettante ma rischioso."),
        "es": ("préstamo", "El préstamo al agente del futbolista es tentador pero arriesgado."),
        "ro": ("împrumut", "Împrumutul pentru agentul fotbalistului este tentant, dar riscant.")}),
    # consultation: attractor 1 is a clinician or colleague one consults (not the receptionist)
    ("consultation", "attractor1", {
        "en": ("hygienist", "The consultation with the hygienist of the dentist is quick and cheap."),
        "fr": ("hygiéniste", "La consultation avec l'hygiéniste du dentiste est rapide et bon marché."),
        "it": ("igienista", "La seduta con l'igienista del dentista è rapida ed economica."),
        "es": ("higienista", "La consulta con el higienista del dentista es rápida y barata."),
        "ro": ("igienist", "Consultația cu igienistul dentistului este rapidă și ieftină.")}),
    # reward: the predicate is true of every subject (a payment is generous, a medal is not)
    ("reward", "subject", {
        "en": ("payment", "The payment for the rescuer of the hiker is generous and fair."),
        "fr": ("rémunération", "La rémunération pour le sauveteur du randonneur est bien méritée."),  # issue 25: was généreuse et juste
        "it": ("gratifica", "La gratifica per il soccorritore dell'escursionista è generosa e giusta."),
        "es": ("pago", "El pago para el rescatador del excursionista es generoso y justo."),
        "ro": ("plată", "Plata pentru salvatorul drumețului este generoasă și corectă.")}),
    # request: every subject can be modest and reasonable (not a question)
    ("request", "subject", {
        "en": ("offer", "The offer to the sponsor of the rower is modest and reasonable."),
        "fr": ("réclamation", "La réclamation au sponsor du rameur est modeste et raisonnable."),
        "it": ("preventivo", "Il preventivo allo sponsor del canottiere è modesto e ragionevole."),
        "es": ("oferta", "La oferta al patrocinador del remero es modesta y razonable."),
        "ro": ("pretenție", "Pretenția către sponsorul canotorului este modestă și rezonabilă.")}),
    # borderline pairings, replaced: a mediator (not a doctor) for the nurse, a priest (not a cook)
    # on the tour, an accompanist (not an agent) at the rehearsal, a testimony (not a fairy tale)
    # that is true, a plant (not a poem) that is big, a captain (not a doctor) at the flight lesson,
    # a muse (not an agent) a song is for
    ("interpreter", "subject", {
        "en": ("mediator", "The mediator for the nurse of the refugee is already here."),
        "fr": ("médiateur", "Le médiateur pour l'infirmière du réfugié est déjà là."),
        "it": ("mediatore", "Il mediatore per l'infermiera del profugo è già qui."),
        "es": ("mediador", "El mediador para la enfermera del refugiado ya está aquí."),
        "ro": ("mediator", "Mediatorul pentru asistenta refugiatului este deja aici.")}),
    ("tour", "attractor1", {
        "en": ("priest", "The tour with the priest of the pilgrim is long but pleasant."),
        "fr": ("prêtre", "La visite avec le prêtre du pèlerin est longue mais agréable."),
        "it": ("prete", "La visita con il prete del pellegrino è lunga ma piacevole."),
        "es": ("sacerdote", "La visita con el sacerdote del peregrino es larga pero agradable."),
        "ro": ("preot", "Excursia cu preotul pelerinului este lungă, dar plăcută.")}),
    ("rehearsal", "attractor1", {
        "en": ("accompanist", "The rehearsal with the accompanist of the musician is hard and tiring."),
        "fr": ("accompagnateur", "La répétition avec l'accompagnateur du musicien est dure et fatigante."),
        "it": ("accompagnatore", "La prova con l'accompagnatore del musicista è dura e faticosa."),
        "es": ("acompañante", "El ensayo con el acompañante del músico es duro y agotador."),
        "ro": ("acompaniator", "Repetiția cu acompaniatorul muzicianului este grea și obositoare.")}),
    ("story", "subject", {
        "en": ("testimony", "The testimony about the cook of the sailor is strange but true."),
        "fr": ("témoignage", "Le témoignage sur le cuisinier du marin est étrange mais vrai."),
        "it": ("testimonianza", "La testimonianza sul cuoco del marinaio è strana ma vera."),
        "es": ("testimonio", "El testimonio sobre el cocinero del marinero es extraño pero cierto."),
        "ro": ("mărturie", "Mărturia despre bucătarul marinarului este ciudată, dar adevărată.")}),
    ("bouquet", "subject", {
        "en": ("plant", "The plant for the choreographer of the dancer is big and beautiful."),
        "fr": ("plante", "La plante pour le chorégraphe du danseur est grande et belle."),
        "it": ("pianta", "La pianta per il coreografo del ballerino è grande e bella."),
        "es": ("planta", "La planta para el coreógrafo del bailarín es grande y bonita."),
        "ro": ("plantă", "Planta pentru coregraful dansatorului este mare și frumoasă.")}),
    ("lesson", "attractor1", {
        "en": ("captain", "The lesson with the captain of the pilot is canceled today."),
        "fr": ("capitaine", "La leçon avec le capitaine du pilote est annulée ce matin."),
        "it": ("capitano", "La lezione con il capitano del pilota è annullata oggi."),
        "es": ("capitán", "La clase con el capitán del piloto está cancelada hoy."),
        "ro": ("căpitan", "Lecția cu căpitanul pilotului este anulată astăzi.")}),
    ("song", "attractor1", {
        "en": ("muse", "The song for the muse of the pianist is sad and beautiful."),
        "fr": ("muse", "La chanson pour la muse du pianiste est triste et belle."),
        "it": ("musa", "La canzone per la musa del pianista è triste e bella."),
        "es": ("musa", "La canción para la musa de la pianista es triste y hermosa."),
        "ro": ("muză", "Cântecul pentru muza pianistului este trist și frumos.")}),
]


@pytest.mark.parametrize("seed, slot, by_language", REVIEWED, ids=[r[0] for r in REVIEWED])
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_reviewed_alternative_reads_naturally(language, seed, slot, by_language):
    noun, expected = by_language[language]
    assert realise_with(language, seed, slot, noun, two("sg", "sg", "sg")) == expected


@pytest.mark.parametrize("language, seed, slot, removed", [
    # the alternatives the reviewers found anomalous or borderline are gone, in every language
    ("en", "offer", "subject", {"request", "letter"}),
    ("fr", "offer", "subject", {"demande", "lettre", "enchère"}),
    ("it", "offer", "subject", {"richiesta", "lettera", "contratto"}),
    ("ro", "offer", "subject", {"cerere", "scrisoare"}),
    ("en", "consultation", "attractor1", {"secretary", "receptionist", "trainee", "apprentice"}),
    ("fr", "consultation", "attractor1", {"secrétaire", "réceptionniste", "stagiaire", "apprenti"}),
    ("it", "consultation", "attractor1", {"segretaria", "receptionist", "tirocinante", "apprendista"}),
    ("ro", "consultation", "attractor1", {"secretară", "recepționer", "stagiar", "ucenic"}),
    ("en", "reward", "subject", {"medal"}),
    ("fr", "reward", "subject", {"médaille", "distinction"}),
    ("it", "reward", "subject", {"medaglia", "riconoscimento"}),
    ("ro", "reward", "subject", {"medalie", "distincție"}),
    ("fr", "contract", "subject", {"engagement"}),
    ("fr", "compliment", "attractor1", {"aide"}),          # "au compliment à l'aide du" = 'with the help of'
    ("ro", "compliment", "attractor1", {"ajutor"}),        # bare "ajutor" reads as 'help'
    ("ro", "complaint", "attractor1", {"cunoscut"}),       # bare "de la cunoscut" needs an article
    ("ro", "cake", "attractor1", {"cunoscut"}),
    ("ro", "postcard", "attractor1", {"cunoscut"}),
])
def test_anomalous_alternatives_are_gone(language, seed, slot, removed):
    alternatives = lexicon.load(language)["seeds_by_id"][seed]["alternatives"][slot]
    assert len(alternatives) >= lexicon.MIN_ALTERNATIVES and not removed & set(alternatives)


@pytest.mark.parametrize("language, seed, noun, count, expected", [
    ("fr", "compliment", "vendeur", 2, "Le compliment au vendeur du boulanger est gentil et sincère."),
    ("ro", "compliment", "vânzător", 2, "Complimentul pentru vânzătorul brutarului este amabil și sincer."),
    ("ro", "complaint", "colocatar", 1, "Reclamația de la colocatar este justificată."),
    ("ro", "cake", "musafir", 1, "Tortul pentru musafir este delicios și proaspăt."),
])
def test_a_person_after_the_preposition_reads_as_a_person(language, seed, noun, count, expected):
    assert realise_with(language, seed, "attractor1", noun, Step("sg", "sg", count, "sg", "sg")) == expected


# --- a duel has one opponent: events with one counterpart are rejected as participant heads ------

@pytest.mark.parametrize("language, expected", [
    # formerly "the duel with the enemies of the knight" and "the duel with the enemy and the knight"
    ("en", ("The fight with the enemies of the knight is brutal and legendary.",
            "The fight with the enemy and the knights is brutal and legendary.")),
    ("fr", ("Le combat avec les ennemis du chevalier est brutal et légendaire.",
            "Le combat avec l'ennemi et les chevaliers est brutal et légendaire.")),
    ("it", ("Il combattimento con i nemici del cavaliere è brutale e leggendario.",
            "Il combattimento con il nemico e i cavalieri è brutale e leggendario.")),
    ("es", ("El combate con los enemigos del caballero es brutal y legendario.",
            "El combate con el enemigo y los caballeros es brutal y legendario.")),
    ("ro", ("Lupta cu dușmanii cavalerului este brutală și legendară.",
            "Lupta cu dușmanul și cavalerii este brutală și legendară.")),
])
def test_a_fight_takes_several_opponents(language, expected):
    assert (realise(language, "fight", two("sg", "pl", "sg")),
            realise(language, "fight", two("sg", "sg", "pl", coord=True))) == expected


@pytest.mark.parametrize("language, duel", [("en", "duel"), ("fr", "duel"), ("it", "duello"), ("ro", "duel")])
def test_a_one_counterpart_event_is_rejected_as_a_participant_head(tmp_path, language, duel):
    data = _shipped(language)
    assert data["nouns"][duel][lexicon.ONE_COUNTERPART] is True
    fight = next(s for s in data["seeds"] if s["id"] == "fight")
    own = fight["alternatives"]["subject"][0]
    fight["alternatives"]["subject"][0] = duel
    err = _error(tmp_path, data, language)
    assert err.entry == "seed 'fight'.relations"
    assert f"the subject alternative {duel!r} is an event with one counterpart" in err.reason
    assert "the duel with the enemies" in err.reason
    fight["alternatives"]["subject"][0], fight["subject"] = own, duel
    assert f"the subject {duel!r} is an event with one counterpart" in _error(tmp_path, data, language).reason


def test_a_declared_counterpart_relation_is_rejected(tmp_path):
    data = _shipped("en")
    data["seeds"][0]["relations"]["attractor1"] = "counterpart"
    err = _error(tmp_path, data)
    assert "'counterpart'" in err.reason and "the duel with the enemies" in err.reason


def test_a_one_counterpart_noun_is_fine_outside_a_participant_relation(tmp_path):
    """A duel can be talked about: as the head of a topic relation it is plausible in every number."""
    data = _shipped("en")
    story = next(s for s in data["seeds"] if s["id"] == "story")
    story["alternatives"]["subject"][0] = "duel"
    _check(tmp_path, data)


# --- Romanian orthography: a comma before the adversative "dar" ---------------------------------

def test_romanian_predicates_put_a_comma_before_dar():
    forms = []
    for seed in lexicon.load("ro")["seeds"]:
        predicate = seed["predicate"]
        forms += [p[n] for p in ([predicate] if "sg" in predicate else predicate.values()) for n in ("sg", "pl")]
    with_dar = [f for f in forms if " dar " in f]
    assert len(with_dar) == 30 and all(", dar " in f for f in with_dar)


def test_french_predicates_and_subjects_read_as_meant():
    """Issue 25: 'Les cadeaux … sont généreux et justes' is said of people, not of gifts or tips; 'les soldes'
    reads as 'the sales'. The reward predicate is 'bien mérité', and solde is no payment subject."""
    assert realise_with("fr", "reward", "subject", "cadeau", two("sg", "sg", "sg")) == \
        "Le cadeau pour le sauveteur du randonneur est bien mérité."
    raw = yaml.safe_load((registry.generator_class("agr").lexicon_dir() / "fr.yaml").read_text(encoding="utf-8"))
    payment = next(seed for seed in raw["seeds"] if seed["id"] == "payment")
    assert "solde" not in payment["alternatives"]["subject"] and len(payment["alternatives"]["subject"]) >= 8


def test_english_wna_takes_the_prenominal_genitive_where_it_is_natural():
    """Issue 25: 'The question of the comedian is funny' is stilted English; a person's question, letter or
    meal takes the prenominal genitive; a depiction or a topic keeps 'of' (the video of the dog)."""
    wna = Step("sg", "sg", 1, "sg", "sg", drop1=True)
    assert realise_with("en", "question", None, None, wna) == "The comedian's question is funny and clever."
    assert realise_with("en", "question", None, None, wna._replace(subj="pl", verb="pl", n2="pl")) == \
        "The comedians' questions are funny and clever."
    assert realise_with("en", "video", None, None, wna).startswith("The video of the dog ")
    g = registry.generator("agr", "en")
    seeds = g.lex["seeds_by_id"]
    assert seeds["question"]["relations"]["subject_attractor2"] in g.lex["possessive_relations"]
    assert seeds["video"]["relations"]["subject_attractor2"] not in g.lex["possessive_relations"]
    texts = [a for split in generate(registry.get_spec("agr_en_typeI"), Options(size=300, seed=123),
                                     progress=False).values()
             for r in split.records for a, label in zip(r["answers"], r["answer_labels"]) if label == "WNA"]
    assert texts and not [t for t in texts if re.match(r"(\w+ \w+ that )?The (question|letter|meal) of ", t)]
    assert [t for t in texts if "'s " in t or "s' " in t]
