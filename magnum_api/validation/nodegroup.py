"""Node group rules: counts, Kubernetes node labels and taints (409 NodeGroupInvalidInput)."""

from __future__ import annotations

from typing import Any

from magnum_common import exception

_RESERVED_PREFIXES = ("kubernetes.io", "k8s.io")
_ALLOWED_PREFIXES = ("kubelet.kubernetes.io", "node.kubernetes.io")
_ALLOWED_KEYS = frozenset({
    "beta.kubernetes.io/arch", "beta.kubernetes.io/instance-type", "beta.kubernetes.io/os",
    "failure-domain.beta.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone",
    "kubernetes.io/arch", "kubernetes.io/hostname", "kubernetes.io/os",
    "node.kubernetes.io/instance-type", "node.kubernetes.io/windows-build",
    "topology.kubernetes.io/region", "topology.kubernetes.io/zone",
})
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_TAINT_FIELDS = ("key", "value", "effect")


def _invalid(attr: str, name: str, expl: str) -> exception.NodeGroupInvalidInput:
    return exception.NodeGroupInvalidInput(attr=attr, nodegroup=name, expl=expl)


def check_counts(name: str, node_count: int, min_count: int, max_count: int | None) -> None:
    if max_count is not None:
        if max_count < min_count:
            raise _invalid("max_node_count", name, f"min_node_count ({min_count}) should be "
                           f"less or equal to max_node_count ({max_count})")
        if node_count > max_count:
            raise _invalid("max_node_count", name, f"node_count ({node_count}) should be "
                           f"less or equal to max_node_count ({max_count})")
    if min_count > node_count:
        raise _invalid("min_node_count", name, f"min_node_count ({min_count}) should be "
                       f"less or equal to node_count ({node_count})")


def normalize_node_labels(name: str, labels: Any) -> dict[str, str]:
    """Keys in the kubernetes.io / k8s.io namespaces are reserved except a known few."""
    if labels is None:
        return {}
    if not isinstance(labels, dict):
        raise _invalid("node_labels", name, "node_labels must be an object")
    for key in labels:
        if not isinstance(key, str) or not key:
            raise _invalid("node_labels", name, "label keys must be non-empty strings")
        if "/" not in key or key in _ALLOWED_KEYS:
            continue
        prefix = key.split("/", 1)[0]
        if prefix in _ALLOWED_PREFIXES:
            continue
        if prefix in _RESERVED_PREFIXES or prefix.endswith(
                tuple("." + p for p in _RESERVED_PREFIXES)):
            raise _invalid("node_labels", name,
                           f"label {key} uses a prefix reserved for Kubernetes")
    return {str(k): "" if v is None else str(v) for k, v in labels.items()}


def normalize_node_taints(name: str, taints: Any) -> list[dict[str, str]]:
    if taints is None:
        return []
    if not isinstance(taints, list):
        raise _invalid("node_taints", name, "node_taints must be a list")
    result = []
    for i, taint in enumerate(taints):
        if not isinstance(taint, dict):
            raise _invalid("node_taints", name, f"node_taints[{i}] must be an object with "
                           "key, effect and optional value")
        unknown = sorted(set(taint) - set(_TAINT_FIELDS))
        if unknown:
            raise _invalid("node_taints", name, f"node_taints[{i}] contains unrecognised "
                           f"field(s) {', '.join(unknown)}; allowed fields are key, value, "
                           "effect")
        if not taint.get("key"):
            raise _invalid("node_taints", name, f"node_taints[{i}].key is required")
        if taint.get("effect") not in TAINT_EFFECTS:
            raise _invalid("node_taints", name, f"node_taints[{i}].effect must be one of "
                           f"{', '.join(TAINT_EFFECTS)}")
        result.append({"key": str(taint["key"]), "value": str(taint.get("value") or ""),
                       "effect": taint["effect"]})
    return result


def check_master(name: str, role: str | None, node_labels: dict, node_taints: list) -> None:
    if role != "master":
        return
    for attr, value in (("node_labels", node_labels), ("node_taints", node_taints)):
        if value:
            raise _invalid(attr, name, f"{attr} may not be set on master nodegroups")
