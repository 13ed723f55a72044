"""Count the answer-set defects listed in the project's issue, from generated records only.

    python benchmarks/answer_set_defects.py [--configs PREFIX ...] [--size N] [--json OUT]
        [--shrink-default] [--num-proc 2] [--only-second]

    # issue 25's counts (section 9 only), e.g.:
    python benchmarks/answer_set_defects.py --configs cosplus sprayload cos_ od_ --size 2000 --seed 123 \
        --num-proc 1 --only-second        # ~3 min on 2 shared cores (6 min while another job runs)

Every detector reads the records of ``builders.generate.generate`` (SPEC §2: ``answers``,
``answer_labels``, ``answer_error_classes``, ``answer_patterns``, ``context_chunks`` …), never the
generators' internals, so it still counts correctly when labels are added or renamed, or when a
fix changes the text (a Coord candidate that repeats its preposition is no longer counted).
Sections (one table each; counts, denominators, shares and examples):

1 coord       agr Coord candidates whose second conjunct cannot stay under the preposition
2 od_it_si    od/it GRAMMAR candidates that are a si passive (theme subject + si, no agent)
3 cos_it_esi  cos/it GRAMMAR candidates = the gold without si, for verbs whose bare intransitive is fine
4 sprayload   gold answers / context sentences in a variant the verb lacks (Levin 1993 §9.5/§9.7/§9.8)
5 roles       role swaps and wrong-subject-role candidates by (phenomenon, language, label) -> class;
              GRAMMAR candidates that are natural sentences for their lemma (NATURAL_GRAMMAR)
6 agr_ae      AE* candidates whose attractor numbers differ from the gold's; verb relation per label
7 agr_context context sentences made implausible by number crossing (heuristic below)
9 second      type II/III: SEQUENCE candidates with the gold's frame (a second answer unless the
              current templates declare the label in same_frame_distractors), per config family and label;
              the lexicon defects of issue 25 (od_en E-WRBY with a landmark theme, cos E-WRBY with a natural
              force, cos_it grafico, od_it da-phrases that read as agents, de COS+ accusative heads)
8 shrink      delivered vs asked per config, rejection reasons; --size 200 for seeds 0..9 on
              agr_*_typeII/III. Sizes: --size for every config, or the defaults with --shrink-default
              (all 102 configs at their default sizes, ~495 000 instances: 20 min on 2 busy cores).

Sections 1-7 use --size instances per config (default 600; the shares are what matters): 3-4 min
for all 102 configs on 2 busy cores.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from typing import Any, Iterable

from builders import registry
from builders.base import SourceUnavailable
from builders.generate import Options, generate

ROLE_PHENOMENA = ("cos", "od", "cosplus", "roll", "sprayload")
TOKEN_RE = re.compile(r"[^\W\d_]+'|[^\W\d_]+")

# ---------------------------------------------------------------- 1. Coord under a preposition
# A conjunct can stay under a preposition only if the preposition can take both conjuncts:
# fr de/à (also inside près de, à côté de) are repeated before each coordinated complement;
# it articulated prepositions (della, sul, nei …) carry the first conjunct's article only;
# ro prepositions other than "cu" take a bare noun (din grădină), so a conjunct with the enclitic
# article (palatul) cannot be their complement. en prepositions take a coordination freely.
CONJ = {"en": "and", "fr": "et", "it": "e|ed", "ro": "și"}
PREPS = {
    "en": "of in on at with for from about near over under behind inside".split(),
    "fr": "de d' du des à au aux sur dans avec pour devant près chez sous par en".split(),
    "it": ("di d' a da in su con per tra fra vicino del dello della dell' dei degli delle al allo alla "
           "all' ai agli alle dal dallo dalla dall' dai dagli dalle nel nello nella nell' nei negli "
           "nelle sul sullo sulla sull' sui sugli sulle col coi").split(),
    "ro": "cu de la pe din lângă despre pentru peste în sub spre".split(),
}
MUST_REPEAT = {
    "fr": set("de d' du des à au aux".split()),
    "it": {p for p in PREPS["it"] if re.fullmatch(r"(de|a|da|ne|su|co)(l|ll|i|gl)\w*'?", p)},
}


def tokens(text: str) -> list[str]:
    """Lower-cased words; an elided article or preposition keeps its apostrophe (dell', l')."""
    return TOKEN_RE.findall(text.lower())


def ro_definite(word: str, number: str, words: set[str]) -> bool:
    """Whether a Romanian noun form carries the enclitic article; genitives elsewhere in the
    record (``words``) decide the ambiguous endings (vale/valea, sticle/sticlele)."""
    if number == "pl":
        if word + "lor" in words:          # bare plural + -lor = genitive plural (văi -> văilor)
            return False
        if any(w.endswith("lor") and w[:3] == word[:3] for w in words):
            return True
        return word.endswith(("le", "ii"))
    if word.endswith(("ul", "ua")) or (word.endswith("a") and not word.endswith("ea")):
        return True                        # palatul, perdeaua, casa (bare feminines end in ă/e)
    if word + "ui" in words or (word.endswith("le") and word[:-1] + "ui" in words):
        return True                        # palatul -> palatului, fratele -> fratelui
    if word.endswith("ea"):
        return word[:-1] + "lei" not in words  # canapea -> canapelei (bare); valea -> văii
    return False


def coord_check(rec: dict, i: int) -> dict | None:
    """Parse one Coord candidate: governing preposition, repetition, verb number, verdict."""
    lang, text, pattern = rec["language"], rec["answers"][i], rec["answer_patterns"][i]
    m = re.search(rf"\b(?:{CONJ[lang]})\b", text)
    if not m:
        return None
    before, after = tokens(text[:m.start()]), tokens(text[m.end():])
    gov = next((t for t in reversed(before) if t in PREPS[lang]), None)
    repeated = bool(after) and after[0] in PREPS[lang]
    if lang in MUST_REPEAT:
        stranded = gov in MUST_REPEAT[lang] and not repeated
    elif lang == "ro":
        others = {w for j, a in enumerate(rec["answers"]) if j != i for w in tokens(a)}
        num = re.search(r"Coord\S*-(sg|pl)", pattern)
        stranded = (gov not in (None, "cu") and not repeated and bool(after)
                    and ro_definite(after[0], num.group(1) if num else "sg", others))
    else:
        stranded = False
    verb = re.search(r"\bVP-(sg|pl)\b", pattern)
    verb_sg = bool(verb) and verb.group(1) == "sg"
    return {"gov": gov, "stranded": stranded, "ungrammatical": stranded and verb_sg, "text": text}


def section_coord(data: dict[str, list[dict]]) -> dict:
    """Section 1: per agr config, Coord candidates stranded / ungrammatical / mislabelled."""
    rows, examples, by_prep = [], defaultdict(list), defaultdict(Counter)
    for name, recs in data.items():
        if not name.startswith("agr_"):
            continue
        lang = recs[0]["language"] if recs else "?"
        c = Counter()
        for rec in recs:
            bad = False
            for i, p in enumerate(rec["answer_patterns"]):
                if "Coord" not in p:
                    continue
                res = coord_check(rec, i)
                c["coord"] += 1
                if res is None:
                    c["unparsed"] += 1
                    continue
                c["stranded"] += res["stranded"]
                c["ungrammatical"] += res["ungrammatical"]
                if res["stranded"]:
                    by_prep[lang][res["gov"]] += 1
                if res["ungrammatical"] and rec["answer_error_classes"][i] != "GRAMMAR":
                    c["not_GRAMMAR"] += 1
                    bad = True
                    if len(examples[lang]) < 3:
                        examples[lang].append(f"{name}: {res['text']}  [{rec['answer_error_classes'][i]}]")
            c["records_bad"] += bad
        rows.append({"config": name, "records": len(recs), **{k: c[k] for k in
                     ("coord", "unparsed", "stranded", "ungrammatical", "not_GRAMMAR", "records_bad")}})
    print_table("1. agr Coord: second conjunct stranded under de/à / articulated / article-taking "
                "preposition; ungrammatical = stranded + singular verb (no parse); defect = ungrammatical "
                "but not labelled GRAMMAR", rows,
                ["config", "records", "coord", "unparsed", "stranded", "ungrammatical", "not_GRAMMAR",
                 "records_bad"],
                share=("records_bad", "records"))
    summary = summarise(rows, lambda r: (r["config"].split("_")[1], "balanced" in r["config"]),
                        ("records_bad", "records"))
    for lang, ex in examples.items():
        print(f"  {lang} governing prepositions of stranded conjuncts: {dict(by_prep[lang].most_common(8))}")
        for e in ex:
            print(f"    e.g. {e}")
    return {"per_config": rows, "per_language": summary, "examples": examples}


# ---------------------------------------------------------------- role patterns (sections 2, 3, 5)
FRAME_RE = re.compile(r"\s*\[(?![^\]]*NP)[^\]]*\]\s*$")     # "[past]", "[must have]"; not NOEMB's "[NP …]"
NP_RE = re.compile(r"^NP-([A-Za-z]+?)\d*(?:\.(NOM|ACC))?$")
OBL_RE = re.compile(r"^(?:by-NP-([A-Za-z]+?)|PP-(Agent))\d*$")      # by-phrases and the with/by agent
# Which argument a phenomenon's verbs take as intransitive subject (the other one is wrong there).
INTRANSITIVE_SUBJECT = {"cos": "Theme", "cosplus": "Theme", "roll": "Theme", "od": "Agent"}


def clause(pattern: str) -> dict | None:
    """Subject, object and oblique roles, voice and si of a role pattern (None without a verb).
    Patient is read as Theme (COS+ says Patient where COS/OD say Theme)."""
    toks = FRAME_RE.sub("", pattern).replace("[", " ").replace("]", " ").replace("*", "").split()
    toks = [t.replace("Patient", "Theme") for t in toks]
    verb = next((i for i, t in enumerate(toks) if t in ("ActiveV", "PassiveV", "rollV", "did", "was")
                 or t.startswith(("V-", "Verb", "si-V"))), None)
    if verb is None:
        return None
    v = toks[verb]
    voice = ("passive" if "Passive" in v or v.startswith("VerbPass") else
             "copula" if v in ("was", "did") else "active")
    nps = [(i, m.group(1), m.group(2)) for i, t in enumerate(toks) if (m := NP_RE.match(t))]
    if any(case for _, _, case in nps):
        subj = next((r for _, r, case in nps if case == "NOM"), None)
        obj = next((r for _, r, case in nps if case == "ACC"), None)
        ovs = bool(nps) and nps[0][2] == "ACC"
    else:
        subj = next((r for i, r, _ in nps if i < verb), None)
        obj = next((r for i, r, _ in nps if i > verb), None)
        ovs = False
    obl = [m.group(1) or m.group(2) for t in toks if (m := OBL_RE.match(t))]
    return {"subj": subj, "obj": obj, "obl": obl, "voice": voice, "ovs": ovs,
            "si": "si" in toks or v.startswith("si-")}


def shape(c: dict | None) -> str | None:
    """'intransitive agent', 'intransitive theme + si' …; None for other clauses."""
    if c is None or c["subj"] is None or c["voice"] != "active" or c["obj"] or c["obl"]:
        return None
    return f"intransitive {c['subj'].lower()}{' + si' if c['si'] else ''}"


def role_category(c: dict | None, phenomenon: str) -> str | None:
    """The role-swap / wrong-subject-role kind of a clause, or None for a canonical one."""
    if c is None or c["subj"] is None:
        return None
    subj, obj, obl, si = c["subj"], c["obj"], c["obl"], " + si" if c["si"] else ""
    nonagent = subj != "Agent"
    if c["voice"] == "passive":
        if subj == "Agent" and any(r != "Agent" for r in obl):
            return "passive: agent subject, non-agent by-phrase (role swap)"
        return "passive: agent subject" if subj == "Agent" else None
    if c["voice"] == "copula":
        return "copula: agent subject (agent located)" if subj == "Agent" and not obl else None
    if obj == "Agent" and nonagent:
        return "active: non-agent subject, agent object (role swap)"
    if nonagent and "Agent" in obl:
        return "active: non-agent subject, agent in by/with-PP"
    if subj == "Agent" and obj is None and obl:
        return "active: agent subject, non-agent by-phrase"
    expected = INTRANSITIVE_SUBJECT.get(phenomenon)
    if obj is None and not obl and expected and subj != expected:
        kind = ("a theme-intransitive verb (COS, COS+, roll)" if expected == "Theme"
                else "an agent-intransitive verb (OD)")
        return f"intransitive: {subj.lower()} as subject of {kind}{si}"
    if c["ovs"] and not nonagent:
        return "OVS: object first, roles kept (case)"
    return None


# ---------------------------------------------------------------- 2. od_it si passive
def section_od_it_si(data: dict[str, list[dict]]) -> dict:
    """Section 2: si passives (theme + si, no agent) among the od_it candidates, by class."""
    rows, examples = [], []
    for name, recs in data.items():
        if not name.startswith("od_it"):
            continue
        c = Counter()
        for rec in recs:
            hit = False
            for p, cls, text in zip(rec["answer_patterns"], rec["answer_error_classes"], rec["answers"]):
                cl = clause(p)
                if cl and cl["voice"] == "active" and cl["si"] and cl["subj"] == "Theme" \
                        and cl["obj"] is None and "Agent" not in cl["obl"]:
                    c[cls] += 1
                    if cls == "GRAMMAR":
                        hit = True
                        if len(examples) < 3:
                            examples.append(f"{name}: {text}  [{cls}]")
            c["records_bad"] += hit
        rows.append({"config": name, "records": len(recs), "si_passive_GRAMMAR": c["GRAMMAR"],
                     "si_passive_SEQUENCE": c["SEQUENCE"], "records_bad": c["records_bad"]})
    print_table("2. od_it: theme subject + si + active verb, no agent (a si passive: grammatical) "
                "labelled GRAMMAR", rows,
                ["config", "records", "si_passive_GRAMMAR", "si_passive_SEQUENCE", "records_bad"],
                share=("records_bad", "records"))
    for e in examples:
        print(f"    e.g. {e}")
    return {"per_config": rows, "examples": examples}


# ---------------------------------------------------------------- 3. cos_it E-SI
# Italian COS verbs whose intransitive without si is standard (Treccani, "intr. (aus. essere)"):
# il pane indurisce, la foto rimpicciolisce, il tempo migliora, la pasta cuoce, l'olio frigge,
# l'argento annerisce, sbiancò in volto, la città ingrandisce. The issue's list; other verbs of the
# lexicon need si (si scioglie, si apre, si rompe …).
COS_IT_BARE_INTRANSITIVE = {"indurire", "sbiancare", "rimpicciolire", "migliorare", "cuocere",
                            "friggere", "annerire", "ingrandire"}


def section_cos_it_esi(data: dict[str, list[dict]]) -> dict:
    """Section 3: the gold without si as a GRAMMAR candidate, for verbs where it is correct."""
    rows, examples, per_lemma = [], [], Counter()
    for name, recs in data.items():
        if not name.startswith("cos_it"):
            continue
        c = Counter()
        for rec in recs:
            gold = rec["answer_patterns"][rec["label"]]
            bare = " ".join(t for t in gold.split() if t != "si")
            if bare == gold:
                continue
            for i, (p, cls) in enumerate(zip(rec["answer_patterns"], rec["answer_error_classes"])):
                if p == bare and cls == "GRAMMAR":
                    c["esi"] += 1
                    if rec["lemma"] in COS_IT_BARE_INTRANSITIVE:
                        c["second_correct"] += 1
                        per_lemma[rec["lemma"]] += 1
                        if len(examples) < 3:
                            examples.append(f"{name} ({rec['lemma']}): {rec['answers'][i]}  "
                                            f"[gold: {rec['answers'][rec['label']]}]")
        rows.append({"config": name, "records": len(recs), "gold_without_si_GRAMMAR": c["esi"],
                     "second_correct": c["second_correct"]})
    print_table("3. cos_it: GRAMMAR candidate = gold without si, for verbs whose bare intransitive is "
                f"fine ({', '.join(sorted(COS_IT_BARE_INTRANSITIVE))})", rows,
                ["config", "records", "gold_without_si_GRAMMAR", "second_correct"],
                share=("second_correct", "records"))
    print(f"  per lemma: {dict(per_lemma.most_common())}")
    for e in examples:
        print(f"    e.g. {e}")
    return {"per_config": rows, "per_lemma": dict(per_lemma), "examples": examples}


# ---------------------------------------------------------------- 4. spray/load vs Levin 1993
# Levin 1993: §9.7 spray/load verbs (both variants), §9.5 pour verbs (locative variant only:
# *pour the glass with water), §9.8 fill verbs (with-variant only: *fill water into the glass).
LEVIN_9_7 = set("""brush cram crowd cultivate dab daub drape drizzle dust hang heap inject jam load mound
pack pile plant plaster prick pump rub scatter seed settle sew shower slather smear smudge sow spatter
splash splatter spray spread sprinkle spritz squirt stack stick stock strew string stuff swab vest wash
wrap""".split())
LEVIN_9_5 = set("dribble drip pour slop slosh spew spill spurt".split())
LEVIN_9_8 = set("""adorn anoint bandage bathe bestrew bind blanket block blot bombard carpet choke cloak
clog clutter coat contaminate cover dam dapple deck decorate deluge dirty dot drench edge embellish
emblazon encircle encrust endow enrich entangle face festoon fill fleck flood frame garland garnish
imbue impregnate infect inlay interlace interlard interleave intersperse interweave inundate lard lash
line litter mask mottle ornament pad pave plate plug pollute replenish repopulate riddle ring ripple
robe saturate season shroud smother soak soil spangle splotch spot staff stain stipple stud suffuse
surround swaddle swathe taint tile trim veil vein wreathe""".split())
IRREGULAR_EN = {"hang": ["hung"], "sew": ["sewn"], "sow": ["sown"], "stick": ["stuck"],
                "string": ["strung"], "strew": ["strewn"], "spill": ["spilt"], "bind": ["bound"]}


def en_forms(lemma: str) -> set[str]:
    """base, -s, -ed (regular spelling rules) and listed irregular forms of an English verb."""
    if lemma.endswith("e"):
        past = lemma + "d"
    elif lemma.endswith("y") and lemma[-2] not in "aeiou":
        past = lemma[:-1] + "ied"
    elif (re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", lemma)):
        past = lemma + lemma[-1] + "ed"
    else:
        past = lemma + "ed"
    third = lemma + ("es" if lemma.endswith(("s", "sh", "ch", "x", "z")) else "s")
    return {lemma, third, past, *IRREGULAR_EN.get(lemma, [])}


def levin_class(lemma: str) -> str:
    """The Levin 1993 class of a spray/load lexicon verb, in words."""
    return ("9.7 alternating" if lemma in LEVIN_9_7 else "9.5 pour: no with-variant" if lemma in LEVIN_9_5
            else "9.8 fill: no locative variant" if lemma in LEVIN_9_8 else "not in 9.5/9.7/9.8")


def sentence_verb(text: str, form_map: dict[str, str]) -> str | None:
    """The lemma of the first verb form of the sentence (a form after an article is a noun)."""
    toks = tokens(text)
    return next((form_map[t] for k, t in enumerate(toks) if t in form_map
                 and (k == 0 or toks[k - 1] not in ("the", "a", "an"))), None)


def variant(pattern: str) -> str | None:
    """'with' (NP-Loc object or with-theme) or 'locative' (NP-Theme or PP-Loc) for a spray/load pattern."""
    toks = FRAME_RE.sub("", pattern).replace("*", "").split()
    if "NP-Loc" in toks or "PP-Theme" in toks:
        return "with"
    if "NP-Theme" in toks or "PP-Loc" in toks:
        return "locative"
    return None


def section_sprayload(data: dict[str, list[dict]]) -> dict:
    """Section 4: the verbs against Levin, and sentences in a variant their verb lacks."""
    lemmas = sorted({r["lemma"] for n, recs in data.items() if n.startswith("sprayload") for r in recs})
    if not lemmas:
        return {}
    form_map = {f: v for v in sorted(LEVIN_9_5 | LEVIN_9_7 | LEVIN_9_8 | set(lemmas)) for f in en_forms(v)}
    print("\n== 4. sprayload verbs against Levin 1993")
    by_class = defaultdict(list)
    for v in lemmas:
        by_class[levin_class(v)].append(v)
    for cls, vs in sorted(by_class.items()):
        print(f"  {cls:32s} {len(vs):2d}: {' '.join(vs)}")
    impossible = {v: ("with" if v in LEVIN_9_5 else "locative") for v in lemmas if v in LEVIN_9_5 | LEVIN_9_8}
    rows, examples, per_verb = [], [], Counter()
    for name, recs in data.items():
        if not name.startswith("sprayload"):
            continue
        c = Counter()
        for rec in recs:
            gold = rec["label"]
            sents = [(rec["answers"][gold], rec["answer_patterns"][gold], "gold")]
            sents += [(t, p, "context") for t, p in zip(rec["context"], rec["context_patterns"])]
            sents += [(t, p, "SEQUENCE") for t, p, cls in zip(rec["answers"], rec["answer_patterns"],
                                                            rec["answer_error_classes"]) if cls == "SEQUENCE"]
            hit = False
            for text, pattern, where in sents:
                verb = sentence_verb(text, form_map)
                c[f"{where}_total"] += 1
                if verb in impossible and variant(pattern) == impossible[verb]:
                    c[where] += 1
                    per_verb[verb] += 1
                    hit = hit or where != "SEQUENCE"
                    if len(examples) < 3 and where != "context":
                        examples.append(f"{name}: {text}  [{where}, {pattern}]")
            c["records_bad"] += hit
        rows.append({"config": name, "records": len(recs), "gold": c["gold"], "context": c["context"],
                     "context_total": c["context_total"], "SEQUENCE_cands": c["SEQUENCE"],
                     "records_bad": c["records_bad"]})
    print_table("   gold answers / context sentences / SEQUENCE candidates in a variant the verb lacks "
                f"({', '.join(f'{v}: no {k}-variant' for v, k in impossible.items()) or 'none'})", rows,
                ["config", "records", "gold", "context", "context_total", "SEQUENCE_cands", "records_bad"],
                share=("records_bad", "records"))
    for e in examples:
        print(f"    e.g. {e}")
    return {"levin": {v: levin_class(v) for v in lemmas}, "per_config": rows, "examples": examples}


# ---------------------------------------------------------------- 5. role swaps, natural GRAMMAR
# GRAMMAR candidates that are natural sentences for the lemma, keyed by (phenomenon, language,
# clause shape: intransitive + subject role [+ si]). Only verbs whose reading holds for every
# argument of the lexicon:
NATURAL_GRAMMAR = {
    # OD: a patient-subject intransitive that English has: the baby nursed, the stew cooked,
    # a waltz played (by the window). Not counted when the by-phrase needs an agent (NOT_NATURAL_BY).
    ("od", "en", "intransitive theme"): {"nurse", "cook", "play"},
    # COS: the agent as intransitive subject reads as object drop (the bakers baked by noon) or as a
    # change the agent undergoes (the coach improved by degrees).
    ("cos", "en", "intransitive agent"): {"bake", "improve"},
    # it reflexives with a human agent: la nonna si riscaldava, il fabbro si piegò, la domestica si lavò.
    ("cos", "it", "intransitive agent + si"): {"riscaldare", "piegare"},
    ("od", "it", "intransitive agent + si"): {"lavare"},
    # COS+: dictionary senses for a person as intransitive subject: the waiter wilted / softened /
    # hardened / thawed; il cuoco si riscaldò / si raffreddò (caught a cold) / si intenerì /
    # si ammorbidì / si ammaccò (got bruised); der Junge reifte, die Oma schmorte (in der Hitze),
    # der Wanderer trocknete (am Feuer).
    ("cosplus", "en", "intransitive agent"): {"wilt", "soften", "harden", "thaw"},
    ("cosplus", "it", "intransitive agent + si"): {"riscaldare", "raffreddare", "intenerire",
                                                   "ammorbidire", "ammaccare"},
    ("cosplus", "de", "intransitive agent"): {"reifen", "schmoren", "trocknen"},
}
# by-phrases that need an agent (by heart) or an object undergoing the change (dai bordi 'from the
# edges'): with these the sentence is not natural, so it is not counted.
NOT_NATURAL_BY = re.compile(r"\bby (hand|heart|ear|instinct|the book)\b"
                            r"|\b(dai bordi|dal centro|dalla base|dall'interno)\b")


def section_roles(data: dict[str, list[dict]]) -> dict:
    """Section 5: the role table (5a) and the natural GRAMMAR candidates (5b)."""
    cells, examples, natural, natural_ex = Counter(), {}, Counter(), defaultdict(list)
    denominators = Counter()
    for name, recs in data.items():
        phen = name.split("_")[0]
        if phen not in ROLE_PHENOMENA:
            continue
        for rec in recs:
            key_base = (phen, rec["language"], rec["template"])
            denominators[(phen, rec["language"])] += 1
            found = False
            for text, label, cls, p in zip(rec["answers"], rec["answer_labels"],
                                           rec["answer_error_classes"], rec["answer_patterns"]):
                cl = clause(p)
                lemmas = NATURAL_GRAMMAR.get((phen, rec["language"], shape(cl)), ())
                if cls == "GRAMMAR" and rec["lemma"] in lemmas and not NOT_NATURAL_BY.search(text):
                    natural[(phen, rec["language"], rec["lemma"])] += 1
                    found = True
                    if len(natural_ex[(phen, rec["language"])]) < 3:
                        natural_ex[(phen, rec["language"])].append(f"{name}: {text}  [{label}]")
                cat = role_category(cl, phen)
                if cat is not None:
                    key = (cat, *key_base, label, cls)
                    cells[key] += 1
                    examples.setdefault(key, text)
            natural[(phen, rec["language"], "*records")] += found
    print("\n== 5a. role swaps and wrong-subject-role candidates: class per (phenomenon, language, "
          "template, label); INCONSISTENT = the same kind gets SEQUENCE somewhere and GRAMMAR elsewhere")
    table = []
    for cat in sorted({k[0] for k in cells}):
        rows = sorted((k, n) for k, n in cells.items() if k[0] == cat)
        classes = {k[5] for k, _ in rows} - {"CORRECT"}
        flag = "  INCONSISTENT" if {"SEQUENCE", "GRAMMAR"} <= classes else ""
        print(f"  {cat}{flag}")
        for k, n in rows:
            print(f"    {k[1]:9s} {k[2]:3s} {k[3]:13s} {k[4]:16s} {k[5]:9s} {n:6d}  {examples[k]}")
            table.append({"category": cat, "phenomenon": k[1], "language": k[2], "template": k[3],
                          "label": k[4], "class": k[5], "n": n, "example": examples[k]})
    print("\n== 5b. GRAMMAR candidates that are natural sentences for their lemma (lists: NATURAL_GRAMMAR "
          "in this script; by-phrases needing an agent excluded)")
    rows = []
    for (phen, lang), total in sorted(denominators.items()):
        keys = [k for k in NATURAL_GRAMMAR if k[:2] == (phen, lang)]
        if not keys:
            continue
        per = {k[2]: n for k, n in natural.items() if k[:2] == (phen, lang) and k[2] != "*records"}
        rows.append({"phenomenon_language": f"{phen}_{lang}", "records": total,
                     "natural_GRAMMAR": sum(per.values()), "records_bad": natural[(phen, lang, "*records")],
                     "per_lemma": " ".join(f"{k}:{v}" for k, v in sorted(per.items()))})
    print_table(None, rows, ["phenomenon_language", "records", "natural_GRAMMAR", "records_bad", "per_lemma"],
                share=("records_bad", "records"))
    for k, ex in natural_ex.items():
        for e in ex:
            print(f"    e.g. {e}")
    lists = {f"{p}/{l}/{c}": sorted(v) for (p, l, c), v in NATURAL_GRAMMAR.items()}
    return {"role_table": table, "natural_grammar": rows, "lists": lists}


# ---------------------------------------------------------------- 6. agr AE* numbers and relations
NUM_RE = re.compile(r"\b(NP|PP1|PP2|VP)-(sg|pl)\b")


def numbers(pattern: str) -> dict[str, str]:
    """Number of NP / PP1 / PP2 / VP in an agr pattern: {'NP': 'sg', …}."""
    return dict(NUM_RE.findall(pattern))


def relation(n: dict[str, str]) -> str:
    """Which of subject / N1 / N2 the verb agrees with in number ('-' = absent)."""
    return " ".join(f"{k}{'=' if n.get(p) == n.get('VP') else '≠'}" if p in n else f"{k}-"
                    for k, p in (("S", "NP"), ("N1", "PP1"), ("N2", "PP2")))


def section_agr_ae(data: dict[str, list[dict]]) -> dict:
    """Section 6: attractor numbers of the agreement errors (6a) and the relation per label (6b)."""
    changed, rel = Counter(), defaultdict(Counter)
    for name, recs in data.items():
        if not name.startswith("agr_"):
            continue
        kind = "balanced" if name.endswith("_balanced") else "paper"
        for rec in recs:
            gold = numbers(rec["answer_patterns"][rec["label"]])
            for label, p, cls in zip(rec["answer_labels"], rec["answer_patterns"], rec["answer_error_classes"]):
                n = numbers(p)
                rel[(kind, label, cls)][relation(n)] += 1
                if n.get("VP") and n.get("NP") and n["VP"] != n["NP"]:      # verb disagrees with subject
                    changed[(kind, label, "n")] += 1
                    changed[(kind, label, "changed")] += any(n.get(k) != gold.get(k) for k in ("PP1", "PP2"))
    rows = [{"set": k, "label": g, "n": changed[(k, g, "n")], "attractor_changed": changed[(k, g, "changed")]}
            for k, g in sorted({(k, g) for k, g, _ in changed})]
    print_table("6a. agr: candidates whose verb disagrees with the subject, and among them those whose "
                "PP1/PP2 numbers also differ from the gold's (two corruptions)", rows,
                ["set", "label", "n", "attractor_changed"], share=("attractor_changed", "n"))
    print("\n== 6b. agr: verb agreement relation per label (S/N1/N2: = agrees, ≠ disagrees, - absent)")
    table = []
    for (kind, label, cls), c in sorted(rel.items()):
        total = sum(c.values())
        dist = ", ".join(f"{r} {v / total:.0%}" for r, v in c.most_common(4))
        print(f"  {kind:8s} {label:14s} {cls:9s} n={total:6d}  {dist}")
        table.append({"set": kind, "label": label, "class": cls, "n": total, "relations": dict(c)})
    return {"attractor_changed": rows, "relations": table}


# ---------------------------------------------------------------- 7. agr context plausibility
# Heuristic, per context sentence (chunks aligned with the pattern: NP, PP1, PP2):
#  R1 a singular head inside/on/at a plural PP1 noun (the flower in the pitchers);
#  R2a a singular PP1 place (after a locative or spatial preposition) of plural genitive wholes
#      (the clock on the tower of the churches, la lampe près du miroir des chambres);
#  R2b a singular part of plural wholes in a genitive PP1 (the door of the garages,
#      motorul de la camioane).
# "on/sur/su" is topical after content nouns (the report on the inspections) and ro "de la" is a
# source after messages (scrisoarea de la avocați): those heads (TOPIC_HEADS) are not flagged.
LOC = {"en": {"in", "on", "at", "inside", "within", "upon"},
       "fr": {"dans", "sur", "à", "au", "aux", "en"},
       "it": {"in", "nel", "nello", "nella", "nell'", "nei", "negli", "nelle", "su", "sul", "sullo",
              "sulla", "sull'", "sui", "sugli", "sulle", "a", "al", "allo", "alla", "all'", "ai", "agli",
              "alle"},
       "ro": {"în", "pe", "la", "din", "de pe", "de la"}}
SPATIAL = {"en": {"near", "over", "under", "behind", "beside", "by"},
           "fr": {"près", "devant", "derrière", "sous"},
           "it": {"vicino", "sotto", "sopra", "davanti", "dietro"},
           "ro": {"de lângă", "de peste", "sub", "lângă"}}
GENITIVE = {"en": {"of"}, "fr": {"de", "d'", "du", "des"},
            "it": {"di", "d'", "del", "dello", "della", "dell'", "dei", "degli", "delle"}, "ro": {"de la"}}
TOPIC_HEADS = {   # singular and plural forms (ro: definite, as the realiser writes subjects)
    "en": set("""report summary assessment analysis memo briefing reports summaries assessments analyses
              memos briefings""".split()),
    "fr": set("""livre roman documentaire biographie essai reportage rapport dossier bilan expertise analyse
              enquête chanson poème ballade légende conte récit article entretien chapitre texte chronique
              paragraphe livres romans documentaires biographies essais reportages rapports dossiers
              bilans expertises analyses enquêtes chansons poèmes ballades légendes contes récits articles
              entretiens chapitres textes chroniques paragraphes""".split()),
    "it": set("""libro romanzo saggio racconto biografia documentario relazione rapporto verbale perizia
              inchiesta resoconto canzone ballata poesia storia leggenda filastrocca articolo intervista
              recensione servizio capitolo pezzo libri romanzi saggi racconti biografie documentari
              relazioni rapporti verbali perizie inchieste resoconti canzoni ballate poesie storie
              leggende filastrocche articoli interviste recensioni servizi capitoli pezzi""".split()),
    "ro": set("""scrisoarea factura contractul notificarea plicul chitanța mesajul nota anunțul circulara
              decizia avertismentul scrisorile facturile contractele notificările plicurile chitanțele
              mesajele notele anunțurile circularele deciziile avertismentele""".split()),
}
PART_HEADS = {
    "en": set("""door shutter hatch vent skylight trapdoor window carpet curtain floor towel bathtub engine
              motor generator compressor pump exhaust""".split()),
    "fr": set("""porte portillon trappe barrière lucarne volet fenêtre vitre moquette baignoire rideau douche
              moteur klaxon frein ventilateur compresseur chauffage""".split()),
    "it": set("""porta serranda saracinesca finestrella porticina botola finestra vetrata persiana tenda
              tappeto lavandino motore marmitta ventola compressore generatore cambio""".split()),
    "ro": set("""poarta trapa oblonul portița luminatorul lacătul geamul perdeaua covorul mocheta chiuveta
              prosopul motorul ventilatorul compresorul generatorul frâna eșapamentul cheia clanța yala
              încuietoarea mânerul""".split()),
}


def leading_prep(chunk: str, lang: str) -> str:
    """The preposition that opens a PP chunk (ro: two words for de pe, de la, de lângă …)."""
    toks = tokens(chunk)
    if lang == "ro" and len(toks) > 1 and toks[0] == "de":
        return f"de {toks[1]}"
    return toks[0] if toks else ""


def implausible(chunks: list[str], pattern: str, lang: str) -> list[str]:
    """The heuristic rules (R1, R2a, R2b) a context sentence breaks."""
    toks = pattern.split()
    if len(chunks) != len(toks):
        return []
    idx = {re.sub(r"-(sg|pl)$", "", t): i for i, t in enumerate(toks)}
    n = numbers(pattern)
    if "NP" not in idx or "PP1" not in idx:
        return []
    head = (tokens(chunks[idx["NP"]]) or [""])[-1]
    prep = leading_prep(chunks[idx["PP1"]], lang)
    topical = head in TOPIC_HEADS[lang]
    rules = []
    if n.get("NP") == "sg" and n.get("PP1") == "pl" and prep in LOC[lang] and not topical:
        rules.append("R1")
    if n.get("PP1") == "sg" and n.get("PP2") == "pl" and prep in LOC[lang] | SPATIAL[lang] and not topical:
        rules.append("R2a")
    if n.get("NP") == "sg" and n.get("PP1") == "pl" and prep in GENITIVE[lang] and head in PART_HEADS[lang]:
        rules.append("R2b")
    return rules


def section_agr_context(data: dict[str, list[dict]]) -> dict:
    """Section 7: share of agr context sentences the plausibility heuristic flags, per language."""
    c, examples = Counter(), defaultdict(list)
    for name, recs in data.items():
        if not name.startswith("agr_") or name.endswith("_balanced"):   # twins share the contexts
            continue
        for rec in recs:
            lang = rec["language"]
            for text, chunks, p in zip(rec["context"], rec["context_chunks"], rec["context_patterns"]):
                rules = implausible(chunks, p, lang)
                c[(lang, "sentences")] += 1
                c[(lang, "flagged")] += bool(rules)
                for r in rules:
                    c[(lang, r)] += 1
                    if len(examples[(lang, r)]) < 2:
                        examples[(lang, r)].append(text)
    rows = [{"language": lang, "sentences": c[(lang, "sentences")], "flagged": c[(lang, "flagged")],
             "R1": c[(lang, "R1")], "R2a": c[(lang, "R2a")], "R2b": c[(lang, "R2b")]}
            for lang in sorted({k[0] for k in c})]
    print_table("7. agr context sentences implausible from number crossing (R1 sg head in/on/at pl noun; "
                "R2a sg place of pl genitive wholes; R2b sg part of pl wholes); paper configs only",
                rows, ["language", "sentences", "flagged", "R1", "R2a", "R2b"], share=("flagged", "sentences"))
    for (lang, r), ex in sorted(examples.items()):
        for e in ex:
            print(f"    {lang} {r}: {e}")
    return {"per_language": rows, "examples": {f"{k[0]}/{k[1]}": v for k, v in examples.items()}}


# ---------------------------------------------------------------- 9. second answers (issue 25)
# The frame of a pattern: noun phrases without their role names, no wrong-preposition mark (the same
# definition as builders/checks.py, written out here so that the count reads records only).
ROLE_NAME = re.compile(r"^(\[?)\*?(NP)-(?:Agent|Patient|Theme|Loc|Location|Causer|Experiencer|Instrument|Goal|Source)\b")
STAR = re.compile(r"^(\[?)\*")
# issue 25's lexicon defects, written out independently of the lexicons' facts:
LANDMARKS = set("furniture floor floors carpet rug tapestry picture portrait landscape seascape cow cows goat "
                "goats land wheat corn barley baby babies infant newborn".split()) | {"still life"}
# en only: an Italian E-WRBY has no si, so with a si-obligatory verb it is GRAMMAR whatever its da-phrase
NATURAL_FORCES = {"sun", "heat", "warm weather", "acid", "salt", "moisture", "salt air", "seawater"}
DA_AGENT = re.compile(r"\b(dal piatto|dal bicchiere|dalla bottiglia|dalla barca)\b")
EN_BY_NP = re.compile(r"\bby the ([a-z ]+?)\.$")
IT_DA_NP = re.compile(r"\b(?:dal|dallo|dalla|dai|dagli|dalle|dall')\s?([a-zà-ù ]+?)\.$")


def frame_of(pattern: str) -> str:
    return " ".join(STAR.sub(r"\1", ROLE_NAME.sub(r"\1\2", t)) for t in pattern.split())


def declared_exemptions() -> dict[str, set[str]]:
    """phenomenon -> labels its template (in this script's tree) declares same_frame_distractors."""
    import yaml
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "builders")
    files = {"cos": "cos_od/cos.yaml", "od": "cos_od/od.yaml", "cosplus": "cosplus/template.yaml",
             "sprayload": "sprayload/template.yaml"}
    out = {}
    for phen, rel in files.items():
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            out[phen] = set((yaml.safe_load(fh) or {}).get("same_frame_distractors", {}))
    return out


