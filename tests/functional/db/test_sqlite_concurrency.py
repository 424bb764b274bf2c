"""Several processes and threads on one SQLite file (magnum-api and two conductors, each with
threads, on the embedded default database): transactions that read and then write never fail
with ``database is locked``, and no update is lost."""

from __future__ import annotations

import multiprocessing
import pathlib
import queue

from magnum_common.db.nodegroups import nodegroups
from tests.functional.db import sqlite_load

PROCESSES = 3
THREADS = 4
SECONDS = 4.0
REPO_ROOT = pathlib.Path(__file__).resolve().parents[3]


def _seed() -> str:
    row = nodegroups.create(None, {"name": "load", "cluster_id": "load", "project_id": "p",
                                   "node_count": 0})
    return row.uuid


def _collect(processes: list, results) -> sqlite_load.Tally:
    """Sum the processes' tallies; a process that died without one is an error, not a hang."""
    total = sqlite_load.Tally()
    reported = 0
    while reported < len(processes):
        try:
            total.add(sqlite_load.Tally(**results.get(timeout=1)))
            reported += 1
        except queue.Empty:
            if not any(p.is_alive() for p in processes) and results.empty():
                total.errors.append(f"{len(processes) - reported} process(es) reported nothing")
                break
    for process in processes:
        process.join()
    return total


def test_processes_and_threads_read_then_write_without_lock_errors(db: str, monkeypatch) -> None:
    uuid = _seed()
    monkeypatch.syspath_prepend(str(REPO_ROOT))  # spawned processes import sqlite_load by name
    spawn = multiprocessing.get_context("spawn")  # fresh interpreters, as separate services are
    start = spawn.Barrier(PROCESSES)
    results = spawn.Queue()
    processes = [spawn.Process(target=sqlite_load.work,
                               args=(db, uuid, THREADS, SECONDS, start, results))
                 for _ in range(PROCESSES)]
    for process in processes:
        process.start()
    total = _collect(processes, results)

    assert not total.errors, f"{len(total.errors)} failed: {sorted(set(total.errors))}"
    assert [p.exitcode for p in processes] == [0] * PROCESSES
    assert total.read_modify_writes > 0 and total.cas_won > 0 and total.reads > 0
    assert nodegroups.get_by_uuid(None, uuid).node_count == (
        total.read_modify_writes + total.cas_won)
