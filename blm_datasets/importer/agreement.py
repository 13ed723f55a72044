"""Agreement labels read from the candidates themselves, not from the names the release gives them.

A candidate is described by its *shape*: the subject's number, the attractors' numbers in order,
how many coordinations it has and the verb's number. The shape comes from the released pattern
(``Subj_pl P1_pl P2_sg V_sg``) where the file has one, else from the text in languages whose
articles mark number (fr, it): the articles after the clause start give the subject and the
attractors, and the verb's number is the gold's unless the candidate changes a word that is not
an article, its noun or a preposition merging with an article. Comparing a candidate's shape with
the gold's gives its label (SPEC §4): a coordination more → Coord; another number of attractors →
WNA; subject and verb disagreeing → AEN2 / AEN1 / AEV (the verb agrees with attractor 2, 1 or
neither); else one attractor's number changed → WN1 / WN2. Anything else is undecided and the
released name stands.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_PATTERN_TOKEN = re.compile(r"^(Subj|NP|P(?:P)?\d|Conj\d*|VP?)[_-](sg|pl|None)$")


@dataclass(frozen=True)
class Language:
    """What the text reading needs: articles by number, the coordinating conjunctions, the complementisers
    that open a completive clause, and the prepositions (those merging with articles among them)."""

    singular: frozenset[str]
    plural: frozenset[str]
    conjunctions: frozenset[str]
    complementisers: frozenset[str]
    prepositions: frozenset[str]
    relatives: frozenset[str]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


LANGUAGES = {
    "fr": Language(_words("le la l' un une du au ce cet cette mon ma ton ta son sa notre votre leur"),
                   _words("les des aux ces mes tes ses nos vos leurs"), _words("et"),
                   _words("que qu'"), _words("de d' à avec près sur dans pour sans sous chez contre par entre vers"),
                   _words("dont qui")),
    "it": Language(_words("il lo la l' un uno una un' del dello della dell' al allo alla all' dal dallo dalla dall' "
                          "nel nello nella nell' sul sullo sulla sull' col"),
                   _words("i gli le dei degli delle ai agli alle dai dagli dalle nei negli nelle sui sugli sulle coi"),
                   _words("e ed"), _words("che"), _words("di a da in su con per tra fra sotto sopra vicino"),
                   _words("cui che")),
}
AGREEMENT_ERRORS = ("AEV", "AEN1", "AEN2")


@dataclass(frozen=True)
class Shape:
    """What a candidate says about number: subject, attractors in order, coordinations, verb (None: unknown)."""

    subject: str
    attractors: tuple[str, ...]
    coordinations: int
    verb: str | None


# ------------------------------------------------------------------------------------------ patterns
def pattern_shape(pattern: str) -> Shape | None:
    """The shape a 4dev pattern states (``Prefix Subj_sg P1_pl P2_None V_sg``); None if it states no subject/verb."""
    subject = verb = None
    attractors, coordinations = [], 0
    for token in pattern.split():
        match = _PATTERN_TOKEN.match(token)
        if not match:
            continue
        slot, number = match.groups()
        if number == "None":
            continue
        if slot in ("Subj", "NP"):
            subject = number
        elif slot in ("V", "VP"):
            verb = number
        else:
            coordinations += slot.startswith("Conj")
            attractors.append(number)
    return Shape(subject, tuple(attractors), coordinations, verb) if subject and verb else None


# ------------------------------------------------------------------------------------------ text
def tokens(text: str) -> list[str]:
    """Lower-case words, an elided article split from its noun (``l’ordinateur`` → ``l'`` ``ordinateur``)."""
    text = re.sub(r"-\s+", "-", text.lower().replace("’", "'"))   # the release writes "sous- sol"
    return re.findall(r"[^\W\d_]+'|[^\s']+", text)


def _clause_start(words: list[str], lang: Language) -> int:
    """After a complementiser that comes before any preposition or second article (``Jean suppose que …``), else 0."""
    articles = 0
    for i, word in enumerate(words):
        articles += word in lang.singular or word in lang.plural
        if word in lang.prepositions or articles > 1:
            return 0
        if word in lang.complementisers:
            return i + 1
    return 0


def _articles(words: list[str], lang: Language) -> list[tuple[int, str]]:
    """(position, number) of each noun phrase after the clause start: its article's number, or "-" for a
    noun without article after a preposition (``de succession``)."""
    start = _clause_start(words, lang)
    articles = lang.singular | lang.plural
    out = []
    for i, word in enumerate(words):
        if i < start:
            continue
        if word in articles:
            out.append((i, "sg" if word in lang.singular else "pl"))
        elif (out and word in lang.prepositions and i + 1 < len(words) and words[i + 1].isalpha()
              and words[i + 1] not in articles | lang.prepositions | lang.complementisers | lang.relatives):
            out.append((i, "-"))
    return out


def _noun_phrase_words(words: list[str], lang: Language) -> set[int]:
    """Positions of the articles (or bare prepositions), the word after each (its noun) and the prepositions."""
    marked = set()
    for i, _ in _articles(words, lang):
        marked |= {i, i + 1}
    return marked | {i for i, w in enumerate(words) if w in lang.prepositions}


def _verb_changed(gold: list[str], candidate: list[str], lang: Language) -> bool:
    """Whether the candidate changes a word outside the noun phrases (the verb, in these templates)."""
    in_gold, in_candidate = _noun_phrase_words(gold, lang), _noun_phrase_words(candidate, lang)
    matcher = difflib.SequenceMatcher(a=gold, b=candidate, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        if any(i not in in_gold for i in range(i1, i2)) or any(j not in in_candidate for j in range(j1, j2)):
            return True
    return False


def text_shapes(gold: str, candidates: list[str], iso: str) -> list[Shape | None] | None:
    """The shapes of ``candidates`` read from their text against the gold's; None for a language without a table."""
    lang = LANGUAGES.get(iso)
    if lang is None:
        return None
    gold_words = tokens(gold)
    gold_articles = [n for _, n in _articles(gold_words, lang)]
    if not gold_articles:
        return [None] * len(candidates)
    out: list[Shape | None] = []
    for text in candidates:
        words = tokens(text)
        numbers = [n for _, n in _articles(words, lang)]
        if not numbers:
            out.append(None)
            continue
        verb = gold_articles[0]
        if _verb_changed(gold_words, words, lang):
            verb = "pl" if verb == "sg" else "sg"
        out.append(Shape(numbers[0], tuple(numbers[1:]), sum(w in lang.conjunctions for w in words), verb))
    return out


def clause_type(sentence: str, iso: str) -> str | None:
    """completive (a complementiser before the subject), relative (a relative pronoun) or main; None: no table."""
    lang = LANGUAGES.get(iso)
    if lang is None:
        return None
    words = tokens(sentence)
    if _clause_start(words, lang):
        return "completive"
    first_preposition = next((i for i, w in enumerate(words) if w in lang.prepositions), len(words))
    if any(w in lang.relatives for w in words[first_preposition:]):
        return "relative"
    return "main"


# ------------------------------------------------------------------------------------------ labels
def label(gold: Shape, candidate: Shape) -> tuple[str | None, str]:
    """The SPEC label the candidate's shape gives against the gold's, and why (None: no label fits)."""
    if candidate.coordinations > gold.coordinations:
        return "Coord", "an attractor coordinated"
    if len(candidate.attractors) != len(gold.attractors):
        n = len(candidate.attractors)
        return "WNA", f"{n} attractor{'s' if n != 1 else ''}, the gold {len(gold.attractors)}"
    if candidate.verb is None:
        return None, "the verb's number is unknown"
    if candidate.subject != candidate.verb:
        changed = "subject number changed, verb kept" if candidate.verb == gold.verb else (
            "verb number changed" if candidate.subject == gold.subject else "subject and verb changed")
        n1, n2 = (list(candidate.attractors) + [None, None])[:2]
        agrees = "AEN2" if n2 == candidate.verb else "AEN1" if n1 == candidate.verb else "AEV"
        noun = {"AEN2": "attractor 2", "AEN1": "attractor 1"}.get(agrees, "no noun")
        return agrees, f"{changed}; the verb agrees with {noun}"
    if candidate.subject != gold.subject:
        return None, "subject and verb both changed"
    flips = [i for i, (a, b) in enumerate(zip(gold.attractors, candidate.attractors)) if a != b]
    if len(flips) == 1 and flips[0] < 2:
        return f"WN{flips[0] + 1}", f"attractor {flips[0] + 1}'s number changed"
    if not flips:
        return None, "no number changed"
    return None, f"attractors {', '.join(str(i + 1) for i in flips)} changed"


def content_labels(gold: int, answers: list[str], patterns: list[str] | None, iso: str
                   ) -> tuple[list[tuple[str | None, str]], str]:
    """(label, why) per candidate from its content (the gold's own entry is ("Correct", "")), and what was read:
    "patterns" where every candidate has one the reader knows, else "text" ("" when neither can be read)."""
    shapes: list[Shape | None] | None = None
    read = ""
    if patterns and all(pattern_shape(p) for p in patterns):
        shapes, read = [pattern_shape(p) for p in patterns], "patterns"
    else:
        shapes, read = text_shapes(answers[gold], answers, iso), "text"
    if shapes is None or shapes[gold] is None:
        return [(None, "")] * len(answers), ""
    gold_shape = shapes[gold]
    if gold_shape.verb is not None and gold_shape.subject != gold_shape.verb:
        return [(None, "the gold's subject and verb disagree")] * len(answers), read
    out = []
    for i, shape in enumerate(shapes):
        if i == gold:
            out.append(("Correct", ""))
        elif shape is None:
            out.append((None, "no subject or verb found"))
        else:
            out.append(label(gold_shape, shape))
    return out, read
