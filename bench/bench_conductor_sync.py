"""Status sync at scale: 10,000 in-progress clusters, 1, 3 and 10 conductor processes.

Heat (and Keystone) are the tests' HTTP stand-in process, seeded with one in-progress stack
per cluster spread over projects (rows already in step with Heat: the steady state, where a
round only reads); the database is a migrated SQLite file. Each conductor is
a separate process running one StatusSync round per interval; the same rows are synced by
1, then 3, then 10 processes (``--conductors``), each run with hosts of its own. Printed,
never asserted: clusters polled per conductor, polls per cluster (target: exactly 1), CPU
seconds per conductor per interval (capacity grows with conductors as it falls), the round's
wall time against the interval, and Heat / Keystone requests per interval.

Usage: ``python bench/bench_conductor_sync.py [--clusters 10000] [--projects 40]
[--conductors 1,3,10] [--rounds 2]``
"""

from __future__ import annotations

import argparse
import collections
import datetime
import multiprocessing
import pathlib
import statistics
import sys
import tempfile
import time
import uuid

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "functional" / "conductor"))
sys.path.insert(0, str(REPO / "bench"))

import sqlalchemy as sa  # noqa: E402
import standin_driver  # noqa: E402
import support  # noqa: E402
from report import result  # noqa: E402

from magnum_common import config as magnum_config  # noqa: E402
from magnum_common import states  # noqa: E402
from magnum_common.db import api as db_api  # noqa: E402
from magnum_common.db import migration, models  # noqa: E402


def _configure(db_url: str, standin_url: str) -> None:
    magnum_config.parse_args([], default_config_files=[])
    values = support.options(standin_url, "bench-unused")
    values["DEFAULT"]["service_down_time"] = 180
    support.apply_options(values)
    support.CONF.set_override("connection", db_url, "database")
    db_api.reset_engine()


def _seed(standin: support.Standin, clusters: int, projects: int) -> None:
    from magnum_common import crypto

    per_project = clusters // projects
    template = support.make_template()  # the stand-in driver's (standin_driver.install)
    cluster_rows, ng_rows = [], []
    for p in range(projects):
        project = f"project-{p}"
        seeded = standin._post("/control/seed", {"tenant": project, "count": per_project})
        password = crypto.encrypt("secret")
        for stack_id in seeded["stack_ids"]:
            cid = str(uuid.uuid4())
            cluster_rows.append({
                "uuid": cid, "name": f"c-{cid[:8]}", "project_id": project, "user_id": "owner",
                "cluster_template_id": template.uuid,
                "status": states.CREATE_IN_PROGRESS, "stack_id": stack_id,
                "trust_id": seeded["trust_id"], "trustee_user_id": seeded["user_id"],
                "trustee_username": f"trustee-{project}", "trustee_password": password,
                "create_timeout": 600, "created_at": models.utcnow(), "labels": {},
                "operation_at": models.utcnow() - datetime.timedelta(seconds=60)})
            for role in ("master", "worker"):
                ng_rows.append({
                    "uuid": str(uuid.uuid4()), "name": f"default-{role}", "cluster_id": cid,
                    "project_id": project, "role": role, "is_default": True, "node_count": 1,
                    "stack_id": stack_id, "status": states.CREATE_IN_PROGRESS, "labels": {},
                    "status_reason": "Stack CREATE started",
                    "node_addresses": []})
    with db_api.writer() as session:
        session.execute(sa.insert(models.Cluster), cluster_rows)
        session.execute(sa.insert(models.NodeGroup), ng_rows)


def _conductor(host: str, db_url: str, standin_url: str, hosts: list[str], rounds: int,
               interval: float, start_at: float, results) -> None:
    _configure(db_url, standin_url)
    from magnum_common.db.services import magnum_services
    from magnum_conductor.conf import BINARY
    from magnum_conductor.engine.executor import Executor
    from magnum_conductor.status.sync import StatusSync

    for member in hosts:
        magnum_services.heartbeat(member, BINARY)
        magnum_services.process_heartbeat(f"{member}:0:bench", member, BINARY)
    sync = StatusSync(Executor(f"{host}:0:bench"))
    time.sleep(max(0.0, start_at - time.time()))
    for round_no in range(rounds):
        begin = time.monotonic()
        cpu = time.process_time()
        stats = sync.run_once()
        results.put({"host": host, "round": round_no, "cpu": time.process_time() - cpu,
                     "wall": time.monotonic() - begin, "polled": stats.polled_uuids,
                     "stack_requests": stats.stack_requests, "errors": stats.errors})
        magnum_services.heartbeat(host, BINARY)
        time.sleep(max(0.0, interval - (time.monotonic() - begin)))


