"""Write a review sheet without the CLI: ``python scripts/review_sheet.py OUT.md NAME… [--per-label N]``."""

import argparse
from pathlib import Path

from blm_datasets import review
from builders import registry
from builders.generate import Options, generate

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("names", nargs="+")
parser.add_argument("--per-label", type=int, default=5)
parser.add_argument("--size", type=int, default=400)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
sheets = []
for name in args.names:
    out = generate(registry.get_spec(name), Options(size=args.size), progress=False)
    rows = [r for split in out.values() for r in split.records]
    sheets.append((name, review.pick(rows, name, args.per_label, args.seed)))
Path(args.out).write_text(review.render(sheets, Path(args.out).suffix.lstrip(".")), encoding="utf-8")
print(f"wrote {args.out}")
