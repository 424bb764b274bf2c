"""The node simulator serves each simulated cluster's Kubernetes API, and the real health
monitor (drivers/heat/monitor.py) reads it: HEALTHY, UNHEALTHY with a reason while a node is
stopped, and nothing left listening once the stack is gone.

The cluster here has TLS disabled, so no Magnum is needed to sign its certificate (the TLS
path, through Magnum's certificate API, runs in the e2e tests and the main job).
"""

from __future__ import annotations

import ipaddress
import subprocess
import time
import uuid

from drivers.heat import parameters
from drivers.heat.monitor import K8sMonitor
from localcloud.layout import CLI

LOCAL = ipaddress.ip_network("127.0.0.0/8")
DEADLINE = 60


def _env(cluster: str, master: bool) -> str:
    return parameters.encode_env({
        "CLUSTER_UUID": cluster, "TLS_DISABLED": "true", "KUBE_TAG": "v1.31.4",
        "IS_MASTER": str(master).lower(), "NODEGROUP_ROLE": "master" if master else "worker",
        "NODEGROUP_NAME": "default-master" if master else "default-worker"})


def _until(what: str, check):
    t0 = time.monotonic()
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() - t0 < DEADLINE, f"{what} not seen within {DEADLINE}s"
        time.sleep(1)


def _node(action: str, name: str) -> None:
    subprocess.run([CLI, "node", action, name], check=True, capture_output=True, timeout=120)


def test_stopping_a_simulated_node_makes_the_cluster_unhealthy_with_a_reason(
        heat_demo, stacks, stack_name, lc):
    cluster = str(uuid.uuid4())
    name = stack_name[:40]
    sid, stack, _ = lc.create_complete(
        heat_demo, stacks, stack_name, "kube_cluster.yaml",
        files={"kube_node.yaml": lc.template("kube_node.yaml")},
        parameters={"master_env": _env(cluster, True), "worker_env": _env(cluster, False),
                    "cluster_name": name})
    out = lc.outputs(stack)
    assert all(ipaddress.ip_address(out[k]) in LOCAL for k in ("master_ip", "worker_ip")), out
    monitor = K8sMonitor(f"http://{out['master_ip']}:8080", None)
    master, worker = f"{name}-master-0", f"{name}-worker-0"

    status, reason = _until("HEALTHY", lambda: (r := monitor.poll_health())[0] == "HEALTHY"
                            and r)
    assert reason == {"api": "ok", f"{master}.Ready": True, f"{worker}.Ready": True}

    _node("stop", worker)
    status, reason = _until("UNHEALTHY", lambda: (r := monitor.poll_health())[0] == "UNHEALTHY"
                            and r)
    assert reason == {"api": "ok", f"{master}.Ready": True, f"{worker}.Ready": False}
    _node("start", worker)
    _until("HEALTHY again", lambda: monitor.poll_health()[0] == "HEALTHY")

    # the only master stopped: its API is gone, the monitor can only say UNKNOWN
    _node("stop", master)
    status, reason = _until("UNKNOWN", lambda: (r := monitor.poll_health())[0] == "UNKNOWN"
                            and r)
    assert "unreachable" in reason["api"]
    _node("start", master)
    _until("HEALTHY after the master's start", lambda: monitor.poll_health()[0] == "HEALTHY")

    heat_demo.stacks.delete(sid)
    lc.wait_deleted(heat_demo, sid)
    _until("the listener released", lambda: monitor.poll_health()[0] == "UNKNOWN")
    listed = subprocess.run([CLI, "node", "list"], capture_output=True, text=True).stdout
    assert cluster not in listed
