"""What every driver, the API and the conductor agree on about a cluster's shape.

* The default node groups a cluster is created with: ``default-master`` (role master) and
  ``default-worker`` (role worker), both ``is_default``; built here only
  (:func:`default_nodegroups`) and found again here only (:func:`default_master`,
  :func:`default_worker`). The worker's autoscaling range comes from the ``min_node_count``
  and ``max_node_count`` labels.
* The boot volume: label ``boot_volume_size``, else ``[cinder] default_boot_volume_size``;
  0 means nodes boot from the image on the flavor's root disk, which the API checks the
  flavors against before anything is recorded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from magnum_common import exception, states
from magnum_common.config import CONF

DEFAULT_MASTER = "default-master"
DEFAULT_WORKER = "default-worker"
MASTER = "master"
WORKER = "worker"

NodeGroupT = TypeVar("NodeGroupT")


def is_master(nodegroup: Any) -> bool:
    """A node group without a role holds workers."""
    return (nodegroup.role or WORKER) == MASTER


def default_master(nodegroups: Iterable[NodeGroupT]) -> NodeGroupT:
    """The default master group (``NodeGroupNotFound`` when the cluster has none)."""
    for ng in nodegroups:
        if ng.is_default and is_master(ng):
            return ng
    raise exception.NodeGroupNotFound(nodegroup=DEFAULT_MASTER)


def default_worker(nodegroups: Iterable[NodeGroupT]) -> NodeGroupT:
    """The default worker group (``NodeGroupNotFound`` when the cluster has none)."""
    for ng in nodegroups:
        if ng.is_default and not is_master(ng):
            return ng
    raise exception.NodeGroupNotFound(nodegroup=DEFAULT_WORKER)


def _count_label(labels: Mapping[str, Any], name: str, default: int | None) -> int | None:
    try:
        return int(labels[name]) if name in labels else default
    except (TypeError, ValueError):
        raise exception.InvalidParameterValue(
            err=f"label {name} must be an integer") from None


def default_nodegroups(project_id: str | None, cluster: Mapping[str, Any], image_id: str | None,
                       master_count: int, node_count: int) -> list[dict[str, Any]]:
    """The rows of a new cluster's two default node groups (``cluster``: its column values:
    labels, docker_volume_size, master_flavor_id, flavor_id)."""
    labels = cluster["labels"] or {}
    common = {"project_id": project_id, "image_id": image_id,
              "docker_volume_size": cluster["docker_volume_size"],
              "status": states.CREATE_IN_PROGRESS, "is_default": True,
              "node_addresses": [], "node_labels": {}, "node_taints": []}
    return [
        {**common, "name": DEFAULT_MASTER, "role": MASTER, "node_count": master_count,
         "min_node_count": 1, "max_node_count": None,
         "flavor_id": cluster["master_flavor_id"], "labels": dict(labels)},
        {**common, "name": DEFAULT_WORKER, "role": WORKER, "node_count": node_count,
         "min_node_count": _count_label(labels, "min_node_count", 0),
         "max_node_count": _count_label(labels, "max_node_count", None),
         "flavor_id": cluster["flavor_id"], "labels": dict(labels)},
    ]


def boot_volume_size(labels: Mapping[str, Any] | None) -> int:
    """GB of the nodes' boot volume; 0: they boot from the image on the flavor's disk."""
    value = (labels or {}).get("boot_volume_size")
    if value is None or value == "":
        return CONF.cinder.default_boot_volume_size
    try:
        return max(int(value), 0)
    except (TypeError, ValueError):
        raise exception.InvalidParameterValue(
            err=f"boot_volume_size label must be an integer, got {value!r}") from None
