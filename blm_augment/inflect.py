"""From a proposed word to a lexicon noun entry: gender, plural and weak forms, as far as rules know.

What the rules cannot decide (an Italian noun in -e, a German simplex noun) is decided by an article
the proposal came with (``der Käse``, ``il latte``: the model or the list wrote it), by the head of a
German compound that the lexicon already has (``Ziegenkäse`` -> ``Käse``: m), or not at all: the word
is then filtered out as one the morphology cannot inflect. Every form made here is spell-checked
afterwards, and the reviewer reads the realised sentences.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

ARTICLES = {
    "de": {"der": "m", "die": "f", "das": "n", "den": "m", "dem": None, "des": None},
    "it": {"il": "m", "lo": "m", "la": "f", "l'": None, "i": "m", "gli": "m", "le": "f", "un": "m", "uno": "m",
           "una": "f", "un'": "f"},
    "fr": {"le": "m", "la": "f", "l'": None, "les": None, "un": "m", "une": "f"},
    "es": {"el": "m", "la": "f", "los": "m", "las": "f", "un": "m", "una": "f"},
    "en": {"the": None, "a": None, "an": None, "some": None},
}
_WORD = re.compile(r"^[^\W\d_]+(?:[ '\-][^\W\d_]+){0,2}$", re.UNICODE)

# suffix -> gender, where the suffix decides it (longest match first)
SUFFIX_GENDER = {
    "de": {"ung": "f", "heit": "f", "keit": "f", "schaft": "f", "tion": "f", "sion": "f", "tät": "f", "ei": "f",
           "ette": "f", "erin": "f", "chen": "n", "lein": "n", "ment": "n", "ling": "m", "ismus": "m"},
    "it": {"zione": "f", "sione": "f", "tà": "f", "tù": "f", "trice": "f", "essa": "f", "ore": "m", "ino": "m",
           "ina": "f", "etto": "m", "etta": "f", "ello": "m", "ella": "f", "aio": "m", "aia": "f", "iere": "m",
           "iera": "f", "o": "m", "a": "f"},
    "fr": {"tion": "f", "sion": "f", "té": "f", "ette": "f", "ence": "f", "ance": "f", "ment": "m", "age": "m",
           "eau": "m", "isme": "m", "eur": "m", "euse": "f", "rice": "f"},
    "es": {"ción": "f", "sión": "f", "dad": "f", "tud": "f", "umbre": "f", "triz": "f", "ora": "f", "ero": "m",
           "era": "f", "ista": None, "ante": None, "ente": None, "miento": "m", "aje": "m", "or": "m", "ma": None,
           "iatra": None, "peda": None, "nauta": None, "peuta": None, "cida": None,
           "o": "m", "a": "f"},
}
# Italian nouns in -a/-o that the suffix rule gets wrong
IT_EXCEPTIONS = {"mano": "f", "radio": "f", "foto": "f", "moto": "f", "auto": "f", "eco": "f", "dinamo": "f",
                 "problema": "m", "sistema": "m", "tema": "m", "programma": "m", "clima": "m", "pigiama": "m",
                 "papà": "m", "caffè": "m", "tè": "m", "pianeta": "m", "poeta": "m", "pilota": "m"}
# English nouns in -man whose plural is -mans
EN_MAN_PLURAL_S = {"human", "german", "roman", "talisman", "caiman", "shaman", "ottoman", "walkman", "cayman"}
# French nouns in -al whose plural is -als (bal: bals, not baux)
FR_AL_PLURAL_S = {"bal", "festival", "récital", "carnaval", "chacal", "régal", "cal", "cérémonial", "narval", "pal",
                  "choral", "santal", "aval", "cantal"}
# French words whose h is aspirated: no elision (le héros, la harpiste)
FR_H_ASPIRE = {"héros", "harpiste", "harpe", "hibou", "hache", "haie", "haine", "hall", "hamac", "hameau", "hamster",
               "hanche", "handicap", "hangar", "hareng", "haricot", "hasard", "hausse", "haut", "hautbois",
               "hauteur", "hérisson", "hernie", "héron", "hêtre", "hockey", "homard", "honte", "hoquet", "hors-d'œuvre",
               "housse", "hublot", "huée", "hurlement", "hussard", "hutte", "hockeyeur", "handballeur", "hippie",
               "hold-up", "hooligan", "hotte", "houx", "halte", "harpon", "harnais", "hâte"}
# Spanish nouns the suffix rule gets wrong: None = a person noun of either gender (el/la atleta)
ES_EXCEPTIONS = {"foto": "f", "moto": "f", "mano": "f", "radio": "f", "día": "m", "mapa": "m", "planeta": "m",
                 "cura": "m", "atleta": None, "colega": None, "acróbata": None, "escolta": None, "gimnasta": None,
                 "guía": None, "pirata": None, "poeta": None, "policía": None, "recluta": None, "modelo": None,
                 "soprano": None, "testigo": None, "jerarca": None, "homicida": None, "centinela": None}
# Spanish nouns ending in í/ú: the plural varies (esquís, esquíes)
ES_INVARIABLE = {"esquí", "bisturí", "champú", "menú", "tabú", "rubí", "jabalí", "colibrí"}
_UNACCENT = {"á": "a", "é": "e", "í": "i", "ó": "o", "ú": "u"}
# German masculine person nouns of the weak declension (den Studenten, den Jungen)
DE_WEAK = ("ent", "ant", "ist", "oge", "at", "graf", "soph", "nom", "it")


def split_article(text: str, language: str) -> tuple[str, str | None]:
    """(``word``, gender the article shows or None): ``der Käse`` -> (``Käse``, ``m``)."""
    text = " ".join(text.strip().split())
    low = text.lower()
    for article, gender in sorted(ARTICLES.get(language, {}).items(), key=lambda kv: -len(kv[0])):
        if article.endswith("'") and low.startswith(article) and len(text) > len(article):
            return text[len(article):].strip(), gender
        if low.startswith(article + " ") and len(text) > len(article) + 1:
            return text[len(article) + 1:].strip(), gender
    return text, None


def looks_like_a_word(word: str, language: str) -> bool:
    """Letters (up to three words joined by spaces, hyphens or apostrophes); German nouns capitalised."""
    if not _WORD.match(word) or len(word) > 40 or len(word) < 2:
        return False
    if language == "de":
        return word[0].isupper() and not word.isupper()
    return not (len(word) > 1 and word.isupper())


def guess_gender(word: str, language: str, known: Mapping[str, str]) -> tuple[str | None, str]:
    """(gender, how it was decided): the lexicon's own nouns, a compound head, a decisive suffix."""
    if word in known:
        return known[word], "as the lexicon's entry"
    if language == "it" and word.lower() in IT_EXCEPTIONS:
        return IT_EXCEPTIONS[word.lower()], "listed exception"
    if language == "de":  # compounds take the gender of their head: Ziegenkäse <- Käse
        heads = [k for k in known if len(k) >= 3 and word.lower().endswith(k.lower()) and word != k]
        if heads:
            head = max(heads, key=len)
            return known[head], f"head of the compound ({head})"
    if language == "es" and word.lower() in ES_EXCEPTIONS:
        gender = ES_EXCEPTIONS[word.lower()]
        return gender, "listed exception" if gender else "masculine or feminine: propose it with its article"
    if language == "it" and word.endswith("ista"):
        return None, "-ista is masculine or feminine"
    last = word.split()[0] if language in ("it", "fr") else word.split()[-1]  # head noun of "olio d'oliva"
    for suffix, gender in sorted(SUFFIX_GENDER.get(language, {}).items(), key=lambda kv: -len(kv[0])):
        if last.lower().endswith(suffix):  # a None gender: the suffix takes either (es el/la pianista)
            return (gender, f"suffix -{suffix}") if gender else (None, f"-{suffix} is masculine or feminine")
    return None, "no decisive suffix"