def section_second(data: dict[str, list[dict]]) -> dict:
    """Section 9: second answers in type II/III (9a) and the issue's lexicon defects (9b)."""
    exempt = declared_exemptions()
    cells, examples, dens = Counter(), {}, Counter()
    lexical, lex_ex, lex_den = Counter(), {}, Counter()
    for name, recs in data.items():
        spec = registry.get_spec(name)
        family = re.sub(r"_type.*", "", name) + ("_bal" if spec.balanced else "")
        lang = spec.iso
        for rec in recs:
            if spec.lexical_type in ("II", "III"):
                dens[(family, spec.lexical_type)] += 1
                gold = frame_of(rec["answer_patterns"][rec["label"]])
                for text, label, cls, pattern in zip(rec["answers"], rec["answer_labels"],
                                                     rec["answer_error_classes"], rec["answer_patterns"]):
                    if cls != "SEQUENCE" or frame_of(pattern) != gold:
                        continue
                    declared = {label, f"{rec['template']}:{label}"} & exempt.get(spec.phenomenon, set())
                    key = (family, spec.lexical_type, rec["template"], label, "declared" if declared else "SECOND")
                    cells[key] += 1
                    examples.setdefault(key, f"{text}  (gold: {rec['answers'][rec['label']]})")
            kinds = []
            if spec.phenomenon in ("cos", "od"):
                for text, label, cls in zip(rec["answers"], rec["answer_labels"], rec["answer_error_classes"]):
                    if label != "E-WRBY" or cls != "GRAMMAR":
                        continue
                    m = (EN_BY_NP if lang == "en" else IT_DA_NP).search(text)
                    noun = m.group(1) if m else ""
                    if spec.phenomenon == "od" and lang == "en" and noun in LANDMARKS:
                        kinds.append(("od_en E-WRBY landmark theme", text))
                    if spec.phenomenon == "cos" and lang == "en" and noun in NATURAL_FORCES:
                        kinds.append((f"cos_{lang} E-WRBY natural force", text))
                sentences = rec["context"] + rec["answers"]
                if spec.phenomenon == "cos" and lang == "it":
                    kinds += [("cos_it grafico", s) for s in sentences if re.search(r"\bgrafic[oi]\b", s)][:1]
                if spec.phenomenon == "od" and lang == "it":
                    kinds += [("od_it da-phrase read as agent", s) for s in sentences if DA_AGENT.search(s)][:1]
            if spec.phenomenon == "cosplus" and lang == "de":
                for s, pattern in zip(rec["context"], rec["context_patterns"]):
                    if "REL" in pattern and pattern.split()[0].endswith(".ACC"):
                        kinds.append(("de COS+ accusative head", s))
            lex_den[(family, spec.lexical_type)] += 1
            for kind, text in kinds:
                key = (kind, family, spec.lexical_type)
                lexical[key] += 1
                lex_ex.setdefault(key, text)
    rows = [{"config": k[0], "type": k[1], "template": k[2], "label": k[3], "status": k[4], "n": v,
             "instances": dens[(k[0], k[1])]} for k, v in sorted(cells.items())]
    print_table("9a. type II/III SEQUENCE candidates with the gold's frame (SECOND: a second answer)",
                rows, ["config", "type", "template", "label", "status", "n", "instances"])
    for k, ex in sorted(examples.items()):
        print(f"    {k[0]} {k[2]} {k[3]} {k[4]}: {ex}")
    lrows = [{"defect": k[0], "config": k[1], "type": k[2], "n": v, "instances": lex_den[(k[1], k[2])]}
             for k, v in sorted(lexical.items())]
    print_table("9b. issue 25 lexicon defects (records with one)", lrows,
                ["defect", "config", "type", "n", "instances"])
    for k, ex in sorted(lex_ex.items()):
        print(f"    {k[0]} / {k[1]}: {ex}")
    total = Counter()
    for r in rows:
        if r["status"] == "SECOND":
            total[f"second answer {r['config'].split('_')[0]} {r['label']}"] += r["n"]
    for r in lrows:
        total[r["defect"]] += r["n"]
    print_table("9c. totals per defect kind", [{"defect": k, "n": v} for k, v in sorted(total.items())],
                ["defect", "n"])
    return {"second": rows, "lexical": lrows, "totals": dict(total)}


