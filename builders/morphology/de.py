"""German: definite articles and relative pronouns by gender, case and number; weak-noun forms.

Noun entries carry ``gender`` (m/f/n) and ``sg`` (nominative singular); the forms the rules
cannot predict are optional fields: ``acc_sg``/``dat_sg`` for weak masculines (``Student`` ->
``Studenten``), ``gen_sg`` (``Käses``), ``pl`` and ``dat_pl``. A form that is needed but missing
raises a KeyError naming the field, so the lexicon can be fixed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from builders.errors import InputError

HUNSPELL = "de_DE"  # spell-check dictionary (builders/spellcheck.py)
HUNSPELL_PACKAGE = "hunspell-de-de"

NOUN_FIELDS = ("gender", "sg")
OPTIONAL_NOUN_FIELDS = ("pl", "acc_sg", "dat_sg", "gen_sg", "dat_pl")
GENDERS = ("m", "f", "n")
CASES = ("nom", "acc", "dat", "gen")

# (gender or "pl", case) -> form
DEFINITE_ARTICLES = {
    ("m", "nom"): "der", ("m", "acc"): "den", ("m", "dat"): "dem", ("m", "gen"): "des",
    ("f", "nom"): "die", ("f", "acc"): "die", ("f", "dat"): "der", ("f", "gen"): "der",
    ("n", "nom"): "das", ("n", "acc"): "das", ("n", "dat"): "dem", ("n", "gen"): "des",
    ("pl", "nom"): "die", ("pl", "acc"): "die", ("pl", "dat"): "den", ("pl", "gen"): "der",
}
RELATIVE_PRONOUNS = {
    ("m", "nom"): "der", ("m", "acc"): "den", ("m", "dat"): "dem", ("m", "gen"): "dessen",
    ("f", "nom"): "die", ("f", "acc"): "die", ("f", "dat"): "der", ("f", "gen"): "deren",
    ("n", "nom"): "das", ("n", "acc"): "das", ("n", "dat"): "dem", ("n", "gen"): "dessen",
    ("pl", "nom"): "die", ("pl", "acc"): "die", ("pl", "dat"): "denen", ("pl", "gen"): "deren",
}
PREPOSITION_CASES = {  # the case a preposition governs in the phrases the builders make
    "mit": "dat", "von": "dat", "zu": "dat", "bei": "dat", "aus": "dat", "nach": "dat", "seit": "dat",
    "neben": "dat", "in": "dat", "an": "dat", "auf": "dat", "unter": "dat", "vor": "dat", "hinter": "dat",
    "für": "acc", "durch": "acc", "gegen": "acc", "ohne": "acc", "um": "acc", "wegen": "gen",
}
CONTRACTIONS = {"von dem": "vom", "zu dem": "zum", "zu der": "zur", "in dem": "im", "an dem": "am",
                "bei dem": "beim", "in das": "ins", "an das": "ans"}
_CONTRACT = re.compile(r"\b(" + "|".join(CONTRACTIONS) + r")\b")


def _check(number: str, case: str) -> None:
    if number not in ("sg", "pl"):
        raise InputError(f"number must be 'sg' or 'pl', got {number!r}")
    if case not in CASES:
        raise InputError(f"case must be one of {', '.join(CASES)}, got {case!r}")


def _slot(entry: Mapping, number: str) -> str:
    return "pl" if number == "pl" else entry["gender"]


def noun(entry: Mapping, number: str = "sg", case: str = "nom") -> str:
    """The inflected noun: weak masculines take ``acc_sg``/``dat_sg``; dative plural adds -n."""
    _check(number, case)
    if number == "sg":
        if case == "nom":
            return entry["sg"]
        if case == "gen":
            if "gen_sg" not in entry:
                raise KeyError(f"noun {entry['sg']!r} needs a 'gen_sg' form for the genitive")
            return entry["gen_sg"]
        if case == "acc":
            return entry.get("acc_sg", entry["sg"])
        return entry.get("dat_sg", entry.get("acc_sg", entry["sg"]))  # weak nouns: dat = acc
    if "pl" not in entry:
        raise KeyError(f"noun {entry['sg']!r} needs a 'pl' form for the plural")
    plural = entry["pl"]
    if case == "dat":
        return entry.get("dat_pl", plural if plural.endswith(("n", "s")) else plural + "n")
    return plural


def article(entry: Mapping, number: str = "sg", case: str = "nom") -> str:
    _check(number, case)
    return DEFINITE_ARTICLES[(_slot(entry, number), case)]


def relative_pronoun(entry: Mapping, number: str = "sg", case: str = "nom") -> str:
    """``der/den/dem/dessen``, ``die/der/deren``, ``das/dem/dessen``, plural ``die/denen/deren``."""
    _check(number, case)
    return RELATIVE_PRONOUNS[(_slot(entry, number), case)]


def definite(entry: Mapping, number: str = "sg", case: str = "nom") -> str:
    return f"{article(entry, number, case)} {noun(entry, number, case)}"


def shows_case(entry: Mapping, number: str = "sg", cases: tuple[str, ...] = ("nom", "acc")) -> bool:
    """Whether the definite noun phrase differs in each of ``cases`` (``der/den Koch``: yes;
    ``die Butter``, ``das Eis``: no), i.e. whether case, not position, tells subject from object."""
    return len({definite(entry, number, case) for case in cases}) == len(cases)


def prep_phrase(prep: str, entry: Mapping, number: str, modified: bool = False) -> str:
    """The preposition's case (``PREPOSITION_CASES``, dative by default) on the article and noun."""
    case = PREPOSITION_CASES.get(prep.split()[-1], "dat")
    return _contract(f"{prep} {definite(entry, number, case)}")


def genitive(entry: Mapping, number: str) -> str:
    return definite(entry, number, "gen")


def coordinate(entry: Mapping, number: str) -> str:
    return f"und {definite(entry, number)}"


def _contract(text: str) -> str:
    return _CONTRACT.sub(lambda m: CONTRACTIONS[m[1]], text)


def finalize(text: str) -> str:
    """Nothing to do on whole text: contractions are made in ``prep_phrase`` only, because a
    relative pronoun after a preposition never contracts (``der Topf, in dem ...``)."""
    return text


# Clause grammar the builders need beyond the noun phrase.
RELATIVE_CLAUSE_ORDER = "verb-final"  # der Koch, der den Käse schmilzt
COMMA_BEFORE_RELATIVE = True          # relative clauses are set off by a comma
