"""Articles, contractions and case forms made by the realiser."""

from builders.morphology import content_stems, fr, it, ro, sentence_stems

M = {"gender": "m"}


def test_french_articles_elision_and_contractions():
    ordinateur = {"gender": "m", "sg": "ordinateur", "pl": "ordinateurs"}
    heros = {"gender": "m", "sg": "héros", "pl": "héros", "elide": False}
    assert fr.definite(ordinateur, "sg") == "l'ordinateur"
    assert fr.definite(heros, "sg") == "le héros"
    assert fr.genitive({"gender": "m", "sg": "programme", "pl": "programmes"}, "sg") == "du programme"
    assert fr.genitive(ordinateur, "pl") == "des ordinateurs"
    assert fr.prep_phrase("près de", {"gender": "m", "sg": "lit", "pl": "lits"}, "sg") == "près du lit"
    assert fr.prep_phrase("à", {"gender": "m", "sg": "mur", "pl": "murs"}, "pl") == "aux murs"
    assert fr.finalize("dont que Anne parlait") == "dont qu'Anne parlait"


def test_italian_articulated_prepositions():
    studio = {"gender": "m", "sg": "studio", "pl": "studi"}
    esperimento = {"gender": "m", "sg": "esperimento", "pl": "esperimenti"}
    finestra = {"gender": "f", "sg": "finestra", "pl": "finestre"}
    assert it.definite(studio, "sg") == "lo studio" and it.definite(studio, "pl") == "gli studi"
    assert it.genitive(esperimento, "sg") == "dell'esperimento"
    assert it.genitive(esperimento, "pl") == "degli esperimenti"
    assert it.prep_phrase("vicino a", finestra, "sg") == "vicino alla finestra"
    assert it.prep_phrase("in", studio, "pl") == "negli studi"
    assert it.prep_phrase("su", {"gender": "m", "sg": "tavolo", "pl": "tavoli"}, "sg") == "sul tavolo"
    assert it.prep_phrase("con", finestra, "pl") == "con le finestre"


def test_romanian_articles_follow_the_preposition():
    perete = {"gender": "m", "sg": "peretele", "pl": "pereții", "gen_sg": "peretelui", "gen_pl": "pereților",
              "bare_sg": "perete", "bare_pl": "pereți"}
    assert ro.prep_phrase("de pe", perete, "sg") == "de pe perete"
    assert ro.prep_phrase("de pe", perete, "sg", modified=True) == "de pe peretele"
    assert ro.prep_phrase("cu", perete, "pl") == "cu pereții"
    assert ro.genitive(perete, "pl") == "pereților"


def test_content_stems_ignore_function_words_and_inflection():
    assert content_stems("Les vélos avec le panier sont neufs.", "fr") == content_stems(
        "Le vélo avec les paniers est neuf.", "fr")
    assert content_stems("Barca cu vela este trasă la mal.", "ro") == content_stems(
        "Bărcile cu velele sunt trase la mal.", "ro")
    assert not content_stems("The dog is on the table.", "en") & content_stems("A cat was near it.", "en")


def test_sentence_stems_are_the_whole_sentences_stems():
    for chunks, code in [(("L'ordinateur", "de l'étudiant", "qu'Anne", "est neuf"), "fr"),
                         (("Il cuoco", "dell'albergo", "è arrivato"), "it"),
                         (("The dog", "on the table", "barks"), "en")]:
        text = " ".join(chunks) + "."
        assert sentence_stems(text, chunks, code) == content_stems(text, code)
    assert sentence_stems("Il cuoco, dell'albergo!", ("Il cuoco", "dell'albergo"), "it") == content_stems(
        "Il cuoco, dell'albergo!", "it")   # not its chunks joined: stemmed whole