# ---------------------------------------------------------------- 8. generation shrinks silently
def run(name: str, size: int | None, seed: int, num_proc: int) -> tuple[dict, list[dict]]:
    """Generate one config; returns its shrink row and its records (train + test)."""
    spec = registry.get_spec(name)
    asked = size or registry.generator(spec.phenomenon, spec.language).default_size(spec)
    row: dict[str, Any] = {"config": name, "seed": seed, "asked": asked}
    try:
        out = generate(spec, Options(seed=seed, size=size), num_proc=num_proc, progress=False)
    except (SourceUnavailable, ValueError) as err:
        return {**row, "error": str(err).splitlines()[0][:80]}, []
    records = [r for o in out.values() for r in o.records]  # generation never rejects: it raises instead
    return {**row, "planned": sum(o.planned for o in out.values()), "delivered": len(records),
            "missing": asked - len(records)}, records


def section_shrink(rows: list[dict], title: str) -> None:
    """Section 8: print the configs that delivered fewer instances than asked, and a summary."""
    print(f"\n== 8. {title}")
    short = [r for r in rows if r.get("missing") or r.get("error")]
    for r in short:
        if "error" in r:
            print(f"  {r['config']:36s} seed {r['seed']:2d} asked {r['asked']:6d}  not generated: {r['error']}")
        else:
            print(f"  {r['config']:36s} seed {r['seed']:2d} asked {r['asked']:6d} planned {r['planned']:6d} "
                  f"delivered {r['delivered']:6d} missing {r['missing']:4d}")
    ok = [r for r in rows if "error" not in r]
    print(f"  {len(ok)} generated, {sum(1 for r in ok if r['missing'])} short "
          f"({sum(r['missing'] for r in ok)} instances missing of {sum(r['asked'] for r in ok)} asked); "
          f"{len(rows) - len(ok)} not generated")


