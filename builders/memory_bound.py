"""The up-front memory bound on ``--size``: a size whose generation would not fit in the memory this process may
use is refused before any planning, with the largest size that fits.

Generation keeps per instance its plan, its dedup key and ordering data, and the records of the chunk being
written: the peak resident memory of ``blm generate agr_en_typeII`` (paper and balanced twin, records spilled to
disk) grew by 15.5 KB an instance from --size 2000 (419 MB) to --size 20000 (699 MB); planning alone took
3.3 KB an instance. PER_INSTANCE rounds the first up.
"""

from __future__ import annotations

import resource
from pathlib import Path

PER_INSTANCE = 16 * 1024          # bytes of peak memory one instance costs (measured, see above)
RESERVE = 1024 ** 3               # what the interpreter, torch/datasets imports and one chunk need besides


def available_bytes() -> int:
    """Memory this process may still use: the least of MemAvailable, the cgroup's limit less its use, and
    RLIMIT_AS."""
    limits = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                limits.append(int(line.split()[1]) * 1024)
    except OSError:
        pass
    for folder in (Path("/sys/fs/cgroup"),):
        try:
            high = (folder / "memory.max").read_text().strip()
            if high != "max":
                limits.append(int(high) - int((folder / "memory.current").read_text().strip()))
        except (OSError, ValueError):
            pass
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        limits.append(soft)
    return max(min(limits), 0) if limits else 1 << 62


def largest_size(available: int | None = None) -> int:
    """The largest total number of instances whose generation fits ``available`` bytes (default: now)."""
    available = available_bytes() if available is None else available
    return max((available - RESERVE) // PER_INSTANCE, 0)


def gb(n: int) -> str:
    return f"{n / 1e9:.1f} GB" if n < 1e15 else f"{n / 1e9:.2g} GB"


def check(name: str, total: int, asked: str) -> None:
    """ImpossibleSize (at once) when ``total`` instances would not fit in memory; ``asked``: the flag as given."""
    from builders.base import ImpossibleSize

    available = available_bytes()
    fit = largest_size(available)
    if total > fit:
        raise ImpossibleSize(name, total, fit, message=(
            f"{name}: {asked} needs about {gb(total * PER_INSTANCE + RESERVE)} of memory ({PER_INSTANCE // 1024} KiB "
            f"an instance) and {gb(available)} is available: "
            + (f"ask for at most {fit} (--size {fit}), or generate" if fit >= 2 else "free memory, or generate")
            + " on a machine with more memory"))
