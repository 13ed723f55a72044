"""Agreement slots: ``seeds.<id>.alternatives.<subject|attractor1|attractor2>`` (type II/III words)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from blm_augment import inflect, yaml_edit
from blm_augment.adapters import Adapter, Candidate, Context
from blm_augment.errors import AugmentError
from builders.checks import check_record
from builders import morphology
from builders.base import ConfigSpec
from builders.generate import to_record

ROLES = ("subject", "attractor1", "attractor2")
NUMBER_OF = {"subject": "subj", "attractor1": "n1", "attractor2": "n2"}


class AgrAdapter(Adapter):
    phenomenon = "agr"
    module = "builders.agr.lexicon"

    def __init__(self, path, text: str, slot: str):
        super().__init__(path, text, slot)
        parts = slot.split(".")
        if not (len(parts) == 4 and parts[0] == "seeds" and parts[2] == "alternatives" and parts[3] in ROLES):
            raise AugmentError(f"--slot {slot!r}: agreement slots are seeds.<id>.alternatives.<{'|'.join(ROLES)}>")
        self.seed = next(s for s in self.raw["seeds"] if s.get("id") == parts[1])
        self.role = parts[3]
        self.nouns: dict[str, dict] = self.raw.get("nouns", {})
        own = {"subject": self.seed["subject"], "attractor1": self.seed["attractor1"]["noun"],
               "attractor2": self.seed["attractor2"]}
        self.own = own[self.role]
        self.others = [w for r, w in own.items() if r != self.role]
        self.current = list(self.seed["alternatives"][self.role])
        self.known = {k: v["gender"] for k, v in self.nouns.items() if "gender" in v}
        self.morph = morphology.language(self.language)
        self.description = (f"nouns that can replace '{self.own}' in these sentences, keeping their meaning "
                            f"natural in the singular and the plural")

    def seed_words(self) -> list[str]:
        return [self.own, *self.current]

    def contexts(self, n: int, seed: int) -> list[Context]:
        rng = random.Random(seed)
        with self.generator(self.text, self.language) as gen:
            sequences = list(gen.sequences())
            out = []
            for i in range(n):
                word = rng.choice([self.own, *self.current])
                clause, steps = sequences[i % len(sequences)]
                step = steps[rng.randrange(len(steps))]
                if self.role == "attractor2" and step.count != 2:
                    step = next(s for s in steps if s.count == 2)
                mat = gen.base_material(self.seed["id"])._replace(**{self.role: word})
                sentence = gen.sentence(mat, step, clause)
                number = getattr(step, NUMBER_OF[self.role])
                gender = self.nouns[word].get("gender")
                out.append(Context(sentence.text, self.nouns[word][number], {"gender": gender} if gender else {}))
        return out

    def novelty(self, word: str) -> str | None:
        key = self._key(word)
        if key == self.own or key in self.current:
            return "already in the slot"
        if key in self.others:
            return "already another noun of this seed"
        return None

    entry_shape = "one noun key with its forms (cat: {sg: cat, pl: cats})"

    def entry_key(self, entry: Any) -> str | None:
        if not (isinstance(entry, dict) and len(entry) == 1):
            return None
        ((key, forms),) = entry.items()
        return key if isinstance(key, str) and key.strip() and isinstance(forms, dict) else None

    def _key(self, word: str) -> str:
        """The lexicon key of a word: an existing noun's key when its singular matches, else the word."""
        return next((k for k, v in self.nouns.items() if v.get("sg") == word), word)

    def make_entry(self, cand: Candidate) -> tuple[Any, str]:
        key = self._key(cand.word)
        if key in self.nouns:
            return {key: self.nouns[key]}, "the lexicon's entry"
        if self.language not in ("en", "it", "fr", "es"):
            return None, (f"{self.language} noun entries need forms the rules do not make "
                          "(LEXICON.md); add the noun by hand")
        gender, how = cand.hint.get("gender"), "article"
        if self.morph.GENDERS and gender is None:
            gender, how = inflect.guess_gender(cand.word, self.language, self.known)
            if gender is None:
                return None, f"gender unknown ({how}); propose it with its article"
        pl = inflect.plural(cand.word, self.language, gender)
        if pl is None or pl == cand.word and self.language == "en":
            return None, "no regular plural"
        entry = {"gender": gender} if self.morph.GENDERS else {}
        entry.update({"sg": cand.word, "pl": pl})
        note = f"plural {pl}" + (f", gender {gender} from {how}" if gender else "")
        if self.language == "fr" and cand.word.lower().startswith("h"):
            if cand.word.lower().split("-")[0] in inflect.FR_H_ASPIRE:
                entry["elide"] = False  # le héros, du héros
                note += ", aspirated h (elide: false)"
            else:
                note += "; CHECK the h: add elide: false if it is aspirated (le héros)"
        return {key: entry}, note

    def frequency_form(self, entry: Any) -> str:
        """The lemma key, as for the seed words (Romanian: the bare noun, not the definite form wordfreq lacks)."""
        (key,) = entry
        return key

    def forms(self, entry: Any) -> list[str]:
        (noun,) = entry.values()
        return [v for k, v in noun.items() if k not in ("gender", "elide", "article") and isinstance(v, str)]

    def stem_clash(self, cand: Candidate) -> str | None:
        """An alternative that shares a stem with the seed's own word or its other nouns would not be
        a different word to the type II/III overlap measures (content stems)."""
        stems = morphology.content_stems(" ".join(self.forms(cand.entry)), self.language)
        for word in [self.own, *self.others]:
            noun = self.nouns[word]
            forms = [v for k, v in noun.items() if k not in ("gender", "elide", "article") and isinstance(v, str)]
            shared = stems & morphology.content_stems(" ".join(forms), self.language)
            if shared:
                return f"shares the stem {sorted(shared)[0]!r} with {word!r}"
        return None

    def edit(self, text: str, entries: Sequence[Any]) -> str:
        data = yaml_edit.safe_load(text)
        seed = next(s for s in data["seeds"] if s.get("id") == self.seed["id"])
        keys = [k for e in entries for k in e if k not in seed["alternatives"][self.role]]
        node = yaml_edit.find(yaml_edit.compose(text, str(self.path)), self.slot, str(self.path))
        text = yaml_edit.append(text, node, [yaml_edit.render(k) for k in keys], str(self.path))
        new = [f"{yaml_edit.render(k)}: {yaml_edit.render(v)}" for e in entries for k, v in e.items()
               if k not in data["nouns"]]
        node = yaml_edit.find(yaml_edit.compose(text, str(self.path)), "nouns", str(self.path))
        return yaml_edit.append(text, node, new, str(self.path))

    def validate(self, cands: Sequence[Candidate]) -> dict[str, str]:
        """Realise type II records in which every sentence shows the candidate, per clause type."""
        failed: dict[str, str] = {}
        for cand in cands:
            try:
                why = self._check_one(cand, self.edit(self.text, [cand.entry]))
            except AugmentError as err:
                why = str(err)
            except (KeyError, ValueError) as err:
                why = f"cannot realise: {err}"
            if why:
                failed[cand.word] = why
        return failed

    def _check_one(self, cand: Candidate, text: str) -> str | None:
        (key,) = cand.entry
        rng = random.Random(0)
        with self.generator(text, self.language) as gen:
            index = gen._pool(self.seed["id"], self.role).index(key)
            for clause in gen.clauses:
                swaps = tuple((self.role, index) if self.role in gen._visible_slots(i, clause)
                              else (gen._visible_slots(i, clause)[0], 0) for i in range(8))
                for balanced in (False, True):
                    spec = ConfigSpec("agr", self.language, "II", "", balanced)
                    inst = gen.realise(spec, gen.type2_plan(clause, 0, self.seed["id"], swaps))
                    failures = check_record(to_record(spec, inst, "augment", 0, rng), spec)
                    if failures:
                        return f"{spec.name}: validator checks failed: {', '.join(failures)}"
                    if not cand.examples:
                        cand.examples = [s.text for s in inst.context[4:]] + [inst.candidates[0].sentence.text]
        return None
