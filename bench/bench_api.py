"""API speed: magnum-api (gunicorn, 2 workers, noauth) on MariaDB, measured over HTTP.

Run:  .venv/bin/python bench/bench_api.py [--workers 2] [--seconds 5] [--runs 3] [--no-seed]

Seeds a fresh MariaDB database (``magnum_bench``: 1,000 templates, 10,000 clusters with
their two default node groups), starts ``magnum-api`` on a free port, then measures, ``--runs``
times over:

* median latency of ``GET /v1/clustertemplates`` (1,000 rows)              target <= 25 ms
* req/s of ``GET /v1/clustertemplates/{uuid}`` and ``GET /v1/clusters/{uuid}``
  with 4 keep-alive connections (4 client processes)                       target >= 500
* median latency of ``GET /v1/clusters?limit=50`` with 10,000 clusters     target <= 25 ms
* SQL statements per request (in-process count), the same for every page
  size, and statements compiled anew per request (SQLAlchemy cache misses) target: 0
* PSS of each worker after the load (shared pages count 1/n in each)      target <= 60 MB

The machine is shared: every run prints the 1-minute load average beside its numbers, the
summary table gives the median over the runs with each run's value and load average, and
the CPU use of other work is sampled before and after (the load average also counts the
bench's own processes and tasks blocked on I/O).
Numbers are printed, never asserted. Needs MariaDB on 127.0.0.1:3306 (root, no password).
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

import sqlalchemy as sa
from procmem import children, memory_mb
from report import result

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
SERVER = os.environ.get("MAGNUM_BENCH_MYSQL", "mysql+pymysql://root@127.0.0.1:3306")
#: Its own database per run when several people bench on one server (MAGNUM_BENCH_DB).
DB_NAME = os.environ.get("MAGNUM_BENCH_DB", "magnum_bench")
DB_URL = f"{SERVER}/{DB_NAME}?charset=utf8mb4"
#: The [crypto] key the API needs to seal what it records (a Fernet key: 32 random bytes).
ENCRYPTION_KEY = base64.urlsafe_b64encode(os.urandom(32)).decode("ascii")
PROJECT = "bench-project"
HEADERS = {"X-User-Id": "bench-user", "X-Project-Id": PROJECT,
           "X-Roles": "member,reader", "OpenStack-API-Version": "container-infra latest"}
TEMPLATES, CLUSTERS = 1000, 10000

LIST_TEMPLATES = "list 1,000 templates: median ms"
CLUSTER_PAGE = "clusters?limit=50 of 10,000: median ms"
SHOW_TEMPLATE = "template show, 4 conns: req/s"
SHOW_CLUSTER = "cluster show, 4 conns: req/s"
PSS = "PSS per worker: max MB"
#: metric -> (target, True when higher is better)
TARGETS = {LIST_TEMPLATES: (25.0, False), CLUSTER_PAGE: (25.0, False),
           SHOW_TEMPLATE: (500.0, True), SHOW_CLUSTER: (500.0, True), PSS: (60.0, False)}


def load() -> float:
    return os.getloadavg()[0]


def cpu_busy(seconds: float = 1.0) -> float:
    """Percent of all CPUs busy over ``seconds`` (sampled while the bench itself is idle,
    this is what other work on the machine takes)."""
    def sample() -> tuple[int, int]:
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:]]
        idle = values[3] + values[4]
        return sum(values) - idle, sum(values)

    busy0, total0 = sample()
    time.sleep(seconds)
    busy1, total1 = sample()
    return 100.0 * (busy1 - busy0) / max(1, total1 - total0)


def machine() -> str:
    return (f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
            f"CPUs busy {cpu_busy():.0f}% (of {os.cpu_count()})")


def seed(templates: int = TEMPLATES, clusters: int = CLUSTERS) -> tuple[str, str]:
    """Recreate the database and fill it; returns one template and one cluster uuid."""
    from oslo_config import cfg

    from magnum_common import config
    from magnum_common.db import api as db_api
    from magnum_common.db import migration, models

    engine = sa.create_engine(f"{SERVER}/", isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f"DROP DATABASE IF EXISTS {DB_NAME}"))
        conn.execute(sa.text(f"CREATE DATABASE {DB_NAME}"))
    engine.dispose()
    config.parse_args([], default_config_files=[])
    cfg.CONF.set_override("connection", DB_URL, "database")
    db_api.reset_engine()
    migration.upgrade()
    now = models.utcnow()
    tpl_rows = [{"uuid": str(uuid.uuid4()), "name": f"tpl-{i}", "project_id": PROJECT,
                 "user_id": "bench-user", "coe": "kubernetes", "image_id": "fedora",
                 "cluster_distro": "fedora-coreos", "server_type": "vm",
                 "network_driver": "flannel", "labels": {"kube_tag": "v1.30"},
                 "public": False, "hidden": False, "tls_disabled": False,
                 "registry_enabled": False, "master_lb_enabled": False,
                 "floating_ip_enabled": True, "created_at": now} for i in range(templates)]
    cl_rows, ng_rows = [], []
    for i in range(clusters):
        cuuid = str(uuid.uuid4())
        cl_rows.append({"uuid": cuuid, "name": f"c{i}", "project_id": PROJECT,
                        "user_id": "bench-user", "cluster_template_id": tpl_rows[0]["uuid"],
                        "status": "CREATE_COMPLETE", "labels": {"kube_tag": "v1.30"},
                        "health_status_reason": {}, "operation_args": {},
                        "create_timeout": 60, "stack_id": str(uuid.uuid4()),
                        "flavor_id": "m1.small", "master_flavor_id": "m1.small",
                        "keypair": "kp", "created_at": now})
        for role, count in (("master", 1), ("worker", 3)):
            ng_rows.append({"uuid": str(uuid.uuid4()), "name": f"default-{role}",
                            "cluster_id": cuuid, "project_id": PROJECT, "role": role,
                            "node_count": count, "is_default": True, "labels": {},
                            "node_addresses": [], "node_labels": {}, "node_taints": [],
                            "status": "CREATE_COMPLETE", "created_at": now})
    with db_api.writer() as session:
        for model, rows in ((models.ClusterTemplate, tpl_rows), (models.Cluster, cl_rows),
                            (models.NodeGroup, ng_rows)):
            for start in range(0, len(rows), 2000):
                session.execute(sa.insert(model), rows[start:start + 2000])
    db_api.reset_engine()
    return tpl_rows[0]["uuid"], cl_rows[0]["uuid"]


def seeded() -> tuple[str, str] | None:
    """The first template and cluster of an already seeded database, if it is complete."""
    engine = sa.create_engine(DB_URL)
    try:
        with engine.connect() as conn:
            counts = conn.execute(sa.text(
                "SELECT (SELECT count(*) FROM cluster_template), (SELECT count(*) FROM cluster)"
            )).one()
            if tuple(counts) != (TEMPLATES, CLUSTERS):
                return None
            return (conn.execute(sa.text(
                        "SELECT uuid FROM cluster_template ORDER BY id LIMIT 1")).scalar_one(),
                    conn.execute(sa.text(
                        "SELECT uuid FROM cluster ORDER BY id LIMIT 1")).scalar_one())
    except sa.exc.DBAPIError:
        return None
    finally:
        engine.dispose()


def sql_counts(paths: list[str]) -> dict[str, tuple[int, int]]:
    """(statements, statements compiled anew) of each request, after one warm-up request
    of the same path, counted in-process on the same database."""
    import webtest
    from oslo_config import cfg
    from sqlalchemy.engine.interfaces import CacheStats

    from magnum_api import app
    from magnum_common import config
    from magnum_common.db import api as db_api

    config.parse_args([], default_config_files=[])
    cfg.CONF.set_override("auth_strategy", "noauth")
    cfg.CONF.set_override("encryption_key", ENCRYPTION_KEY, "crypto")
    cfg.CONF.set_override("connection", DB_URL, "database")
    db_api.reset_engine()
    test_app = webtest.TestApp(app.load_app())
    counter = {"statements": 0, "compiled": 0}

    def count(conn, cursor, statement, parameters, context, executemany):
        counter["statements"] += 1
        if context is not None and context.cache_hit is not CacheStats.CACHE_HIT:
            counter["compiled"] += 1

    test_app.get(paths[0], headers=HEADERS)  # connect the engine
    sa.event.listen(db_api.get_engine(), "after_cursor_execute", count)
    result = {}
    for path in paths:
        test_app.get(path, headers=HEADERS)
        counter.update(statements=0, compiled=0)
        test_app.get(path, headers=HEADERS)
        result[path] = (counter["statements"], counter["compiled"])
    sa.event.remove(db_api.get_engine(), "after_cursor_execute", count)
    db_api.reset_engine()
    return result


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(port: int, workers: int, threads: int | None = None
                 ) -> tuple[subprocess.Popen, str, str]:
    conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
    conf.write(f"""[DEFAULT]
