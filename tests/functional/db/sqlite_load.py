"""One OS process of the SQLite concurrency test: threads reading and then writing one node
group row through the project's own transactions, as magnum-api and the conductors do.

A module of its own (not the test file) so a spawned process can import it by name.
"""

from __future__ import annotations

import dataclasses
import multiprocessing.synchronize
import threading
import time
from typing import Any

import sqlalchemy as sa

from magnum_common import config
from magnum_common.db import api, models
from magnum_common.db.nodegroups import nodegroups


@dataclasses.dataclass
class Tally:
    """What one thread did: committed increments by kind, CAS races lost, reads, errors."""

    read_modify_writes: int = 0
    cas_won: int = 0
    cas_lost: int = 0
    reads: int = 0
    errors: list[str] = dataclasses.field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.read_modify_writes += other.read_modify_writes
        self.cas_won += other.cas_won
        self.cas_lost += other.cas_lost
        self.reads += other.reads
        self.errors += other.errors


def _read_modify_write(uuid: str) -> None:
    """Read the row, then change it in the same writer transaction (an ORM flush at COMMIT:
    the statement that failed with ``database is locked``)."""
    with api.writer() as session:
        query = sa.select(models.NodeGroup).where(models.NodeGroup.uuid == uuid)
        row = session.scalars(query).one()
        row.node_count += 1


def _read_then_cas(uuid: str) -> bool:
    """Read in a reader transaction, then compare-and-swap in a writer one (the lease's way)."""
    seen = nodegroups.get_by_uuid(None, uuid).node_count
    return nodegroups.compare_and_swap(None, uuid, {"node_count": seen}, {"node_count": seen + 1})


def _read(uuid: str) -> None:
    """What a GET does: one reader transaction."""
    nodegroups.get_by_uuid(None, uuid)
    nodegroups.count(None, {"cluster_id": "load"})


def _thread(uuid: str, seconds: float, start: threading.Barrier, tally: Tally) -> None:
    start.wait()
    deadline = time.monotonic() + seconds
    step = 0
    while time.monotonic() < deadline:
        try:
            if step % 3 == 0:
                _read_modify_write(uuid)
                tally.read_modify_writes += 1
            elif step % 3 == 1:
                if _read_then_cas(uuid):
                    tally.cas_won += 1
                else:
                    tally.cas_lost += 1
            else:
                _read(uuid)
                tally.reads += 1
        except Exception as exc:  # every failure is the finding, not only the expected one
            tally.errors.append(f"{type(exc).__name__}: {exc}".splitlines()[0])
        step += 1


def work(url: str, uuid: str, threads: int, seconds: float,
         start: multiprocessing.synchronize.Barrier, results: Any) -> None:
    """Process entry point: configure ``url``, wait for every process, run the threads for
    ``seconds``, put the summed :class:`Tally` (as a dict) on ``results``."""
    config.parse_args([], default_config_files=[])
    config.CONF.set_override("connection", url, "database")
    api.reset_engine()
    tallies = [Tally() for _ in range(threads)]
    local_start = threading.Barrier(threads)
    workers = [threading.Thread(target=_thread, args=(uuid, seconds, local_start, tally))
               for tally in tallies]
    start.wait()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    total = Tally()
    for tally in tallies:
        total.add(tally)
    results.put(dataclasses.asdict(total))