# ---------------------------------------------------------------- tables and main
def print_table(title: str | None, rows: list[dict], cols: list[str],
                share: tuple[str, str] | None = None) -> None:
    """Print rows as an aligned table; with ``share`` add a num/den column and a TOTAL row."""
    if title:
        print(f"\n== {title}")
    if not rows:
        print("  (no configs)")
        return
    if share:
        total = {c: sum(r[c] for r in rows) if isinstance(rows[0][c], int) else "" for c in cols}
        total[cols[0]] = "TOTAL"
        rows = rows + [total]
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  " + "  ".join(f"{c:>{widths[c]}}" for c in cols) + ("   share" if share else ""))
    for r in rows:
        line = "  ".join(f"{str(r[c]):>{widths[c]}}" for c in cols)
        if share:
            num, den = r[share[0]], r[share[1]]
            line += f"  {num / den:6.1%}" if den else "       -"
        print("  " + line)


def summarise(rows: list[dict], key, share: tuple[str, str]) -> list[dict]:
    """Sum num/den per group (language, paper/balanced) and print them as a table."""
    agg = defaultdict(Counter)
    for r in rows:
        agg[key(r)].update({share[0]: r[share[0]], share[1]: r[share[1]]})
    out = [{"group": f"{k[0]}{' balanced' if k[1] else ' paper'}", **v} for k, v in sorted(agg.items())]
    print_table(None, out, ["group", share[0], share[1]], share=share)
    return out


