"""API speed: magnum-api (gunicorn, 2 workers, noauth) on MariaDB, measured over HTTP.

Run:  .venv/bin/python bench/bench_api.py [--workers 2] [--seconds 5]

Seeds a fresh MariaDB database (``magnum_bench``: 1,000 templates, 10,000 clusters with
their two default node groups), starts ``magnum-api`` on a free port, then prints:

* median latency of ``GET /v1/clustertemplates`` (1,000 rows)              target <= 60 ms
* req/s of ``GET /v1/clustertemplates/{uuid}`` and ``GET /v1/clusters/{uuid}``
  with 4 keep-alive connections (4 client processes)                       target >= 500
* median latency of ``GET /v1/clusters?limit=50`` with 10,000 clusters     target <= 25 ms
* SQL statements per request for those endpoints (in-process count)       target: constant
* RSS of each worker                                                       target <= 120 MB

Numbers are printed, never asserted. Needs MariaDB on 127.0.0.1:3306 (root, no password).
"""

from __future__ import annotations

import argparse
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
SERVER = os.environ.get("MAGNUM_BENCH_MYSQL", "mysql+pymysql://root@127.0.0.1:3306")
DB_URL = f"{SERVER}/magnum_bench?charset=utf8mb4"
PROJECT = "bench-project"
HEADERS = {"X-User-Id": "bench-user", "X-Project-Id": PROJECT,
           "X-Roles": "member,reader", "OpenStack-API-Version": "container-infra latest"}


def seed(templates: int = 1000, clusters: int = 10000) -> tuple[str, str]:
    """Recreate the database and fill it; returns one template and one cluster uuid."""
    from oslo_config import cfg

    from magnum_common import config
    from magnum_common.db import api as db_api
    from magnum_common.db import migration, models

    engine = sa.create_engine(f"{SERVER}/", isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text("DROP DATABASE IF EXISTS magnum_bench"))
        conn.execute(sa.text("CREATE DATABASE magnum_bench"))
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


def sql_counts(paths: list[str]) -> dict[str, int]:
    """Statements each request runs, counted in-process on the same database."""
    import webtest
    from oslo_config import cfg

    from magnum_api import app
    from magnum_api import opts as api_opts
    from magnum_common.db import api as db_api

    api_opts.list_opts()
    cfg.CONF.set_override("auth_strategy", "noauth")
    cfg.CONF.set_override("connection", DB_URL, "database")
    db_api.reset_engine()
    test_app = webtest.TestApp(app.load_app())
    counter = {"n": 0}

    def count(*args, **kwargs):
        counter["n"] += 1

    test_app.get(paths[0], headers=HEADERS)  # warm the engine
    sa.event.listen(db_api.get_engine(), "before_cursor_execute", count)
    result = {}
    for path in paths:
        counter["n"] = 0
        test_app.get(path, headers=HEADERS)
        result[path] = counter["n"]
    return result


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(port: int, workers: int) -> tuple[subprocess.Popen, str]:
    conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
    conf.write(f"""[DEFAULT]
auth_strategy = noauth
transport_url = rabbit://guest:guest@127.0.0.1:5672/
[database]
connection = {DB_URL}
[api]
host = 127.0.0.1
port = {port}
workers = {workers}
validate_images = false
validate_flavors = false
validate_networks = false
validate_keypairs = false
validate_projects = false
""")
    conf.close()
    exe = os.path.join(os.path.dirname(sys.executable), "magnum-api")
    proc = subprocess.Popen([exe, "--config-file", conf.name], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/v1/")
            if conn.getresponse().status == 200:
                return proc, conf.name
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("magnum-api did not start")


def latencies(port: int, path: str, count: int) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port)
    result = []
    for _ in range(count):
        start = time.perf_counter()
        conn.request("GET", path, headers=HEADERS)
        resp = conn.getresponse()
        body = resp.read()
        result.append((time.perf_counter() - start) * 1000)
        if resp.status != 200:
            raise SystemExit(f"{path}: {resp.status} {body[:200]!r}")
    return result


def _hammer(args: tuple[int, str, float]) -> int:
    port, path, seconds = args
    conn = http.client.HTTPConnection("127.0.0.1", port)
    done = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        conn.request("GET", path, headers=HEADERS)
        conn.getresponse().read()
        done += 1
    return done


def throughput(port: int, path: str, seconds: float, connections: int = 4) -> float:
    with multiprocessing.Pool(connections) as pool:
        pool.map(_hammer, [(port, path, 0.5)] * connections)  # warm every worker
        counts = pool.map(_hammer, [(port, path, seconds)] * connections)
    return sum(counts) / seconds


def worker_rss(master_pid: int) -> list[float]:
    result = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != master_pid:
                continue
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        result.append(int(line.split()[1]) / 1024)
        except (OSError, ValueError, IndexError):
            continue
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    print("seeding MariaDB (1,000 templates, 10,000 clusters)...", flush=True)
    tpl, cluster = seed()
    counts = sql_counts(["/v1/clustertemplates", f"/v1/clustertemplates/{tpl}",
                         f"/v1/clusters/{cluster}", "/v1/clusters?limit=50",
                         "/v1/clusters/detail?limit=50"])
    port = free_port()
    proc, conf = start_server(port, args.workers)
    try:
        results = {}
        lat = latencies(port, "/v1/clustertemplates", 30)
        results["GET /v1/clustertemplates (1000 rows) median ms"] = statistics.median(lat)
        lat = latencies(port, "/v1/clusters?limit=50", 100)
        results["GET /v1/clusters?limit=50 (10000 clusters) median ms"] = \
            statistics.median(lat)
        results["GET /v1/clustertemplates/{uuid} req/s (4 conns)"] = throughput(
            port, f"/v1/clustertemplates/{tpl}", args.seconds)
        results["GET /v1/clusters/{uuid} req/s (4 conns)"] = throughput(
            port, f"/v1/clusters/{cluster}", args.seconds)
        results["worker RSS MB"] = [round(r, 1) for r in worker_rss(proc.pid)]
        for path, n in counts.items():
            results[f"SQL statements for GET {path.replace(tpl, '{uuid}')}"] = n
        for key, value in results.items():
            shown = f"{value:.1f}" if isinstance(value, float) else value
            print(f"{key:60s} {shown}")
        print(json.dumps({k: v for k, v in results.items()}, default=str))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        os.unlink(conf)


if __name__ == "__main__":
    main()
