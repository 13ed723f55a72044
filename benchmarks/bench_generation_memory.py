"""Peak memory of generating one config through the Hugging Face builder (streaming: records spilled in chunks and
read back shard by shard) against generating it in memory, at several sizes, each in a fresh process.

    python benchmarks/bench_generation_memory.py [--config agr_en_typeII] [--sizes 10000 100000] [--num-proc 1]

Peak RSS is the process's own high-water mark (ru_maxrss; workers counted apart under --num-proc > 1).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHILD = """
import json, resource, sys, time
sys.path.insert(0, {repo!r})
mode, name, size, num_proc, cache = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
import blm_datasets
from builders import registry
from builders.generate import Options, generate
start = time.perf_counter()
if mode == "builder":
    from blm_datasets.builder import BlmBuilder
    builder = BlmBuilder(config_name=name, size=size, cache_dir=cache)
    builder.download_and_prepare(num_proc=num_proc if num_proc > 1 else None)
    rows = sum(split.num_examples for split in builder.info.splits.values())
else:
    rows = sum(len(o.records) for o in generate(registry.get_spec(name), Options(size=size), num_proc=num_proc,
                                                    progress=False).values())
print(json.dumps({{"rows": rows, "seconds": round(time.perf_counter() - start, 1),
                  "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}}))
"""


def measure(mode: str, config: str, size: int, num_proc: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="blm-bench-memory-") as cache:
        done = subprocess.run([sys.executable, "-c", CHILD.format(repo=str(REPO)), mode, config, str(size),
                               str(num_proc), cache], capture_output=True, text=True, cwd=REPO)
    if done.returncode:
        raise SystemExit(f"{mode} {config} --size {size} failed: {done.stderr.strip()[-600:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="agr_en_typeII")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--modes", nargs="+", default=["builder", "memory"], choices=["builder", "memory"])
    parser.add_argument("--num-proc", type=int, default=1)
    args = parser.parse_args()
    for mode in args.modes:
        for size in args.sizes:
            figures = {"mode": mode, "config": args.config, "size": size, "num_proc": args.num_proc,
                       **measure(mode, args.config, size, args.num_proc)}
            print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