def write_json(path: str, payload: dict) -> None:
    """Atomic write: temp file in the target folder, then rename."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".defects-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(payload, fh, ensure_ascii=False, indent=1)
    os.replace(tmp, path)


def main(argv: Iterable[str] | None = None) -> None:
    """Generate the selected configs, print every section, optionally write them as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configs", nargs="*", default=[], metavar="PREFIX",
                        help="config name prefixes (default: every registered config)")
    parser.add_argument("--size", type=int, default=600, help="instances per config for sections 1-7")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--num-proc", type=int, default=2)
    parser.add_argument("--shrink-default", action="store_true",
                        help="also generate every selected config at its default size (slow)")
    parser.add_argument("--json", metavar="OUT", help="write every table as JSON")
    parser.add_argument("--only-second", action="store_true",
                        help="print section 9 only (no agr sections, no shrink sweep): the issue 25 counts")
    args = parser.parse_args(argv)
    if args.json and not os.path.isdir(os.path.dirname(os.path.abspath(args.json))):
        parser.error(f"--json {args.json}: folder does not exist; create it or pick another path")
    names = [n for n in registry.config_names() if not args.configs or n.startswith(tuple(args.configs))]
    if not names:
        parser.error(f"--configs {' '.join(args.configs)} matches no config name; list them with: "
                     "python -c 'from builders import registry; print(registry.config_names())'")
    start, data, gen_rows = time.perf_counter(), {}, []
    for k, name in enumerate(names):
        row, data[name] = run(name, args.size, args.seed, args.num_proc)
        gen_rows.append(row)
        print(f"[{k + 1}/{len(names)}] {name}: {row.get('delivered', row.get('error'))}", file=sys.stderr)
    if args.only_second:
        result = {"args": vars(args), "second": section_second(data)}
        print(f"\n{len(names)} configs, {time.perf_counter() - start:.0f}s")
        if args.json:
            write_json(args.json, result)
        return
    result = {"args": vars(args), "second": section_second(data), "coord": section_coord(data), "od_it_si": section_od_it_si(data),
              "cos_it_esi": section_cos_it_esi(data), "sprayload": section_sprayload(data),
              "roles": section_roles(data), "agr_ae": section_agr_ae(data),
              "agr_context": section_agr_context(data)}
    data.clear()
    section_shrink(gen_rows, f"delivered vs asked at --size {args.size}, seed {args.seed}")
    sweep = [run(n, 200, seed, args.num_proc)[0] for n in names
             if re.fullmatch(r"agr_[a-z]+_type(II|III)", n) for seed in range(10)]
    section_shrink(sweep, "agr_*_typeII/III at --size 200, seeds 0..9")
    result["shrink"] = {"at_size": gen_rows, "seed_sweep": sweep}
    if args.shrink_default:
        default_rows = []
        for name in names:
            default_rows.append(run(name, None, args.seed, args.num_proc)[0])
            print(f"[default] {name}: {default_rows[-1].get('delivered', default_rows[-1].get('error'))}",
                  file=sys.stderr)
        section_shrink(default_rows, f"delivered vs asked at the default sizes, seed {args.seed}")
        result["shrink"]["default"] = default_rows
    print(f"\n{len(names)} configs, {time.perf_counter() - start:.0f}s")
    if args.json:
        write_json(args.json, result)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
