"""Cluster create latency: from the API's 202 (row + recorded operation written, cast sent)
to the Heat stack-create request arriving, including trustee + trust and the four
certificates. One conductor (in this process) on the real RabbitMQ, a migrated SQLite
database, the tests' Keystone + Heat stand-in process, x509keypair certificate storage.
Printed, never asserted.

Usage: ``python bench/bench_conductor_create.py [--clusters 15]``
"""

from __future__ import annotations

import argparse
import datetime
import pathlib
import statistics
import sys
import tempfile
import time
import uuid

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "functional" / "conductor"))

import standin_driver  # noqa: E402
import support  # noqa: E402

from magnum_common import config as magnum_config  # noqa: E402
from magnum_common import rpc  # noqa: E402
from magnum_common.conductor_api import ConductorAPI  # noqa: E402
from magnum_common.db import api as db_api  # noqa: E402
from magnum_common.db import migration  # noqa: E402


def _stack_created_at(standin: support.Standin, name: str) -> float | None:
    stacks = standin.stacks_named(name)
    if not stacks:
        return None
    stamp = datetime.datetime.strptime(stacks[0]["creation_time"], "%Y-%m-%dT%H:%M:%S.%fZ")
    return stamp.replace(tzinfo=datetime.UTC).timestamp()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clusters", type=int, default=15)
    args = parser.parse_args()

    workdir = pathlib.Path(tempfile.mkdtemp(prefix="bench-create-"))
    standin = support.Standin()
    magnum_config.parse_args([], default_config_files=[])
    support.apply_options(support.options(standin.url, f"bench-{uuid.uuid4().hex[:8]}"))
    support.CONF.set_override("connection", f"sqlite:///{workdir / 'magnum.sqlite'}",
                              "database")
    db_api.reset_engine()
    migration.upgrade()
    standin_driver.install()
    from magnum_conductor.service import Conductor

    conductor = Conductor()
    conductor.start()
    api = ConductorAPI()
    latencies = []
    try:
        template = support.make_template()
        for _ in range(args.clusters):
            ctx = support.requester()
            cluster = support.record_cluster(ctx, template)
            api.cluster_create(ctx, cluster.uuid)
            accepted = time.time()
            sent = support.wait_for(lambda c=cluster: _stack_created_at(standin, c.name),
                                    timeout=30, interval=0.01, what="stack create")
            latencies.append(sent - accepted)
    finally:
        conductor.stop()
        rpc.cleanup()
        standin.stop()
    latencies.sort()
    print(f"clusters: {len(latencies)}")
    print(f"accepted -> Heat stack-create request: median {statistics.median(latencies):.3f} s, "
          f"p90 {latencies[int(len(latencies) * 0.9) - 1]:.3f} s, min {latencies[0]:.3f} s, "
          f"max {latencies[-1]:.3f} s")


if __name__ == "__main__":
    main()
