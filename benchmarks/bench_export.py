"""Wall time of `blm export --all` at default sizes (generation, validation, parquet, audit, card).

    HF_HUB_OFFLINE=1 python benchmarks/bench_export.py --num-proc 2 [--no-audit] [--budget 180]

Exits 1 when the export takes longer than --budget seconds. The load average is printed because the
figure only means something on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from blm_datasets.export import default_num_proc, export
from builders import registry
from builders.generate import Options


def main() -> int:
    """Run the benchmark and print one summary line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-proc", type=int, default=default_num_proc())
    parser.add_argument("--phenomenon", help="only this phenomenon (default: every config)")
    parser.add_argument("--size", type=int, help="override every config's size")
    parser.add_argument("--no-audit", action="store_true")
    parser.add_argument("--budget", type=float, default=180.0, help="seconds allowed (issue 7: 3 minutes)")
    parser.add_argument("--out", help="keep the export here (default: a temporary folder)")
    args = parser.parse_args()
    names = [n for n in registry.config_names()
             if not args.phenomenon or registry.get_spec(n).phenomenon == args.phenomenon]
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="blm-bench-export-") as tmp:
        out = Path(args.out) if args.out else Path(tmp) / "blm"
        start = time.perf_counter()
        result = export(names, out, Options(size=args.size), num_proc=args.num_proc, audit=not args.no_audit,
                        skip_unavailable=True, progress=False)
        elapsed = time.perf_counter() - start
        megabytes = sum(p.stat().st_size for p in result.files) / 1e6
    rows = sum(c.num_examples for c in result.configs)
    if result.skipped:
        print(f"skipped (input files unavailable): {', '.join(s.name for s in result.skipped)}")
    cpu = sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
              for f in ("ru_utime", "ru_stime"))
    print(f"export of {len(result.configs)} configs, {rows} rows, {megabytes:.1f} MB: {elapsed:.1f}s wall, "
          f"{cpu:.0f} CPU-seconds (num_proc={args.num_proc}, audit={'off' if args.no_audit else 'on'}, "
          f"{os.cpu_count()} CPUs, load average {load_before:.1f} before / {os.getloadavg()[0]:.1f} after)")
    if elapsed > args.budget:
        print(f"over budget: {elapsed:.1f}s > {args.budget:.0f}s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
