"""Parse time of every shipped lexicon and template with libyaml's parser (the default) against the pure-Python one,
checking that both give the same data and the same line marks.

    python benchmarks/bench_lexicons.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from builders.lexicon import line_loader  # noqa: E402


def parse_all(loader: type, files: list[Path]) -> list:
    out = []
    for path in files:
        parser = loader(path.read_text(encoding="utf-8"))
        parser.source = str(path)
        try:
            out.append(parser.get_single_data())
        finally:
            parser.dispose()
    return out


def marks(value, found: list) -> list:
    """Every line mark of a parsed file, in document order."""
    if isinstance(value, dict):
        found.append((getattr(value, "line", None), sorted((getattr(value, "key_lines", None) or {}).items(), key=str)))
        for item in value.values():
            marks(item, found)
    elif isinstance(value, list):
        found.append(getattr(value, "line", None))
        for item in value:
            marks(item, found)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    files = sorted((REPO / "builders").glob("*/lexicons/*.yaml")) + sorted((REPO / "builders").glob("*/template*.yaml"))
    kib = sum(path.stat().st_size for path in files) // 1024
    results = {}
    for name, base in (("python", yaml.SafeLoader), ("libyaml", yaml.CSafeLoader)):
        loader = line_loader(base)
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            data = parse_all(loader, files)
            times.append(time.perf_counter() - start)
        results[name] = (min(times), data)
    same = results["python"][1] == results["libyaml"][1]
    same_marks = marks(results["python"][1], []) == marks(results["libyaml"][1], [])
    print(f"{len(files)} files, {kib} KiB: pure-Python {results['python'][0]:.2f} s, libyaml "
          f"{results['libyaml'][0]:.2f} s (best of {args.repeats}); same data {same}, same line marks {same_marks}")


if __name__ == "__main__":
    main()
