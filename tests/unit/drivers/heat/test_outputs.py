"""Stack outputs and parameters -> row values."""

from __future__ import annotations

import types

from drivers.heat import outputs
from magnum_common.drivers.view import ClusterView
from tests.unit.drivers import support


def _stack(stack_id, outs, params):
    return types.SimpleNamespace(
        id=stack_id, parameters=params,
        outputs=[{"output_key": k, "output_value": v} for k, v in outs.items()])


CLUSTER_OUTPUTS = {"api_address": "127.24.4.10", "kube_masters": ["127.24.4.10"],
                   "kube_masters_private": ["127.10.0.4"],
                   "kube_minions": ["127.24.4.11", "127.24.4.12"],
                   "kube_minions_private": ["127.10.0.5", "127.10.0.6"]}


def test_cluster_stack_with_floating_ips():
    ct = support.template(floating_ip_enabled=True, labels={"containerd_version": "1.7.99"})
    cl = support.cluster(ct, stack_id="s1")
    master, worker = support.default_nodegroups(cl, 1, 2)
    out = outputs.parse(ClusterView.of(cl, ct, [master, worker]), _stack("s1", CLUSTER_OUTPUTS, {
        "number_of_masters": "1", "number_of_minions": "2", "kube_tag": "v1.31.4"}))
    assert out.api_address == "https://127.24.4.10:6443"
    assert out.node_addresses == {master.uuid: ["127.24.4.10"],
                                  worker.uuid: ["127.24.4.11", "127.24.4.12"]}
    assert out.node_counts == {master.uuid: 1, worker.uuid: 2}
    assert out.coe_version == "v1.31.4" and out.container_version == "1.7.99"


def test_private_addresses_and_tls_disabled():
    ct = support.template(floating_ip_enabled=False, tls_disabled=True)
    cl = support.cluster(ct, stack_id="s1")
    master, worker = support.default_nodegroups(cl)
    out = outputs.parse(ClusterView.of(cl, ct, [master, worker]), _stack("s1", dict(
        CLUSTER_OUTPUTS, api_address="127.10.0.4"), {"kube_version": "1.31.2"}))
    assert out.api_address == "http://127.10.0.4:8080"
    assert out.node_addresses[worker.uuid] == ["127.10.0.5", "127.10.0.6"]
    assert out.coe_version == "v1.31.2" and out.node_counts == {}


def test_nodegroup_stack_fills_only_its_group():
    ct = support.template(floating_ip_enabled=True)
    cl = support.cluster(ct, stack_id="s1")
    ngs = support.default_nodegroups(cl)
    extra = support.nodegroup(cl, "gpu", "worker", 1, False, stack_id="s2")
    out = outputs.parse(ClusterView.of(cl, ct, ngs + [extra]), _stack("s2", {
        "kube_minions": ["127.24.4.30"], "kube_minions_private": ["127.10.0.30"]},
        {"number_of_minions": "1"}))
    assert out.api_address is None and out.coe_version is None
    assert out.node_addresses == {extra.uuid: ["127.24.4.30"]}
    assert out.node_counts == {extra.uuid: 1}


def test_api_url_brackets_ipv6():
    assert outputs.api_url("fd00::1", False) == "https://[fd00::1]:6443"
    assert outputs.api_url(None, False) is None