def _measure(standin: support.Standin, db_url: str, conductors: int, rounds: int,
             interval: float, total: int) -> None:
    """``conductors`` processes, ``rounds`` intervals each; their figures printed."""
    with db_api.writer() as session:  # the previous run's conductors are gone, not just late
        session.execute(sa.delete(models.MagnumService))
    hosts = [f"bench-{conductors}-conductor-{i}" for i in range(conductors)]
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    start_at = time.time() + 3
    before = standin.state()["requests"]
    procs = [ctx.Process(target=_conductor, args=(h, db_url, standin.url, hosts, rounds,
                                                  interval, start_at, results)) for h in hosts]
    for proc in procs:
        proc.start()
    reports = [results.get() for _ in range(conductors * rounds)]
    for proc in procs:
        proc.join()
    after = standin.state()["requests"]
    delta = {k: v - before.get(k, 0) for k, v in after.items()}
    print(f"\n{conductors} conductor process(es), {total} in-progress clusters, "
          f"{rounds} intervals of {interval:g} s")
    misses, cpus, walls, requests = 0, [], [], []
    for round_no in range(rounds):
        rows = sorted((r for r in reports if r["round"] == round_no), key=lambda r: r["host"])
        polled = [u for r in rows for u in r["polled"]]
        exact = len(polled) == len(set(polled)) == total
        counts = collections.Counter(polled)
        misses = max(misses, (total - len(counts)) + sum(1 for n in counts.values() if n != 1))
        print(f"  round {round_no + 1}: polled {len(polled)} (distinct {len(set(polled))} of "
              f"{total}; polls per cluster {len(polled) / total:.3f}; exactly once: {exact})")
        for r in rows:
            print(f"    {r['host']}: {len(r['polled'])} clusters, cpu {r['cpu']:.2f} s, "
                  f"wall {r['wall']:.2f} s, stack requests {r['stack_requests']}, "
                  f"errors {r['errors']}")
        cpus.extend(r["cpu"] for r in rows)
        walls.append(max(r["wall"] for r in rows))
        requests.append(sum(r["stack_requests"] for r in rows))
    heat_lists = sum(v for k, v in delta.items() if k.startswith("heat GET /stacks"))
    tokens = sum(v for k, v in delta.items() if "auth/tokens" in k)
    print(f"  stand-in over the {rounds} intervals: stack list requests {heat_lists}, "
          f"Keystone token requests {tokens}")
    label = f"sync, {conductors} conductor{'s' if conductors > 1 else ''}"
    result(f"{label}: clusters not polled exactly once per interval", misses, "", 0)
    result(f"{label}: CPU s per conductor per interval (max)", round(max(cpus), 2), "s")
    result(f"{label}: round wall time (slowest conductor)", round(statistics.median(walls), 2),
           "s", interval)
    result(f"{label}: Heat requests per interval", statistics.median(requests), "")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clusters", type=int, default=10000)
    parser.add_argument("--projects", type=int, default=40)
    parser.add_argument("--conductors", default="1,3,10",
                        help="comma-separated numbers of conductor processes, one run each")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--interval", type=float, default=10.0)
    args = parser.parse_args()

    workdir = pathlib.Path(tempfile.mkdtemp(prefix="bench-sync-"))
    db_url = f"sqlite:///{workdir / 'magnum.sqlite'}"
    standin = support.Standin()
    try:
        _configure(db_url, standin.url)
        migration.upgrade()
        standin_driver.install()  # inherited by the forked conductors
        started = time.monotonic()
        _seed(standin, args.clusters, args.projects)
        total = args.clusters // args.projects * args.projects
        print(f"seeded {total} in-progress clusters in {args.projects} projects "
              f"({time.monotonic() - started:.1f} s)")
        for conductors in (int(n) for n in args.conductors.split(",")):
            _measure(standin, db_url, conductors, args.rounds, args.interval, total)
    finally:
        standin.stop()


if __name__ == "__main__":
    main()
