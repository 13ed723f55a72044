"""Wall time to generate configs at their default sizes (validation included).

    python benchmarks/bench_generate.py --phenomenon agr --num-proc 2
"""

from __future__ import annotations

import argparse
import time

from builders import registry
from builders.base import SourceUnavailable
from builders.generate import Options, generate


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--phenomenon", default="agr")
    parser.add_argument("--num-proc", type=int, default=2)
    parser.add_argument("--size", type=int, help="override every config's size")
    args = parser.parse_args()
    names = [n for n in registry.config_names() if n.split("_")[0] == args.phenomenon]
    start, total = time.perf_counter(), 0
    for name in names:
        t = time.perf_counter()
        try:
            out = generate(registry.get_spec(name), Options(size=args.size), num_proc=args.num_proc,
                           progress=False)
        except SourceUnavailable as err:
            print(f"{name:32s} skipped: {err}")
            continue
        n = sum(len(o.records) for o in out.values())
        total += n
        print(f"{name:32s} {n:7d} instances  {time.perf_counter() - t:6.1f}s", flush=True)
    elapsed = time.perf_counter() - start
    print(f"{len(names)} configs, {total} instances in {elapsed:.1f}s ({total / elapsed:.0f} instances/s, "
          f"num_proc={args.num_proc})")


if __name__ == "__main__":
    main()
