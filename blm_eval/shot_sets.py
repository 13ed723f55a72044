"""BLM-It's fixed one-shot sets and answer-set sizes (001 §3.3, Table 1), for ``--protocol blm-it``.

001 does not draw one-shot examples from the whole training data: it sets aside a small few-shot
set per task and tests on the rest. For AgrI it samples 10 instances at random; for CausI and OdI
it takes the instances of one verb (the verb of the correct answer: 80 of 2,160). Which verb is
not said; here it is the verb with the most instances in the shot split (ties: alphabetical),
and at most 80 of its instances are kept (seeded). Every run then draws each item's example from
this set, so the examples are the same in every run and every results file records them.

Every BLM-It task has 8 candidates per item (Fig. 10; CALAMITA's harness scores A-H); a config
with other sizes has another chance level and another macro-F1 label set than Table 2.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any, Mapping, Sequence

from builders.base import ConfigSpec

AGR_SHOTS = 10          # 001 §3.3: "we randomly sample 10 instances for few-shot learning"
VERB_SHOTS = 80         # 001 §3.3: "we select the 80 instances for one verb for few-shot training"
BLM_IT_ANSWER_SET = 8   # 001 Fig. 10, CALAMITA's doc_to_choice A-H
BLM_IT_CONFIGS = re.compile(r"(agr|cos|od)_it_type(II|III)$")  # 001's AgrI, CausI, OdI, types II and III


def fixed_shot_set(shot_rows: Sequence[Mapping[str, Any]], config: str, seed: int) -> tuple[list[dict], str]:
    """(the few-shot set, the rule that chose it in words): 10 random instances (agr and any other phenomenon), or
    up to 80 instances of the shot split's most frequent verb (cos, od); sorted by id, the same for the same seed."""
    rows = [dict(r) for r in shot_rows]
    rng = random.Random(f"blm-it-shots-{config}-{seed}")
    spec = ConfigSpec.parse(config)
    if spec is not None and spec.phenomenon in ("cos", "od") and any(r.get("lemma") for r in rows):
        counts = Counter(r["lemma"] for r in rows if r.get("lemma"))
        verb = min(counts, key=lambda v: (-counts[v], v))
        pool = [r for r in rows if r.get("lemma") == verb]
        chosen = rng.sample(pool, min(VERB_SHOTS, len(pool)))
        rule = (f"the instances of one verb ({verb!r}: {len(chosen)} of its {len(pool)}), as 001 §3.3 chose "
                f"{VERB_SHOTS} instances of one verb for CausI/OdI")
    else:
        chosen = rng.sample(rows, min(AGR_SHOTS, len(rows)))
        rule = f"{len(chosen)} instances sampled at random (seed {seed}), as 001 §3.3 did for AgrI"
    return sorted(chosen, key=lambda r: r["id"]), rule


def answer_set_note(config: str, sizes: Mapping[int, int]) -> str | None:
    """One line when a config's answer sets are not BLM-It's 8 candidates, else None."""
    other = {k: v for k, v in sizes.items() if k != BLM_IT_ANSWER_SET}
    if not other:
        return None
    shown = ", ".join(f"{k} candidates ({v} items)" for k, v in sorted(sizes.items()))
    return (f"note: {config} has answer sets of {shown}; BLM-It's have {BLM_IT_ANSWER_SET}, so chance and the "
            "macro-F1 label set differ from 001 Table 2")
