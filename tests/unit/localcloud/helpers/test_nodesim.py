"""The node simulator's decisions, on canned Heat answers (no cloud needed)."""

from __future__ import annotations

import time

import pytest

from localcloud.helpers import nodesim as nodesim_module


@pytest.fixture(scope="module")
def nodesim():
    return nodesim_module


class FakeSim:
    """A Simulator whose Heat is a dict of canned answers; records what it signals."""

    def __new__(cls, nodesim, templates, resources_by_path, attrs, held=None):
        sim = nodesim.Simulator("http://keystone", "admin", "pw", "admin", 3.0, None)
        sim.sent = []
        sim.held = held if held is not None else {}

        def heat_call(method, path, body=None):
            if method == "POST":
                sim.sent.append(("heat", path, body))
                return {}
            if path.endswith("/metadata"):
                return {"metadata": sim.held}
            if path.endswith("/template"):
                return templates[path[: -len("/template")]]
            if path.endswith("/resources"):
                return {"resources": resources_by_path[path[: -len("/resources")]]}
            name = path.rsplit("/", 1)[1]
            return {"resource": {"attributes": attrs[name]}}

        sim.heat_call = heat_call
        nodesim.call = lambda method, url, token, body=None, timeout=30: sim.sent.append(
            ("handle", url, token, body))
        return sim


def _res(name, rtype, status, **extra):
    return dict(resource_name=name, resource_type=rtype, resource_status=status, **extra)


NODE_TEMPLATE = {"resources": {
    "handle": {"type": "OS::Heat::WaitConditionHandle"},
    "server": {"type": "OS::Nova::Server"},
    "wait": {"type": "OS::Heat::WaitCondition", "properties": {
        "handle": {"get_resource": "handle"}, "count": 1}},
}}
ATTRS = {"handle": {"endpoint": "http://heat/signal", "token": "tok"},
         "server": {"name": "node-0"}}
STACK = {"id": "s1", "stack_name": "n0", "stack_status": "CREATE_IN_PROGRESS"}


def _resources(server_status, wait_status="CREATE_IN_PROGRESS"):
    return [_res("handle", "OS::Heat::WaitConditionHandle", "CREATE_COMPLETE",
                 required_by=["wait"]),
            _res("server", "OS::Nova::Server", server_status),
            _res("wait", "OS::Heat::WaitCondition", wait_status)]


def test_signals_wait_condition_once_server_is_complete(nodesim):
    res = _resources("CREATE_COMPLETE")
    sim = FakeSim(nodesim, {"/stacks/n0/s1": NODE_TEMPLATE}, {"/stacks/n0/s1": res}, ATTRS)
    sim.handle_stack(STACK, "/stacks/n0/s1", res)
    assert sim.sent == [("handle", "http://heat/signal", "tok", {
        "status": "SUCCESS", "reason": "bootstrap complete (simulated)", "data": "ok",
        "id": "node-0"})]
    # not again before RESIGNAL_AFTER ...
    sim.handle_stack(STACK, "/stacks/n0/s1", res)
    assert len(sim.sent) == 1
    # ... but again once it has passed and the condition is still waiting
    sim.signalled[("s1", "wait")] = time.time() - nodesim.RESIGNAL_AFTER - 1
    sim.handle_stack(STACK, "/stacks/n0/s1", res)
    assert len(sim.sent) == 2


@pytest.mark.parametrize("server_status", ["CREATE_IN_PROGRESS", "CREATE_FAILED"])
def test_never_signals_for_a_server_not_complete(nodesim, server_status):
    res = _resources(server_status)
    sim = FakeSim(nodesim, {"/stacks/n0/s1": NODE_TEMPLATE}, {"/stacks/n0/s1": res}, ATTRS)
    sim.handle_stack(STACK, "/stacks/n0/s1", res)
    assert sim.sent == []


def test_count_sends_distinct_ids(nodesim):
    tmpl = {"resources": dict(NODE_TEMPLATE["resources"], wait={
        "type": "OS::Heat::WaitCondition",
        "properties": {"handle": {"get_resource": "handle"}, "count": 3}})}
    res = _resources("CREATE_COMPLETE")
    sim = FakeSim(nodesim, {"/stacks/n0/s1": tmpl}, {"/stacks/n0/s1": res}, ATTRS)
    sim.handle_stack(STACK, "/stacks/n0/s1", res)
    assert [s[3]["id"] for s in sim.sent] == ["node-0", "node-0-2", "node-0-3"]


def test_lost_signal_is_resent_with_the_same_id(nodesim):
    res = _resources("CREATE_COMPLETE")
    sim = FakeSim(nodesim, {"/stacks/n0/s1": NODE_TEMPLATE}, {"/stacks/n0/s1": res}, ATTRS)
    sim.handle_stack(STACK, "/stacks/n0/s1", res)
    sim.signalled[("s1", "wait")] = time.time() - nodesim.RESIGNAL_AFTER - 1
    sim.handle_stack(STACK, "/stacks/n0/s1", res)  # the handle still holds nothing
    assert [s[3]["id"] for s in sim.sent] == ["node-0", "node-0"]


