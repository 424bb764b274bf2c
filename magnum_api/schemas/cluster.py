"""Cluster: create / resize / upgrade bodies, patchable attributes and the views."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wsme import types as wtypes

from magnum_api import microversion
from magnum_api.schemas import patch, types
from magnum_common import states

INTERNAL = patch.COMMON_INTERNAL + (
    "/api_address", "/node_addresses", "/master_addresses", "/stack_id", "/cluster_id",
    "/ca_cert_ref", "/magnum_cert_ref", "/etcd_ca_cert_ref", "/front_proxy_ca_cert_ref")
NON_REMOVABLE = ("/cluster_template_id",)
LITERAL_PATHS = ("/labels", "/health_status_reason")
PATCHABLE = frozenset({"node_count", "health_status", "health_status_reason"})
#: Attributes a JSON patch sees (the stored fields plus the counts).
PATCH_FIELDS = (
    "uuid", "name", "cluster_template_id", "keypair", "docker_volume_size", "labels",
    "master_flavor_id", "flavor_id", "create_timeout", "discovery_url", "fixed_network",
    "fixed_subnet", "floating_ip_enabled", "master_lb_enabled", "status", "status_reason",
    "health_status", "health_status_reason", "coe_version", "container_version",
    "project_id", "user_id", "node_count", "master_count", "merge_labels",
)


class ClusterPost(wtypes.Base):
    uuid = types.uuid
    name = types.string(1, 242, types.NAME_PATTERN)
    cluster_template_id = wtypes.wsattr(wtypes.text, mandatory=True)
    keypair = types.string(1, 255)
    node_count = wtypes.IntegerType(minimum=0)
    master_count = wtypes.IntegerType(minimum=1)
    docker_volume_size = wtypes.IntegerType(minimum=1)
    labels = types.labels
    merge_labels = types.boolean
    master_flavor_id = types.string(1, 255)
    flavor_id = types.string(1, 255)
    create_timeout = wtypes.IntegerType(minimum=0)
    discovery_url = wtypes.text
    fixed_network = types.string(1, 255)
    fixed_subnet = types.string(1, 255)
    floating_ip_enabled = types.boolean
    master_lb_enabled = types.boolean
    status = types.Enum(str, *states.ALL_STATUSES)
    status_reason = wtypes.text
    health_status = types.Enum(str, *states.HEALTH_STATUSES)
    health_status_reason = wtypes.DictType(wtypes.text, wtypes.text)
    coe_version = types.readonly()
    container_version = types.readonly()
    stack_id = types.readonly()
    cluster_id = types.readonly()
    api_address = types.readonly()
    master_addresses = types.readonly()
    node_addresses = types.readonly()
    project_id = types.readonly()
    user_id = types.readonly()
    labels_overridden = types.readonly()
    labels_added = types.readonly()
    labels_skipped = types.readonly()
    faults = types.readonly()
    created_at = types.readonly()
    updated_at = types.readonly()
    links = types.readonly()


class ResizeRequest(wtypes.Base):
    node_count = wtypes.wsattr(wtypes.IntegerType(minimum=0), mandatory=True)
    nodes_to_remove = wtypes.ArrayType(wtypes.text)
    nodegroup = types.string(1, 255)


class UpgradeRequest(wtypes.Base):
    cluster_template = types.string(1, 255)
    max_batch_size = wtypes.IntegerType(minimum=1)
    nodegroup = types.string(1, 255)


def counts(nodegroups: list[Any]) -> dict[str, Any]:
    """Worker and master totals and addresses, summed over the cluster's node groups."""
    node_count = master_count = 0
    node_addresses: list[str] = []
    master_addresses: list[str] = []
    for ng in nodegroups:
        if ng.role == "master":
            master_count += ng.node_count or 0
            master_addresses += ng.node_addresses or []
        else:
            node_count += ng.node_count or 0
            node_addresses += ng.node_addresses or []
    return {"node_count": node_count, "master_count": master_count,
            "node_addresses": node_addresses, "master_addresses": master_addresses}


def _id_field(version: microversion.Version) -> str:
    return "cluster_id" if version >= microversion.CLUSTER_ID else "stack_id"


def summary(values: Mapping[str, Any], nodegroups: list[Any], base_url: str,
            version: microversion.Version) -> dict[str, Any]:
    """The list view of a cluster, from its column values (``as_dict()`` of a row)."""
    totals = counts(nodegroups)
    return {
        "uuid": values["uuid"], "name": values["name"],
        "cluster_template_id": values["cluster_template_id"], "keypair": values["keypair"],
        "docker_volume_size": values["docker_volume_size"],
        "labels": values["labels"] or {}, "node_count": totals["node_count"],
        "master_count": totals["master_count"], "status": values["status"],
        "health_status": values["health_status"],
        "master_flavor_id": values["master_flavor_id"], "flavor_id": values["flavor_id"],
        "create_timeout": values["create_timeout"], _id_field(version): values["stack_id"],
        "merge_labels": False,
        "links": types.links(base_url, "clusters", values["uuid"]),
    }


def detail(values: Mapping[str, Any], nodegroups: list[Any], template_labels: dict | None,
           base_url: str, version: microversion.Version, show: bool = False) -> dict[str, Any]:
    """The detail (and show) view: the summary plus addresses, reasons, label diff."""
    body = summary(values, nodegroups, base_url, version)
    totals = counts(nodegroups)
    labels = values["labels"] or {}
    body.update({
        "discovery_url": values["discovery_url"], "fixed_network": values["fixed_network"],
        "fixed_subnet": values["fixed_subnet"],
        "floating_ip_enabled": values["floating_ip_enabled"],
        "master_lb_enabled": values["master_lb_enabled"],
        "status_reason": values["status_reason"],
        "health_status_reason": values["health_status_reason"] or {},
        "api_address": values["api_address"], "master_addresses": totals["master_addresses"],
        "node_addresses": totals["node_addresses"], "coe_version": values["coe_version"],
        "container_version": values["container_version"], "project_id": values["project_id"],
        "user_id": values["user_id"], "created_at": types.isotime(values["created_at"]),
        "updated_at": types.isotime(values["updated_at"]),
        **types.label_diff(labels, template_labels or {}),
    })
    if show and values["status"] in states.STATUS_FAILED:
        body["faults"] = {ng.name: ng.status_reason for ng in nodegroups
                          if ng.status and ng.status.endswith("FAILED")}
    return body


def patch_document(row: Any, nodegroups: list[Any]) -> dict[str, Any]:
    doc = {field: getattr(row, field, None) for field in PATCH_FIELDS}
    doc["labels"] = row.labels or {}
    doc["health_status_reason"] = row.health_status_reason or {}
    worker = default_worker(nodegroups)
    doc["node_count"] = worker.node_count if worker is not None else 0
    doc["master_count"] = counts(nodegroups)["master_count"]
    doc["merge_labels"] = False
    return doc


def default_worker(nodegroups: list[Any]) -> Any:
    for ng in nodegroups:
        if ng.is_default and ng.role != "master":
            return ng
    return None
