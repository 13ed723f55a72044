"""``augment``: one slot of one lexicon -> proposals -> filters -> a reviewable patch file."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blm_augment import patch as patches
from blm_augment import proposers, yaml_edit
from blm_augment.adapters import adapter_for
from blm_augment.errors import AugmentError
from blm_augment.filters import FILTERS, Band, run_filters


@dataclass(frozen=True)
class Request:
    lexicon: Path
    slot: str
    n: int
    out: Path
    method: str = "lm"
    model: str | None = None
    candidates: Path | None = None
    phenomenon: str | None = None
    zipf_margin: float = 0.5        # negative: no frequency filter
    contexts: int = 8
    rounds: int = 6                 # lm: sampled lists
    top_k: int = 50                 # mlm: predictions per context
    seed: int = 0
    force: bool = False


def augment(req: Request, spell=None) -> dict[str, Any]:
    """Propose, filter, and write the patch (atomically); returns the report (counts, timings)."""
    from builders.atomic import atomic_write_text

    if req.method not in proposers.METHODS:
        raise AugmentError(f"--method {req.method!r}: choose one of {', '.join(proposers.METHODS)}")
    if req.out.exists() and not req.force:
        raise AugmentError(f"--out {req.out} already exists; pass --force to overwrite it or choose another path")
    if req.method == "mlm" and not req.model:
        raise AugmentError("--method mlm needs --model NAME: a fill-mask model on the Hub (bert-base-cased, "
                           "dbmdz/bert-base-italian-xxl-cased, bert-base-german-cased …) or a local folder")
    if req.method == "list" and not req.candidates:
        raise AugmentError("--method list needs --candidates FILE (one word a line)")
    timings: dict[str, float] = {}
    start = time.perf_counter()
    text = yaml_edit.read(req.lexicon)
    adapter = adapter_for(req.lexicon, req.slot, req.phenomenon, text)
    contexts = adapter.contexts(req.contexts, req.seed)
    timings["contexts"] = time.perf_counter() - start
    t = time.perf_counter()
    model = req.model or (proposers.DEFAULT_LM if req.method == "lm" else f"list:{req.candidates}")
    if req.method == "mlm":
        cands = proposers.propose_mlm(adapter, contexts, model, req.top_k)
    elif req.method == "lm":
        cands = proposers.propose_lm(adapter, contexts, model, req.rounds, req.seed)
    else:
        cands = proposers.propose_list(adapter, req.candidates)
    timings["propose"] = time.perf_counter() - t
    t = time.perf_counter()
    band = None if req.zipf_margin < 0 else Band.of(adapter.seed_words(), adapter.language, req.zipf_margin)
    outcome = run_filters(adapter, cands, band, spell)
    timings["filters"] = time.perf_counter() - t
    kept = outcome.kept[:req.n]
    counts = {"proposed": len(cands), **{f: outcome.counts.get(f, 0) for f in FILTERS},
              "passed": len(outcome.kept), "in_patch": len(kept)}
    meta = {"lexicon": str(req.lexicon), "lexicon_sha256": patches.digest(text), "phenomenon": adapter.phenomenon,
            "language": adapter.language, "slot": req.slot, "method": req.method, "model": model, "seed": req.seed,
            "current_entries": len(adapter.current), "frequency": band.summary() if band else None,
            "counts": counts, "contexts": [c.text for c in contexts]}
    for cand in outcome.kept[req.n:]:
        outcome.rejected.append({"word": cand.word, "filter": "beyond --n", "why": "passed; lower score",
                                 "score": cand.score})
    atomic_write_text(req.out, patches.dump(patches.build(meta, kept, outcome.rejected), req.out, req.lexicon))
    timings["total"] = time.perf_counter() - start
    return {"counts": counts, "timings": {k: round(v, 2) for k, v in timings.items()}, "out": str(req.out)}
