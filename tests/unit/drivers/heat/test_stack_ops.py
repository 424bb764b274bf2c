"""Stack names (stable, Heat-safe, one per cluster and node group) and outputs as a dict."""

from __future__ import annotations

import types

from drivers.heat import stack_ops
from tests.unit.drivers import support


def test_stack_names_are_stable_and_heat_safe():
    ct = support.template()
    cl = support.cluster(ct, name="My_Cluster.1 with spaces and more and more characters")
    name = stack_ops.cluster_stack_name(cl)
    assert name == stack_ops.cluster_stack_name(cl)
    assert name[0].isalpha() and name == name.lower() and " " not in name and "_" not in name
    cl2 = support.cluster(ct, name="9lives")
    assert stack_ops.cluster_stack_name(cl2).startswith("k8s-9lives-")
    ng = support.nodegroup(cl, "gpu_pool", "worker", 1, False)
    assert stack_ops.nodegroup_stack_name(cl, ng) != stack_ops.nodegroup_stack_name(
        cl, support.nodegroup(cl, "gpu_pool", "worker", 1, False))


def test_a_name_that_is_nothing_but_symbols_still_makes_a_name():
    ct = support.template()
    cl = support.cluster(ct, name="___...")
    name = stack_ops.cluster_stack_name(cl)
    assert name.startswith("k8s-") and name.count("-") == 1
    assert stack_ops._sanitize(None, 10) == "k8s"
    assert stack_ops._sanitize("Web.Front_end", 30) == "web-front-end"
    assert len(stack_ops.nodegroup_stack_name(
        support.cluster(ct, name="x" * 80),
        support.nodegroup(cl, "y" * 80, "worker", 1, False))) == 20 + 1 + 9 + 1 + 12


def test_outputs_as_a_dict():
    stack = types.SimpleNamespace(outputs=[{"output_key": "api_address",
                                            "output_value": "https://127.0.0.1:6443"},
                                           {"output_key": "pending"}])
    assert stack_ops.outputs(stack) == {"api_address": "https://127.0.0.1:6443",
                                        "pending": None}
    assert stack_ops.outputs(types.SimpleNamespace(outputs=None)) == {}
