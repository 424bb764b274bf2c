"""Cluster create latency: from the API's 202 to Heat's stack-create request.

Usage: ``python bench/bench_conductor_create.py [--cloud localcloud|standin|both]
[--clusters 10] [--concurrent 20] [--db mysql|sqlite|postgresql]``

``localcloud`` (the local cloud's real Keystone, Heat and Barbican; skipped when it is not
up): magnum-api and two magnum-conductor processes started as ``main-job`` starts them
(``localcloud.scenario.services``), the real ``k8s_fedora_coreos_v1`` driver and templates,
the demo user posting ``POST /v1/clusters`` over HTTP. For each create, the time from the
202 to the moment heat-api starts processing the stack create: heat-api logs that line with
Magnum's request id as its global request id, which the conductor sends to Heat. Printed:

* ``--clusters`` creates one after the other, each once the previous cluster has left
  CREATE_IN_PROGRESS (so Heat's engine and the node simulator are not still building the
  earlier stacks on the same cores; ``--back-to-back`` starts each as soon as the previous
  reached Heat): median and p90                                  targets <= 0.5 s, 0.8 s
* the same, split by step from the conductors' lifecycle log (``magnum_conductor.lifecycle``)
* ``--concurrent`` creates at once through the two conductors: p50, p95
* PSS of each conductor worker and of the API worker after the work  target <= 90 MB

Everything created is deleted again (clusters, then the template).

``standin`` (no cloud needed): one conductor in this process on the real RabbitMQ, a
migrated SQLite database, the tests' Keystone + Heat stand-in, x509keypair certificate
storage; the time from the cast to the stand-in receiving the stack create.

Printed, never asserted.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import pathlib
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "functional" / "conductor"))
sys.path.insert(0, str(REPO / "bench"))

from procmem import children, memory_mb  # noqa: E402
from report import result  # noqa: E402

LOG_TIME = "%Y-%m-%d %H:%M:%S.%f"
#: heat-api's line for a stack create, with the caller's global request id first.
HEAT_POST = re.compile(r"^(\S+ \S+) \d+ INFO heat\.common\.wsgi \[(req-[0-9a-f-]+) .*"
                       r"Processing request: POST /v1/\w+/stacks$")
LIFECYCLE = re.compile(r"^(\S+ \S+) \d+ \w+ magnum_conductor\.lifecycle \[[^]]*\] "
                       r"operation=(\S+) cluster=(\S+) nodegroup=\S+ step=(\S+) "
                       r"outcome=(\S+) seconds=([\d.]+)")


def _stamp(text: str) -> float:
    return datetime.datetime.strptime(text, LOG_TIME).timestamp()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))]


# --- the local cloud ----------------------------------------------------------------------
class LocalCloudBench:
    """Our services on the local cloud, and the demo user talking to them."""

    def __init__(self, db: str) -> None:
        from localcloud.config import login
        from localcloud.layout import Layout
        from localcloud.scenario import life, paths, services

        self.paths, self.services = paths, services
        state = paths.cloud_state_dir()
        self.heat_log = state / "logs" / "heat-api.log"
        self.lock = services.PortLock(timeout=1800)
        self.lock.acquire()
        self.svc = services.MagnumServices(run_dir=services.new_run_dir("bench-create"),
                                           backend=db, name="bench_create")
        self.svc.prepare()
        self.svc.start()
        self.svc.wait_ready(timeout=240)
        self.token, body = login(Layout(str(state)), "demo")
        self.base = f"http://{paths.API_HOST}:{paths.API_PORT}"
        # The sequential and the concurrent creates exceed the default quota of 20
        # clusters per project: the cloud's admin raises demo's for the run.
        demo_token = self.token
        self.token, _ = login(Layout(str(state)), "admin")
        self._request("POST", "/v1/quotas", {
            "project_id": body["token"]["project"]["id"], "resource": "Cluster",
            "hard_limit": 1000})
        self.token = demo_token
        self.heat_offset = self.heat_log.stat().st_size
        self.template = self._request("POST", "/v1/clustertemplates", {
            "name": f"bench-{uuid.uuid4().hex[:6]}", "coe": "kubernetes",
            "image_id": "fedora-coreos-40", "external_network_id": life.EXTERNAL_NETWORK,
            # The cloud's own private network: its subnet is in 127.0.0.0/8, where the
            # driver's default fixed_subnet_cidr (a private range) is refused by the local cloud.
            "fixed_network": life.FIXED_NETWORK, "fixed_subnet": life.FIXED_SUBNET,
            "flavor_id": "m1.small", "master_flavor_id": "m1.medium",
            "keypair_id": "localcloud-demo", "network_driver": "flannel",
            "labels": {"kube_tag": "v1.31.4"}})[1]["uuid"]
        self.created: list[str] = []

    def _request(self, method: str, path: str, body: dict | None = None
                 ) -> tuple[dict, dict]:
        request = urllib.request.Request(
            self.base + path, method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"X-Auth-Token": self.token, "Content-Type": "application/json",
                     "OpenStack-API-Version": "container-infra latest"})
        with urllib.request.urlopen(request, timeout=60) as response:
            text = response.read()
            # Header names are case-insensitive; the request id's spelling varies by server.
            headers = {k.lower(): v for k, v in response.headers.items()}
            return headers, (json.loads(text) if text else {})

    def create(self, name: str) -> tuple[str, str, float]:
        """(cluster uuid, request id, time of the 202)."""
        headers, body = self._request("POST", "/v1/clusters", {
            "name": name, "cluster_template_id": self.template, "master_count": 1,
            "node_count": 1})
        accepted = time.time()
        self.created.append(body["uuid"])
        return body["uuid"], headers["x-openstack-request-id"], accepted

    def settle(self, ident: str, timeout: float = 600) -> float:
        """Seconds until the cluster has left CREATE_IN_PROGRESS: its stack is built and the
        cloud (Heat's engine, the node simulator) is no longer working for it."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            status = self._request("GET", f"/v1/clusters/{ident}")[1]["status"]
            if status != "CREATE_IN_PROGRESS":
                break
            time.sleep(2)
        return time.monotonic() - started

    def heat_arrivals(self, request_ids: set[str], timeout: float = 120) -> dict[str, float]:
        """When heat-api started each stack create of ours, by Magnum request id."""
        found: dict[str, float] = {}
        deadline = time.monotonic() + timeout
        while len(found) < len(request_ids) and time.monotonic() < deadline:
            with open(self.heat_log, errors="replace") as log:
                log.seek(self.heat_offset)
                for line in log:
                    match = HEAT_POST.match(line.rstrip("\n"))
                    if match and match.group(2) in request_ids:
                        found.setdefault(match.group(2), _stamp(match.group(1)))
            time.sleep(0.2)
        return found

    def steps(self, uuids: set[str]) -> dict[str, dict[str, tuple[float, float]]]:
        """Lifecycle step -> (start time, seconds), per cluster, from the conductors' logs."""
        result_: dict[str, dict[str, tuple[float, float]]] = {}
        for log in sorted(self.svc.logs.glob("magnum-conductor-*.log")):
            for line in log.read_text(errors="replace").splitlines():
                match = LIFECYCLE.match(line)
                if match and match.group(3) in uuids and match.group(2) == "cluster_create":
                    seconds = float(match.group(6))
                    result_.setdefault(match.group(3), {})[match.group(4)] = (
                        _stamp(match.group(1)) - seconds, seconds)
        return result_

    def memory(self) -> dict[str, list[float]]:
        """PSS MB of each worker of our services."""
        found: dict[str, list[float]] = {}
        for proc in self.svc.processes:
            kind = "api" if proc.name == "magnum-api" else "conductor"
            found.setdefault(kind, []).extend(memory_mb(pid)["pss"]
                                              for pid in children(proc.pid))
        return found

    def close(self) -> None:
        """Delete what the run made, as a user would: a cluster whose delete failed (Heat
        fails a stack delete now and then under load) is deleted again. Cleanup problems
        are printed, never raised: the figures are already measured."""
        try:
            attempts: dict[str, int] = {}
            pending = set(self.created)
            deadline = time.monotonic() + 900
            while time.monotonic() < deadline:
                for ident in sorted(pending):
                    try:
                        self._request("DELETE", f"/v1/clusters/{ident}")
                    except urllib.error.HTTPError as exc:
                        if exc.code != 404:
                            print(f"delete {ident}: {exc}")
                    attempts[ident] = attempts.get(ident, 0) + 1
                left = self._request("GET", "/v1/clusters?limit=1000")[1]["clusters"]
                if not left:
                    break
                pending = {c["uuid"] for c in left if c["status"] == "DELETE_FAILED"
                           and attempts.get(c["uuid"], 0) < 3}
                time.sleep(3)
            else:
                print(f"clusters not deleted within 15 minutes: {len(left)}")
            self._request("DELETE", f"/v1/clustertemplates/{self.template}")
        except (urllib.error.URLError, OSError) as exc:
            print(f"cleanup: {exc}")
        finally:
            self.svc.stop()
            self.lock.release()


def timed_steps(logged: dict[str, dict[str, tuple[float, float]]],
                times: dict[str, tuple[float, float]]) -> dict[str, dict[str, float]]:
    """Seconds per step and cluster, with the waits around them: ``pickup`` (the 202 to
    the first step: the cast's delivery and the lease) and ``to_heat`` (the stack request
    starting to heat-api processing it: rendering, Keystone, heat-api's token check)."""
    found: dict[str, dict[str, float]] = {}
    for ident, per in logged.items():
        found[ident] = {name: seconds for name, (_, seconds) in per.items()}
        accepted, arrived = times.get(ident, (None, None))
        if accepted is not None and "trust" in per:
            found[ident]["pickup"] = per["trust"][0] - accepted
        if arrived is not None and "stack_create" in per:
            found[ident]["to_heat"] = arrived - per["stack_create"][0]
    return found


def run_localcloud(args: argparse.Namespace) -> None:
    from localcloud.scenario import paths

    if not paths.cloud_status().get("up"):
        print("local cloud not up: the real-cloud figures are not measured")
        result("create on the local cloud: median s", None, "s", 0.5)
        return
    bench = LocalCloudBench(args.db)
    try:
        sequential: list[tuple[float, str]] = []
        times: dict[str, tuple[float, float]] = {}
        for i in range(args.clusters):
            ident, rid, accepted = bench.create(f"bench-seq-{i}")
            arrived = bench.heat_arrivals({rid}).get(rid)
            if arrived is None:
                print(f"  sample {i}: no stack create reached heat-api within 120 s")
                continue
            sequential.append((arrived - accepted, ident))
            times[ident] = (accepted, arrived)
            settled = "" if args.back_to_back else f", built in {bench.settle(ident):.0f} s"
            print(f"  sample {i + 1}: {arrived - accepted:.3f} s{settled}", flush=True)
        latencies = [s for s, _ in sequential]
        steps = timed_steps(bench.steps({ident for _, ident in sequential}), times)
        barrier = threading.Barrier(args.concurrent)

        def create_at_once(i: int) -> tuple[str, str, float]:
            barrier.wait()
            return bench.create(f"bench-par-{i}")

        with concurrent.futures.ThreadPoolExecutor(args.concurrent) as pool:
            made = list(pool.map(create_at_once, range(args.concurrent)))
        arrivals = bench.heat_arrivals({rid for _, rid, _ in made}, timeout=300)
        parallel = [arrivals[rid] - accepted for _, rid, accepted in made if rid in arrivals]
        memory = bench.memory()
    finally:
        bench.close()

    print(f"\nlocal cloud (real Keystone, Heat, Barbican), {args.db}, 2 conductors")
    if latencies:
        how = ("each as soon as the previous reached Heat" if args.back_to_back else
               "each once the previous cluster was built")
        print(f"accepted -> heat-api starts the stack create, {len(latencies)} one after the "
              f"other ({how}): median {statistics.median(latencies):.3f} s, p90 "
              f"{percentile(latencies, 0.9):.3f} s, min {min(latencies):.3f} s, max "
              f"{max(latencies):.3f} s")
        names = sorted({name for per in steps.values() for name in per},
                       key=lambda n: statistics.median(
                           per.get(n, 0) for per in steps.values()), reverse=True)
        print("  steps (median s): " + ", ".join(
            f"{n} {statistics.median(per.get(n, 0.0) for per in steps.values()):.3f}"
            for n in names))
        for seconds, ident in sorted(sequential, reverse=True)[:3]:
            print(f"  slowest {seconds:.3f} s: " + ", ".join(
                f"{n} {v:.3f}" for n, v in sorted(steps.get(ident, {}).items(),
                                                  key=lambda kv: -kv[1])))
    if parallel:
        print(f"{args.concurrent} at once through 2 conductors: p50 "
              f"{percentile(parallel, 0.5):.3f} s, p95 {percentile(parallel, 0.95):.3f} s, "
              f"max {max(parallel):.3f} s ({len(parallel)} reached Heat)")
    shown = {kind: [round(m, 1) for m in values] for kind, values in memory.items()}
    print(f"PSS MB after the work: conductor workers {shown.get('conductor')}, "
          f"API workers {shown.get('api')}")
    result("create on the local cloud (202 -> Heat stack-create): median", round(
        statistics.median(latencies), 3) if latencies else None, "s", 0.5)
    result("create on the local cloud (202 -> Heat stack-create): p90", round(
        percentile(latencies, 0.9), 3) if latencies else None, "s", 0.8)
    result(f"{args.concurrent} concurrent creates, 2 conductors: p50",
           round(percentile(parallel, 0.5), 3) if parallel else None, "s")
    result(f"{args.concurrent} concurrent creates, 2 conductors: p95",
           round(percentile(parallel, 0.95), 3) if parallel else None, "s")
    result("conductor worker PSS after creates: max", round(max(memory.get(
        "conductor", [0])), 1) if memory.get("conductor") else None, "MB", 90)


# --- the stand-in -------------------------------------------------------------------------
def _stack_created_at(standin, name: str) -> float | None:
    stacks = standin.stacks_named(name)
    if not stacks:
        return None
    stamp = datetime.datetime.strptime(stacks[0]["creation_time"], "%Y-%m-%dT%H:%M:%S.%fZ")
    return stamp.replace(tzinfo=datetime.UTC).timestamp()


def run_standin(args: argparse.Namespace) -> None:
    import standin_driver
    import support

    from magnum_common import config as magnum_config
    from magnum_common import rpc
    from magnum_common.conductor_api import ConductorAPI
    from magnum_common.db import api as db_api
    from magnum_common.db import migration

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
    print(f"\nstand-in: {len(latencies)} clusters, cast -> stand-in Heat stack-create request: "
          f"median {statistics.median(latencies):.3f} s, p90 "
          f"{percentile(latencies, 0.9):.3f} s, min {min(latencies):.3f} s, "
          f"max {max(latencies):.3f} s")
    result("create on the stand-in (cast -> stack-create): median",
           round(statistics.median(latencies), 3), "s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cloud", choices=["localcloud", "standin", "both"], default="both")
    parser.add_argument("--clusters", type=int, default=10)
    parser.add_argument("--concurrent", type=int, default=20)
    parser.add_argument("--db", choices=["mysql", "sqlite", "postgresql"], default="mysql")
    parser.add_argument("--back-to-back", action="store_true",
                        help="start each sequential create as soon as the previous one reached "
                             "Heat, not once its cluster is built")
    args = parser.parse_args()
    if args.cloud in ("standin", "both"):
        run_standin(args)
    if args.cloud in ("localcloud", "both"):
        run_localcloud(args)


if __name__ == "__main__":
    main()
