"""COS+ slots: ``agents`` (the shared pool) and ``verbs.<lemma>.patients`` (one verb's patients)."""

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
from builders.cosplus.rules import AGENT, PATIENT, Step
from builders.cosplus.realise import Material
from builders.generate import to_record

SLOTS_HELP = "agents, or verbs.<lemma>.patients"


class CosPlusAdapter(Adapter):
    phenomenon = "cosplus"
    module = "builders.cosplus.lexicon"

    def __init__(self, path, text: str, slot: str):
        super().__init__(path, text, slot)
        parts = slot.split(".")
        if parts == ["agents"]:
            self.role, self.verb = AGENT, None
        elif len(parts) == 3 and parts[0] == "verbs" and parts[2] == "patients":
            self.role = PATIENT
            self.verb = next((v for v in self.raw.get("verbs", []) if parts[1] in (v.get("lemma"), )), None)
            if self.verb is None:
                raise AugmentError(f"--slot {slot!r}: no verb {parts[1]!r} in {path}")
        else:
            raise AugmentError(f"--slot {slot!r}: COS+ slots are {SLOTS_HELP}")
        self.morph = morphology.language(self.language)
        self.pools = {pool: {self._sg(e): e for e in self.raw.get(pool, [])} for pool in ("agents", "patients")}
        self.known = {sg: e["gender"] for pool in self.pools.values() for sg, e in pool.items()
                      if isinstance(e, dict) and "gender" in e}
        self.current = list(self.verb["patients"]) if self.role == PATIENT else list(self.pools["agents"])
        if self.role == PATIENT:
            lemma = self.verb["lemma"]
            self.description = (f"foods or drinks that can {lemma}: each is natural both as the object of "
                                f"'{lemma}' (the cook makes it {lemma}) and as the subject of the intransitive "
                                f"(it {lemma}s by itself)")
        else:
            self.description = ("people who could plausibly cook or prepare food at home or at work, "
                                "natural as the subject of every food verb (melt the butter, boil the milk)")

    @staticmethod
    def _sg(entry: Any) -> str:
        return entry if isinstance(entry, str) else entry.get("sg", "")

    entry_shape = "a word (butter) or a mapping with its singular (sg: burro, gender: m)"

    def entry_key(self, entry: Any) -> str | None:
        key = entry if isinstance(entry, str) else entry.get("sg") if isinstance(entry, dict) else None
        return key if isinstance(key, str) and key.strip() else None

    def languages(self) -> list[str]:
        return self._variants()

    def _variants(self, gender: str | None = None) -> list[str]:
        """Generator languages to check: de-mix, and de-case for a masculine noun; else the language."""
        from builders.cosplus.generator import CosPlusGenerator
        variants = CosPlusGenerator.load_template().language_variants.get(self.language)
        if not variants:
            return [self.language]
        return [f"{self.language}-{name}" for name, decl in variants.items()
                if gender is None and len(decl.genders) == len(self.morph.GENDERS) or gender in decl.genders]

    # --- contexts --------------------------------------------------------------------------
    def _steps(self) -> list[tuple[Step, str]]:
        """(step, case of the slot's noun) of the sentences that show the slot."""
        steps = [(Step("main", AGENT, PATIENT, t), "nom" if self.role == AGENT else "acc") for t in ("present", "past")]
        if self.role == PATIENT:
            steps += [(Step("main", PATIENT, None, t), "nom") for t in ("present", "past")]
            steps += [(Step("subject_relative", PATIENT, None, "present"), "nom")]
        else:
            steps += [(Step("subject_relative", AGENT, PATIENT, "present"), "nom")]
        return steps

    def contexts(self, n: int, seed: int) -> list[Context]:
        """Sentences with current words of every gender the language has (the article shows it)."""
        rng = random.Random(seed)
        with self.generator(self.text, self._variants()[0]) as gen:
            by_gender: dict[str | None, list[str]] = {}
            for word in self.current:
                entry = self.pools["agents" if self.role == AGENT else "patients"][word]
                gender = entry.get("gender") if isinstance(entry, dict) else None
                if self.language == "it" and word[0].lower() in "aeiouh":
                    continue  # l' hides the gender
                by_gender.setdefault(gender, []).append(word)
            verbs = sorted(gen.lex.verbs)
            out: list[Context] = []
            for i in range(n):
                gender = sorted(by_gender, key=str)[i % len(by_gender)]
                word = rng.choice(by_gender[gender])
                step, case = self._steps()[i % len(self._steps())]
                if self.role == PATIENT:
                    mat = Material(self.verb["lemma"], rng.choice(gen.agents), word)
                else:
                    verb = rng.choice(verbs)
                    mat = Material(verb, word, rng.choice(gen.lex.verbs[verb].patients))
                sentence = gen.sentence(mat, step, "")
                entry = (gen.lex.agents if self.role == AGENT else gen.lex.patients)[word]
                surface = self.morph.noun(entry, "sg", case) if gen.realiser.grammar.case_marking else entry["sg"]
                out.append(Context(sentence.text, surface, {"gender": gender} if gender else {}))
        return out

    # --- candidates ------------------------------------------------------------------------
    def novelty(self, word: str) -> str | None:
        if word.lower() in {w.lower() for w in self.current}:
            return "already in the slot"
        other = "patients" if self.role == AGENT else "agents"
        if word in self.pools[other]:
            return f"already one of the {other} (a noun is an agent or a patient, not both)"
        return None

    def make_entry(self, cand: Candidate) -> tuple[Any, str]:
        pool = self.pools["agents" if self.role == AGENT else "patients"]
        if cand.word in pool:
            return pool[cand.word], "the lexicon's entry"
        if not self.morph.GENDERS:
            return cand.word, ""
        gender, how = cand.hint.get("gender"), "article"
        if gender is None:
            gender, how = inflect.guess_gender(cand.word, self.language, self.known)
        if gender is None:
            return None, f"gender unknown ({how}); propose it with its article"
        entry: dict[str, Any] = {"sg": cand.word, "gender": gender}
        note = f"gender {gender} from {how}"
        if self.language == "it" and cand.word[0].lower() == "h":
            entry["article"] = {"sg": "l'"}
            note += "; article l' (silent h)"
        if self.language == "de":
            weak = inflect.weak_accusative(cand.word, gender, self.role)
            if weak:
                entry["acc_sg"] = weak
                note += f"; weak masculine (den {weak})"
        return entry, note

    def _verb_stems(self, node: dict) -> frozenset[str]:
        forms = [node["present"], node["past"]] + list(node.get("intransitive", {}).values())
        return morphology.content_stems(" ".join(forms), self.language)

    def stem_clash(self, cand: Candidate) -> str | None:
        """A noun sharing a content stem with a verb it is used with would repeat that stem inside
        the verb's sentences and block it from every type III instance with that verb (patients:
        their verb; agents: every verb, since agents go with all of them)."""
        stems = morphology.content_stems(" ".join(self.forms(cand.entry)), self.language)
        verbs = [self.verb] if self.role == PATIENT else self.raw["verbs"]
        for node in verbs:
            shared = stems & self._verb_stems(node)
            if shared:
                return f"shares the stem {sorted(shared)[0]!r} with the verb {node['lemma']!r}"
        return None

    def edit(self, text: str, entries: Sequence[Any]) -> str:
        """``text`` with the entries added to the slot (and new nouns to their pool)."""
        pool_name = "agents" if self.role == AGENT else "patients"
        pool = {self._sg(e) for e in yaml_edit.safe_load(text).get(pool_name, [])}
        new_nouns = [e for e in entries if self._sg(e) not in pool]
        if self.role == PATIENT:
            node = yaml_edit.find(yaml_edit.compose(text, str(self.path)), self.slot, str(self.path))
            present = set(next(v for v in yaml_edit.safe_load(text)["verbs"]
                               if v["lemma"] == self.verb["lemma"])["patients"])
            keys = [yaml_edit.render(self._sg(e)) for e in entries if self._sg(e) not in present]
            text = yaml_edit.append(text, node, keys, str(self.path))
        node = yaml_edit.find(yaml_edit.compose(text, str(self.path)), pool_name, str(self.path))
        return yaml_edit.append(text, node, [yaml_edit.render(e) for e in new_nouns], str(self.path))

    # --- the validator ---------------------------------------------------------------------
    def validate(self, cands: Sequence[Candidate]) -> dict[str, str]:
        """Realise type I records (T2I and I2T, both tenses, paper and balanced) with each candidate
        in the slot and run the validator on them; fill each candidate's example sentences."""
        if not cands:
            return {}
        try:
            return self._validate(cands, self.edit(self.text, [c.entry for c in cands]))
        except AugmentError:
            if len(cands) == 1:
                raise
        failed = {}
        for cand in cands:  # one of them breaks the lexicon: find which
            try:
                failed.update(self._validate([cand], self.edit(self.text, [cand.entry])))
            except AugmentError as err:
                failed[cand.word] = str(err)
        return failed

    def _validate(self, cands: Sequence[Candidate], text: str) -> dict[str, str]:
        failed: dict[str, str] = {}
        genders = {c.entry.get("gender") if isinstance(c.entry, dict) else None for c in cands}
        languages = sorted({lang for g in genders for lang in self._variants(g)} | set(self._variants()))
        for language in languages:
            with self.generator(text, language) as gen:
                for cand in cands:
                    if cand.word in failed or (cand.word not in gen.lex.agents and cand.word not in gen.lex.patients):
                        continue  # de-case: not masculine
                    try:
                        why = self._check_one(gen, language, cand)
                    except (KeyError, ValueError) as err:
                        why = f"cannot realise: {err}"
                    if why:
                        failed[cand.word] = why
        return failed

    def _check_one(self, gen, language: str, cand: Candidate) -> str | None:
        rng = random.Random(0)
        if self.role == PATIENT:
            materials = [(self.verb["lemma"], a, cand.word) for a in gen.agents[:2]]
        else:
            verbs = sorted(gen.lex.verbs)[:2]
            materials = [(v, cand.word, gen.lex.verbs[v].patients[0]) for v in verbs]
        for variant in gen.variants:
            for balanced in (False, True):
                spec = ConfigSpec("cosplus", language, "I", variant, balanced)
                for tense in gen.template.tenses:
                    for verb, agent, patient in materials:
                        inst = gen.realise(spec, (tense, verb, agent, patient))
                        failures = check_record(to_record(spec, inst, "augment", 0, rng), spec)
                        if failures:
                            return f"{spec.name}: validator checks failed: {', '.join(failures)}"
                        if variant == gen.variants[0] and tense == "present" and not balanced and not cand.examples:
                            cand.examples = [s.text for s in inst.context] + [inst.candidates[0].sentence.text]
        return None
