"""Rolling upgrades and node replacement: what changes, and what is refused.

An upgrade replaces nodes batch by batch (``update_max_batch_size``), masters first: the
new version and image reach each node through its user data, and raising the node
*generation* makes every node's wait condition expect one more signal, which only the
replacement server sends, so a batch completes only when its new nodes have signalled.
Ports, floating IPs and etcd volumes are separate resources and survive the replacement, so a
master comes back with its address and its etcd data; a lone master without an etcd volume
hands its data over through a snapshot first (:mod:`drivers.heat.etcd_handover`).
"""

from __future__ import annotations

import dataclasses

from drivers.heat import labels as label_table
from magnum_common import exception
from magnum_common.drivers.view import ClusterRow, ClusterView, NodeGroupRow, TemplateRow

#: Labels an upgrade takes from the new template even when the cluster set them itself.
VERSION_LABELS = frozenset({
    "kube_image_digest", "ostree_remote", "ostree_commit", "containerd_version",
    "containerd_tarball_url", "containerd_tarball_sha256",
})


def upgraded_labels(cluster: ClusterRow | NodeGroupRow,
                    new_template: TemplateRow) -> dict[str, str]:
    """The cluster's labels after an upgrade to ``new_template``.

    The cluster keeps its own settings; versions (``*_tag`` and the labels above) come from
    the new template wherever it sets them.
    """
    labels = dict(cluster.labels or {})
    for name, value in (new_template.labels or {}).items():
        if name.endswith("_tag") or name in VERSION_LABELS or name not in labels:
            labels[name] = value
    return labels


def target(view: ClusterView, new_template: TemplateRow,
           nodegroup: NodeGroupRow) -> ClusterView:
    """The cluster as an upgrade of ``nodegroup`` (all default groups for a default one)
    leaves it: on ``new_template``, the cluster and the rolled groups with their upgraded
    labels."""
    rolled = {ng.uuid for ng in view.nodegroups
              if (ng.is_default if nodegroup.is_default else ng.uuid == nodegroup.uuid)}
    return dataclasses.replace(
        view, template=new_template,
        cluster=dataclasses.replace(view.cluster,
                                    labels=upgraded_labels(view.cluster, new_template)),
        nodegroups=tuple(dataclasses.replace(ng, labels=upgraded_labels(ng, new_template))
                         if ng.uuid in rolled else ng for ng in view.nodegroups))


def check_version(current: str | None, target: str) -> None:
    """Refuse a downgrade (a lower Kubernetes version than the stack runs)."""
    if not current:
        return
    if label_table.parse_version(target) < label_table.parse_version(current):
        raise exception.InvalidParameterValue(
            err=f"Downgrading Kubernetes from {current} to {target} is not supported.")


def next_generation(current: str | int | None) -> int:
    """The node generation after ``current`` (Heat returns parameters as strings)."""
    try:
        return int(current or 0) + 1
    except (TypeError, ValueError):
        return 1