def plural(word: str, language: str, gender: str | None = None) -> str | None:
    """The regular plural (spell-checked later), or None where the rules do not know it."""
    parts = re.split(r"(-(?:de|à|en)-|-d')", word, maxsplit=1) if language == "fr" else []
    if len(parts) == 3:
        head, sep, rest = parts
        inflected = plural(head, language, gender)  # pot-de-vin -> pots-de-vin: the head inflects
        return None if inflected is None else f"{inflected}{sep}{rest}"
    if " " in word:
        head, _, rest = word.partition(" ")
        if language == "en":
            *first, last = word.split(" ")
            inflected = plural(last, language)
            return None if inflected is None else " ".join(first + [inflected])
        inflected = plural(head, language, gender)
        return None if inflected is None else f"{inflected} {rest}"
    low = word.lower()
    if language == "en":
        if low.endswith("man") and low not in EN_MAN_PLURAL_S:
            return word[:-3] + "men"  # chairman -> chairmen
        if low.endswith("sis"):
            return word[:-3] + "ses"  # analysis -> analyses
        if re.search(r"(s|x|z|ch|sh)$", low):
            return word + "es"
        if re.search(r"[^aeiou]y$", low):
            return word[:-1] + "ies"
        return word + "s"
    if language == "it":
        if word[-1] in "àèéìòùÀ" or word[-1] not in "aeiou":
            return word  # invariable: città, caffè, bar
        if low.endswith(("co", "go")):
            return None  # amico/amici but cuoco/cuochi: not a rule
        if low.endswith(("ca", "ga")):
            return word[:-1] + "he" if gender == "f" else word[:-1] + "hi"
        if low.endswith("io"):
            return word[:-1]
        if low.endswith("a"):
            return word[:-1] + ("e" if gender == "f" else "i")
        return word[:-1] + "i"
    if language == "es":
        if low.endswith(("s", "x")) or low in ES_INVARIABLE:
            return None  # lunes, tórax, análisis (invariable) vs. autobús/autobuses: not a rule
        if low[-1] in "aeiouáéó":
            return word + "s"
        if low.endswith("z"):
            return word[:-1] + "ces"  # actriz -> actrices
        if re.search(r"[áéíóú][ns]$", low):  # camión -> camiones: the stress needs no accent now
            return word[:-2] + _UNACCENT[word[-2]] + word[-1] + "es"
        if re.search(r"[aeiou]n$", low) and not re.search(r"[áéíóú]", low):
            return None  # examen -> exámenes, joven -> jóvenes: an accent is added, not a rule
        return word + "es"
    if language == "fr":
        if low.endswith(("s", "x", "z")):
            return word
        if low.endswith("al"):
            return word + "s" if low in FR_AL_PLURAL_S else word[:-2] + "aux"
        if low.endswith(("eau", "au", "eu")):
            return word + "x"
        return word + "s"
    return None


def weak_accusative(word: str, gender: str, role: str) -> str | None:
    """German weak masculines (persons only): ``Junge`` -> ``Jungen``, ``Student`` -> ``Studenten``."""
    if gender != "m" or role != "agent":
        return None
    if word.endswith("e"):
        return word + "n"
    if word.lower().endswith(DE_WEAK):
        return word + "en"
    return None
