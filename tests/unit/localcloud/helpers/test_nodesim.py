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
