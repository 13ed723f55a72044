"""Turning a spray/load step plus its words (verb, agent, theme, location) into a sentence.

Each step is compiled once into a recipe of phrase tables; a phrase table holds, for one verb,
the phrase (``onto the wall``, ``were sprayed``) for every index of the argument it depends on,
so realising a sentence is a handful of lookups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from builders.base import Sentence
from builders.sprayload import verbs
from builders.sprayload.lexicon import NP, VerbEntry
from builders.sprayload.rules import VERB_SLOTS, Step, role

NOEMB_PREP = "for"  # a noun-modifying preposition: "the paint for the wall"
FIELD = {"Agent": 1, "Theme": 2, "Loc": 3}   # position of each role's index in a Material
POOL = {"Agent": "agents", "Theme": "themes", "Loc": "locations"}


class Material(NamedTuple):
    """The words of one sentence: indices of the verb and of its agent, theme and location."""

    verb: int
    agent: int
    theme: int
    loc: int


def preposition(entry: VerbEntry, np: NP, which: str, step: Step, wrong: bool) -> str:
    """The preposition of a PP argument in this step."""
    if wrong:
        return entry.wrong_prep
    if which == "Loc":
        return np.prep or entry.loc_prep
    if which == "Theme":
        return "with"
    if "VerbPass" in step.slots:
        return "by"
    # an agent in the PP of an active clause (AASSM) takes the preposition the frame gives that
    # position: "with" after a location object, the locative one after a theme object
    return "with" if step.slots[2] == "NP-Loc" else entry.loc_prep


class Realiser:
    """Builds sentences from compiled recipes and per-verb phrase tables."""

    def __init__(self, entries: Sequence[VerbEntry]):
        self.entries = entries
        self._recipes: dict[Step, tuple] = {}
        self._keys: dict[tuple, int] = {}            # phrase-table key -> table number
        self._tables: list[list] = [[] for _ in entries]   # verb -> table number -> phrases

    def _table(self, verb: int, key: tuple) -> tuple[str, ...]:
        """Phrases of one slot kind for every index of the argument the slot depends on."""
        entry = self.entries[verb]
        kind, first, slot, step = key
        if kind == "embedded":   # indexed by head * len(pool) + dependent
            head, pp = (getattr(entry, POOL[role(s)]) for s in slot.strip("[]").split())
            phrases = [f"{h.text} {NOEMB_PREP} {d.text}" for h in head for d in pp]
        elif kind == "verb":     # indexed by the subject
            group = verbs.active if slot == "Verb" else verbs.passive
            phrases = [group(entry.forms, step.frame, np.plural) for np in getattr(entry, POOL[role(step.slots[0])])]
        elif slot.startswith("NP-"):
            phrases = [np.text for np in getattr(entry, POOL[role(slot)])]
        else:
            which = role(slot)
            phrases = [f"{preposition(entry, np, which, step, slot.startswith('*'))} {np.text}"
                       for np in getattr(entry, POOL[which])]
        if first:
            phrases = [p[0].upper() + p[1:] for p in phrases]
        return tuple(phrases)

    def _compile(self, step: Step) -> tuple:
        """Each slot as (table number, the Material fields that index the table)."""
        if step.rule:   # the label tag does not change the words: the untagged step's recipe, kept for both
            untagged = step._replace(rule="")
            self._recipes[step] = self._recipes.get(untagged) or self._compile(untagged)
            return self._recipes[step]
        recipe = []
        for i, slot in enumerate(step.slots):
            if slot in VERB_SLOTS:
                key, fields = ("verb", False, slot, step), (FIELD[role(step.slots[0])],)
            elif slot.startswith("["):
                key, fields = ("embedded", False, slot, None), tuple(FIELD[role(s)] for s in slot.strip("[]").split())
            else:
                key = ("arg", i == 0, slot, None if slot.startswith("NP-") else step)
                fields = (FIELD[role(slot)],)
            recipe.append((self._keys.setdefault(key, len(self._keys)), fields))
        self._recipes[step] = (tuple(recipe), step.pattern())
        return self._recipes[step]

    def _lookup(self, verb: int, number: int) -> tuple[str, ...]:
        tables = self._tables[verb]
        while len(tables) <= number:
            tables.append(None)
        if tables[number] is None:
            key = next(k for k, n in self._keys.items() if n == number)
            tables[number] = self._table(verb, key)
        return tables[number]

    def __call__(self, mat: Material, step: Step) -> Sentence:
        recipe, pattern = self._recipes.get(step) or self._compile(step)
        tables = self._tables[mat.verb]
        chunks = []
        for number, fields in recipe:
            table = tables[number] if number < len(tables) and tables[number] is not None \
                else self._lookup(mat.verb, number)
            if len(fields) == 1:
                chunks.append(table[mat[fields[0]]])
            else:   # NOEMB: head x dependent
                pool = len(getattr(self.entries[mat.verb], POOL[next(r for r, f in FIELD.items() if f == fields[1])]))
                chunks.append(table[mat[fields[0]] * pool + mat[fields[1]]])
        return Sentence(" ".join(chunks) + ".", tuple(chunks), pattern)
