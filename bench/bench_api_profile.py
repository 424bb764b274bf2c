"""Where one API request spends its CPU: cProfile of the WSGI pipeline, in-process.

Run:  .venv/bin/python bench/bench_api_profile.py [--requests 2000] [--top 40] [PATH ...]

Uses the database ``bench/bench_api.py`` seeds (run it once first, or pass ``--seed``),
loads the same paste pipeline magnum-api serves (noauth) and calls it directly, so the
numbers are the server's per-request cost without HTTP parsing or the client. Paths may use
``{template}`` and ``{cluster}`` for the seeded rows. Prints the CPU and wall time per
request (best of several rounds), then the top functions by cumulative and by own CPU time
(CPU, not wall, so that other work on the machine and waits on MariaDB do not blur it).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import time

import sqlalchemy as sa

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_api  # noqa: E402

DEFAULT_PATHS = ["/v1/clustertemplates/{template}", "/v1/clusters/{cluster}"]


def seeded_rows() -> tuple[str, str]:
    engine = sa.create_engine(bench_api.DB_URL)
    with engine.connect() as conn:
        template = conn.execute(sa.text(
            "SELECT uuid FROM cluster_template ORDER BY id LIMIT 1")).scalar_one()
        cluster = conn.execute(sa.text(
            "SELECT uuid FROM cluster ORDER BY id LIMIT 1")).scalar_one()
    engine.dispose()
    return template, cluster


def load_app():
    from oslo_config import cfg

    from magnum_api import app
    from magnum_common import config
    from magnum_common.db import api as db_api

    config.parse_args([], default_config_files=[])
    cfg.CONF.set_override("auth_strategy", "noauth")
    cfg.CONF.set_override("encryption_key", bench_api.ENCRYPTION_KEY, "crypto")
    cfg.CONF.set_override("connection", bench_api.DB_URL, "database")
    db_api.reset_engine()
    return app.load_app()


def environ_for(path: str) -> dict:
    path_info, _, query = path.partition("?")
    environ = {
        "REQUEST_METHOD": "GET", "SCRIPT_NAME": "", "PATH_INFO": path_info,
        "QUERY_STRING": query, "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "9511",
        "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(),
        "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": True,
        "wsgi.run_once": False, "wsgi.version": (1, 0), "HTTP_HOST": "127.0.0.1:9511",
    }
    for name, value in bench_api.HEADERS.items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    return environ


def call(app, path: str) -> bytes:
    status = []
    body = b"".join(app(environ_for(path), lambda s, h, e=None: status.append(s)))
    if not status[0].startswith("200"):
        raise SystemExit(f"{path}: {status[0]} {body[:300]!r}")
    return body


def cost(app, path: str, requests: int, rounds: int) -> tuple[float, float]:
    """Best CPU and wall milliseconds per request over ``rounds`` runs (others' load only
    ever adds to a run, so the best is the closest to the code's own cost)."""
    best_cpu = best_wall = float("inf")
    per_round = max(1, requests // rounds)
    for _ in range(rounds):
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(per_round):
            call(app, path)
        best_wall = min(best_wall, (time.perf_counter() - start) / per_round * 1000)
        best_cpu = min(best_cpu, (time.process_time() - cpu) / per_round * 1000)
    return best_cpu, best_wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--top", type=int, default=40, help="0: only the totals")
    parser.add_argument("--rounds", type=int, default=5,
                        help="the unprofiled cost is the best of this many rounds")
    parser.add_argument("--no-profile", action="store_true", help="only the costs")
    parser.add_argument("--seed", action="store_true", help="seed the database first")
    parser.add_argument("paths", nargs="*", default=DEFAULT_PATHS)
    args = parser.parse_args()
    if args.seed:
        bench_api.seed()
    template, cluster = seeded_rows()
    app = load_app()
    for raw in args.paths:
        path = raw.format(template=template, cluster=cluster)
        for _ in range(50):
            call(app, path)
        cpu, wall = cost(app, path, args.requests, args.rounds)
        print(f"\n=== GET {raw}: {cpu:.3f} ms CPU, {wall:.3f} ms wall per request "
              f"(unprofiled, best of {args.rounds}); load average {os.getloadavg()[0]:.2f}")
        if args.no_profile:
            continue
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        for _ in range(args.requests):
            call(app, path)
        profiler.disable()
        stats = pstats.Stats(profiler)
        print(f"    {stats.total_calls / args.requests:.0f} Python function calls per request")
        for order in ("cumulative", "tottime") if args.top else ():
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(args.top)
            print(out.getvalue())


if __name__ == "__main__":
    main()