def test_count_given_by_an_expression_gets_one_more_id_per_round(nodesim):
    # e.g. count: {yaql: {expression: int($.data.generation) + 1, ...}} after an update
    tmpl = {"resources": dict(NODE_TEMPLATE["resources"], wait={
        "type": "OS::Heat::WaitCondition", "properties": {
            "handle": {"get_resource": "handle"},
            "count": {"yaql": {"expression": "int($.data.generation) + 1"}}}})}
    res = _resources("CREATE_COMPLETE", wait_status="UPDATE_IN_PROGRESS")
    held = {"node-0": {"status": "SUCCESS"}}  # signalled at create, generation 0
    sim = FakeSim(nodesim, {"/stacks/n0/s1": tmpl}, {"/stacks/n0/s1": res}, ATTRS, held)
    sim.handle_stack(STACK, "/stacks/n0/s1", res)
    assert [s[3]["id"] for s in sim.sent] == ["node-0-2"]


def test_deployment_waits_for_its_deployment_id(nodesim):
    res = [_res("deploy", "OS::Heat::SoftwareDeployment", "CREATE_IN_PROGRESS",
                physical_resource_id="")]
    sim = FakeSim(nodesim, {}, {}, {})
    sim.handle_stack(STACK, "/stacks/n0/s1", res)
    assert sim.sent == []
    res[0]["physical_resource_id"] = "d-1"
    sim.handle_stack(STACK, "/stacks/n0/s1", res)
    assert sim.sent == [("heat", "/stacks/n0/s1/resources/deploy/signal", {
        "deploy_status_code": 0, "deploy_stdout": "bootstrap complete (simulated)",
        "deploy_stderr": ""})]


def test_may_wait(nodesim):
    may_wait = nodesim.Simulator.may_wait
    assert may_wait(NODE_TEMPLATE)
    assert not may_wait({"resources": {"impl": {"type": "LocalCloud::Fake::Resource"}}})
    assert not may_wait({"resources": {"net": {"type": "OS::Neutron::Net"}}})
    assert may_wait({"resources": {"member": {"type": "node.yaml"}}})
    assert may_wait({})  # unreadable template: look at the resources


def test_parse_curl_cli(nodesim):
    cli = ("curl -i -X POST -H 'X-Auth-Token: gAAAAB-tok' -H 'Content-Type: application/json' "
           "-H 'Accept: application/json' http://127.0.0.1:8004/v1/p/stacks/s/i/resources/h/signal")
    assert nodesim.parse_curl_cli(cli) == (
        "http://127.0.0.1:8004/v1/p/stacks/s/i/resources/h/signal", "gAAAAB-tok")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _boot_master(nodesim, sim, tmp_path, **env):
    """Hand the simulator a master's user data (Ignition) and let it boot the server."""
    import json
    import urllib.parse

    lines = {"CLUSTER_UUID": "c1", "NODE_NAME": "node-0", "NODE_IP": "127.99.0.50",
             "IS_MASTER": "true", "TLS_DISABLED": "true", "MASTER_IPS": "127.99.0.50", **env}
    text = "".join(f"{k}={v}\n" for k, v in lines.items())
    (tmp_path / "srv-1.user_data").write_text(json.dumps({"storage": {"files": [{
        "path": "/etc/magnum/bootstrap.env",
        "contents": {"source": "data:," + urllib.parse.quote(text)}}]}}))
    sim.servers_dir = str(tmp_path)
    sim.boot("s1", {"physical_resource_id": "srv-1"})
    return sim.booted["srv-1"]


def test_a_master_whose_snapshot_cannot_be_restored_signals_failure(nodesim, tmp_path):
    res = _resources("CREATE_COMPLETE")
    sim = FakeSim(nodesim, {"/stacks/n0/s1": NODE_TEMPLATE}, {"/stacks/n0/s1": res}, ATTRS)
    closed = f"http://127.0.0.1:{_free_port()}"
    try:
        entry = _boot_master(nodesim, sim, tmp_path, ETCD_RESTORE_IMAGE="img-1",
                             AUTH_URL=closed, GLANCE_URL=closed)
        assert entry["failure"] == "bootstrap step 40-etcd.sh failed on node-0"
        assert sim.api.route("127.99.0.50", 8080) is None  # its bootstrap stopped: no API
        res[1]["physical_resource_id"] = "srv-1"
        sim.handle_stack(STACK, "/stacks/n0/s1", res)
        assert sim.sent[-1][3]["status"] == "FAILURE"
        assert sim.sent[-1][3]["reason"] == "bootstrap step 40-etcd.sh failed on node-0"
    finally:
        sim.api.close()


def test_new_user_data_is_a_new_root_disk_but_an_etcd_volume_keeps_its_data(nodesim, tmp_path):
    sim = FakeSim(nodesim, {}, {}, ATTRS)
    try:
        entry = _boot_master(nodesim, sim, tmp_path, KUBE_TAG="v1.31.4")
        entry["node"].etcd["/registry/k"] = {"v": 1}
        assert _boot_master(nodesim, sim, tmp_path, KUBE_TAG="v1.32.1")["node"].etcd == {}
        entry = _boot_master(nodesim, sim, tmp_path, KUBE_TAG="v1.32.1", ETCD_VOLUME_ID="v1")
        entry["node"].etcd["/registry/k"] = {"v": 2}
        kept = _boot_master(nodesim, sim, tmp_path, KUBE_TAG="v1.33.0", ETCD_VOLUME_ID="v1")
        assert kept["node"].etcd == {"/registry/k": {"v": 2}}
    finally:
        sim.api.close()