auth_strategy = noauth
transport_url = rabbit://guest:guest@127.0.0.1:5672/
[crypto]
encryption_key = {ENCRYPTION_KEY}
[database]
connection = {DB_URL}
[api]
host = 127.0.0.1
port = {port}
workers = {workers}
{f"threads = {threads}" if threads else ""}
validate_images = false
validate_flavors = false
validate_networks = false
validate_keypairs = false
validate_projects = false
""")
    conf.close()
    log = tempfile.NamedTemporaryFile("w", suffix=".log", delete=False)
    exe = os.path.join(os.path.dirname(sys.executable), "magnum-api")
    proc = subprocess.Popen([exe, "--config-file", conf.name], stdout=log, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/v1/")
            if conn.getresponse().status == 200:
                return proc, conf.name, log.name
        except OSError:
            time.sleep(0.2)
    proc.kill()
    with open(log.name) as f:
        tail = f.read()[-2000:]
    raise SystemExit(f"magnum-api did not start; its log ({log.name}) ends with:\n{tail}")


def wait_for_workers(master_pid: int, workers: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while len(children(master_pid)) < workers and time.monotonic() < deadline:
        time.sleep(0.2)


def _get(conn: http.client.HTTPConnection, path: str) -> tuple[int, bytes]:
    conn.request("GET", path, headers=HEADERS)
    resp = conn.getresponse()
    return resp.status, resp.read()


def latencies(port: int, path: str, count: int) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    _get(conn, path)  # warm-up
    result = []
    for _ in range(count):
        start = time.perf_counter()
        status, body = _get(conn, path)
        result.append((time.perf_counter() - start) * 1000)
        if status != 200:
            raise SystemExit(f"{path}: {status} {body[:200]!r}")
    conn.close()
    return result


def _hammer(args: tuple[int, str, float]) -> tuple[int, int]:
    """(200 answers, other answers or dropped connections) on one keep-alive connection."""
    port, path, seconds = args
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    done = failed = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            status, _ = _get(conn, path)
        except (OSError, http.client.HTTPException):
            failed += 1
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        if status == 200:
            done += 1
        else:
            failed += 1
    conn.close()
    return done, failed


def throughput(port: int, path: str, seconds: float, connections: int = 4) -> float:
    with multiprocessing.Pool(connections) as pool:
        pool.map(_hammer, [(port, path, 0.5)] * connections)  # warm every worker
        counts = pool.map(_hammer, [(port, path, seconds)] * connections)
    failed = sum(f for _, f in counts)
    if failed:
        raise SystemExit(f"{path}: {failed} requests failed under load")
    return sum(d for d, _ in counts) / seconds


def worker_memory(master_pid: int) -> list[dict[str, float]]:
    return [memory_mb(pid) for pid in children(master_pid)]


def one_run(port: int, master_pid: int, tpl: str, cluster: str, seconds: float
            ) -> dict[str, tuple[float, float]]:
    """metric -> (value, 1-minute load average when it was measured)."""
    result = {}
    result[LIST_TEMPLATES] = (statistics.median(
        latencies(port, "/v1/clustertemplates", 30)), load())
    result[CLUSTER_PAGE] = (statistics.median(
        latencies(port, "/v1/clusters?limit=50", 100)), load())
    result[SHOW_TEMPLATE] = (throughput(port, f"/v1/clustertemplates/{tpl}", seconds), load())
    result[SHOW_CLUSTER] = (throughput(port, f"/v1/clusters/{cluster}", seconds), load())
    result[PSS] = (max(m["pss"] for m in worker_memory(master_pid)), load())
    return result


def verdict(metric: str, value: float) -> str:
    target, higher = TARGETS[metric]
    return "ok" if (value >= target if higher else value <= target) else "MISSED"


def print_table(runs: list[dict[str, tuple[float, float]]]) -> dict[str, float]:
    header = f"{'metric':40s} {'target':>8s} {'median':>8s}  {'runs (load average)':40s} verdict"
    print("\n" + header + "\n" + "-" * len(header))
    summary = {}
    for metric, (target, higher) in TARGETS.items():
        values = [run[metric] for run in runs]
        median = statistics.median(v for v, _ in values)
        summary[metric] = median
        shown = ", ".join(f"{v:.1f} ({la:.1f})" for v, la in values)
        sign = ">=" if higher else "<="
        print(f"{metric:40s} {sign}{target:6.0f} {median:8.1f}  {shown:40s} "
              f"{verdict(metric, median)}")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int,
                        help="threads per worker (default: the server's default)")
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="length of each throughput measurement")
    parser.add_argument("--runs", type=int, default=3, help="measurement rounds")
    parser.add_argument("--no-seed", action="store_true",
                        help="reuse the bench database when it holds the expected rows")
    args = parser.parse_args()
    print(f"machine at start: {machine()}", flush=True)
    rows = seeded() if args.no_seed else None
    if rows is None:
        print(f"seeding MariaDB ({TEMPLATES:,} templates, {CLUSTERS:,} clusters)...",
              flush=True)
        rows = seed()
    tpl, cluster = rows
    counts = sql_counts(["/v1/clustertemplates", f"/v1/clustertemplates/{tpl}",
                         f"/v1/clusters/{cluster}", "/v1/clusters?limit=50",
                         "/v1/clusters?limit=5", "/v1/clusters/detail?limit=50",
                         "/v1/clusters/detail?limit=5"])
    port = free_port()
    proc, conf, log = start_server(port, args.workers, args.threads)
    runs = []
    try:
        wait_for_workers(proc.pid, args.workers)
        for n in range(args.runs):
            run = one_run(port, proc.pid, tpl, cluster, args.seconds)
            runs.append(run)
            print(f"run {n + 1}/{args.runs}: " + "; ".join(
                f"{metric} {value:.1f} (load {la:.2f})" for metric, (value, la) in run.items()),
                flush=True)
        workers_mb = [{k: round(v, 1) for k, v in m.items()}
                      for m in worker_memory(proc.pid)]
        master_mb = {k: round(v, 1) for k, v in memory_mb(proc.pid).items()}
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        os.unlink(conf)
        os.unlink(log)
    summary = print_table(runs)
    print(f"{'workers MB (each, at the end)':40s} {'':8s} {'':8s}  {workers_mb}")
    print(f"{'master MB (at the end)':40s} {'':8s} {'':8s}  {master_mb}")
    print("\nSQL per request (after a warm-up request; target: constant, 0 compiled anew)")
    for path, (statements, compiled) in counts.items():
        shown = path.replace(tpl, "{uuid}").replace(cluster, "{uuid}")
        print(f"  GET {shown:40s} {statements} statements, {compiled} compiled anew")
    print(f"\nmachine at end: {machine()}")
    units = {LIST_TEMPLATES: "ms", CLUSTER_PAGE: "ms", SHOW_TEMPLATE: "req/s",
             SHOW_CLUSTER: "req/s", PSS: "MB"}
    for metric, (target, higher) in TARGETS.items():
        result(f"api: {metric}", round(summary[metric], 1), units[metric], target, higher)
    result("api: master PSS MB", master_mb.get("pss"), "MB")
    print(json.dumps({"median": summary, "runs": runs, "workers_mb": workers_mb,
                      "master_mb": master_mb,
                      "sql": {p.replace(tpl, "{uuid}").replace(cluster, "{uuid}"): c
                              for p, c in counts.items()}}))


if __name__ == "__main__":
    main()
