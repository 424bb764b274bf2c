"""Node group rules: counts, reserved Kubernetes label prefixes, taints, masters."""

from __future__ import annotations

import pytest

from magnum_api.validation import nodegroup
from magnum_common import exception


def _refused(words: str):
    return pytest.raises(exception.NodeGroupInvalidInput, match=words)


def test_counts_must_nest():
    nodegroup.check_counts("ng", 2, 1, 3)
    nodegroup.check_counts("ng", 2, 0, None)
    with _refused(r"min_node_count \(4\) should be less or equal to max_node_count \(3\)"):
        nodegroup.check_counts("ng", 3, 4, 3)
    with _refused(r"node_count \(5\) should be less or equal to max_node_count"):
        nodegroup.check_counts("ng", 5, 0, 3)
    with _refused(r"min_node_count \(2\) should be less or equal to node_count \(1\)"):
        nodegroup.check_counts("ng", 1, 2, None)


def test_node_labels_keep_out_of_the_kubernetes_namespaces_but_the_known_few():
    labels = {"tier": "web", "kubernetes.io/arch": "amd64", "node.kubernetes.io/x": 1,
              "example.com/y": None}
    assert nodegroup.normalize_node_labels("ng", labels) == {
        "tier": "web", "kubernetes.io/arch": "amd64", "node.kubernetes.io/x": "1",
        "example.com/y": ""}
    assert nodegroup.normalize_node_labels("ng", None) == {}
    for key in ("kubernetes.io/role", "k8s.io/x", "foo.kubernetes.io/bar"):
        with _refused("reserved for Kubernetes"):
            nodegroup.normalize_node_labels("ng", {key: "v"})
    with _refused("must be an object"):
        nodegroup.normalize_node_labels("ng", ["a"])
    with _refused("non-empty strings"):
        nodegroup.normalize_node_labels("ng", {"": "v"})


def test_taints_have_a_key_an_effect_and_nothing_else():
    assert nodegroup.normalize_node_taints("ng", [{"key": "gpu", "effect": "NoSchedule"}]) \
        == [{"key": "gpu", "value": "", "effect": "NoSchedule"}]
    assert nodegroup.normalize_node_taints("ng", None) == []
    for taints, words in (({"key": "a"}, "must be a list"),
                          (["a"], r"node_taints\[0\] must be an object"),
                          ([{"key": "a", "effect": "NoSchedule", "op": 1}], "unrecognised"),
                          ([{"effect": "NoSchedule"}], r"node_taints\[0\].key is required"),
                          ([{"key": "a", "effect": "Sometimes"}], "effect must be one of")):
        with _refused(words):
            nodegroup.normalize_node_taints("ng", taints)


def test_masters_take_no_labels_or_taints():
    nodegroup.check_master("ng", "worker", {"a": "b"}, [{"key": "k"}])
    nodegroup.check_master("m", "master", {}, [])
    with _refused("node_labels may not be set on master nodegroups"):
        nodegroup.check_master("m", "master", {"a": "b"}, [])
    with _refused("node_taints may not be set on master"):
        nodegroup.check_master("m", "master", {}, [{"key": "k"}])
