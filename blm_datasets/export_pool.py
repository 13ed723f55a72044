"""The export's worker pool: one config per process; a dead worker fails the export at once, naming its config.

Workers only write staging folders (``export_folder``); the parent commits each finished config as it
arrives, so whatever happens to a worker, the configs on disk stay complete.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any

from blm_datasets.export_folder import ExportFolder
from builders.generate import WorkerDied
from builders.workers import pool_initializer


def run_pool(run_one: Callable[[Any], Any], jobs: Mapping[str, Any], num_proc: int, folder: ExportFolder,
             finished: Callable[[Any], None]) -> None:
    """Run ``run_one(job)`` for every ``{config: job}`` in ``num_proc`` forked workers, ``finished`` on each result.

    After the first error the pending configs are cancelled, the running ones finish (and are kept),
    then the error is raised; a worker that dies raises WorkerDied within a second.
    """
    initializer, initargs = pool_initializer()  # a killed parent takes its workers with it
    executor = ProcessPoolExecutor(num_proc, mp_context=get_context("fork"), initializer=initializer, initargs=initargs)
    futures = {executor.submit(run_one, job): name for name, job in jobs.items()}
    error: BaseException | None = None
    try:
        pending = set(futures)
        while pending:
            complete, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in complete:
                if future.cancelled():
                    continue
                try:
                    finished(future.result())
                except BrokenProcessPool:
                    raise worker_died(executor, folder, futures[future]) from None
                except Exception as err:  # noqa: BLE001 - first error wins; running configs still finish
                    if error is None:
                        error = err
                        for other in pending:
                            other.cancel()
        if error is not None:
            raise error
    except BaseException:
        executor.shutdown(wait=False, cancel_futures=True)
        for process in list((getattr(executor, "_processes", None) or {}).values()):
            process.terminate()  # no public way to stop running workers; they only write staging folders
        raise
    executor.shutdown(wait=True)


def worker_died(executor: ProcessPoolExecutor, folder: ExportFolder, fallback: str) -> WorkerDied:
    """The error for a broken pool, naming the config(s) whose worker died and how."""
    processes = dict(getattr(executor, "_processes", None) or {})  # no public handle on the workers
    executor.shutdown(wait=True, cancel_futures=True)  # the pool stops its other workers (SIGTERM)
    codes = {pid: p.exitcode for pid, p in processes.items()}
    writing = folder.in_progress()
    dead = {pid: name for pid, name in writing.items() if codes.get(pid) not in (None, -signal.SIGTERM)}
    dead = dead or writing or {-1: fallback}
    how = sorted({f"signal {signal.Signals(-codes[p]).name}" if (codes.get(p) or 0) < 0 else f"exit {codes[p]}"
                  for p in dead if codes.get(p) is not None})
    return WorkerDied(f"the export worker of {', '.join(sorted(set(dead.values())))} died "
                      f"({', '.join(how) or 'killed'}; out of memory?); the configs finished so far are complete "
                      f"in {folder.out}: run the same command again to export the rest (with a lower --num-proc "
                      "if memory is short)")
