"""Killing the parent of a generation or export pool ends its workers too (they used to be re-parented to PID 1 and
block forever on their task queue, holding hundreds of MB each)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

GENERATE = """
import os
from builders import registry
from builders.generate import Options, generate
print(os.getpid(), flush=True)
generate(registry.get_spec("agr_en_typeII"), Options(size=8000), num_proc=2, progress=False)
"""

EXPORT = """
import os, sys
from blm_datasets.export import export
from builders.generate import Options
print(os.getpid(), flush=True)
export(["agr_en_typeII", "agr_fr_typeII", "agr_it_typeII", "agr_ro_typeII"], sys.argv[1], Options(size=8000),
       num_proc=2, audit=False, report=None, progress=False)
"""


def children(pid: int) -> list[int]:
    """Live processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited (nobody may reap it inside a container)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc (Linux)")
@pytest.mark.parametrize("script", ["generate", "export"])
@pytest.mark.parametrize("signal_number", [signal.SIGKILL, signal.SIGTERM])
def test_workers_end_when_their_parent_is_killed(tmp_path, script, signal_number):
    code = {"generate": GENERATE, "export": EXPORT}[script]
    parent = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "out")], cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    workers: list[int] = []
    try:
        pid = int(parent.stdout.readline())
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.2)
            workers = children(pid)
        assert len(workers) >= 2, "the pool never started its workers"
        time.sleep(0.5)  # the workers are busy with their first tasks
        os.kill(pid, signal_number)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(alive(worker) for worker in workers):
            time.sleep(0.2)
        assert not [worker for worker in workers if alive(worker)]
    finally:
        if parent.poll() is None:
            parent.kill()
        for worker in set(workers + children(parent.pid)):  # never leave orphans behind, even when failing
            if alive(worker):
                os.kill(worker, signal.SIGKILL)


def test_a_worker_whose_parent_is_already_gone_exits_at_once():
    done = subprocess.run([sys.executable, "-c", "from builders.workers import die_with_parent; "
                           "die_with_parent(1); print('still running')"], cwd=REPO, capture_output=True, text=True,
                          timeout=60)
    # pid 1 is never this process's parent: it sees its pool's parent is gone and leaves
    assert done.returncode == 1 and "still running" not in done.stdout
