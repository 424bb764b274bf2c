"""Cluster: create / resize / upgrade bodies, patchable attributes and the views."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from magnum_api import microversion
from magnum_api.schemas import base, fields, patch, types
from magnum_common import exception, grammar, states
from magnum_common.drivers import settings

INTERNAL = patch.COMMON_INTERNAL + (
    "/api_address", "/node_addresses", "/master_addresses", "/stack_id", "/cluster_id",
    "/ca_cert_ref", "/magnum_cert_ref", "/etcd_ca_cert_ref", "/front_proxy_ca_cert_ref",
    # what only the conductor sets: refused even when the patch would leave it as it is
    "/status", "/status_reason", "/coe_version", "/container_version")
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


class ClusterPost(base.Body):
    argname = "cluster"
    description = ("A cluster. Numbers and booleans may also be sent as strings. Read-only "
                   "(refused): uuid, status, status_reason, health_status, "
                   "health_status_reason, stack_id, cluster_id, api_address, addresses, "
                   "versions, project_id, user_id, labels_*, faults, timestamps, links.")

    uuid = types.readonly(types.uuid())
    # gophercloud always sends ``name`` (``""`` when the user set none): a generated name
    name = types.name(blank_is_absent=True)
    cluster_template_id = types.string(mandatory=True,
                                       description="Cluster template UUID or name.")
    keypair = types.string(description="Default: the template's keypair_id.")
    node_count = types.node_count(
        description="Workers of the default node group; 0 only from microversion 1.10.")
    master_count = types.node_count(1, description="Odd; more than 1 needs master_lb.")
    docker_volume_size = fields.Integer(1, types.MAX_VOLUME_SIZE, description="GB.")
    labels = types.labels()
    merge_labels = types.boolean(description="Merge labels onto the template's.")
    master_flavor_id = types.string()
    flavor_id = types.string()
    create_timeout = fields.Integer(0, types.MAX_CREATE_TIMEOUT, description="Minutes.")
    discovery_url = types.string()
    fixed_network = types.string()
    fixed_subnet = types.string()
    floating_ip_enabled = types.boolean()
    master_lb_enabled = types.boolean()
    status = types.readonly()
    status_reason = types.readonly()
    health_status = types.readonly()
    health_status_reason = types.readonly()
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


types.with_grammar(ClusterPost, grammar.CLUSTER)


class ClusterPatch(base.Body):
    """What a cluster PATCH may change, checked after the patch is applied."""

    argname = "cluster"
    node_count = ClusterPost.attributes["node_count"]
    health_status = fields.Enum(states.HEALTH_STATUSES)
    health_status_reason = types.string_map()


class ResizeRequest(base.Body):
    argname = "cluster_resize_req"
    description = "Resize a node group (default: the default worker group)."
    node_count = types.node_count(mandatory=True)
    nodes_to_remove = fields.List(types.string(nullable=False), types.max_node_count,
                                  description="Server ids to remove first.")
    nodegroup = types.string(description="Node group UUID or name.")


class UpgradeRequest(base.Body):
    argname = "cluster_upgrade_req"
    description = "Upgrade a node group (default: the default ones) to a cluster template."
    cluster_template = types.string(mandatory=True,
                                    description="Cluster template UUID or name.")
    max_batch_size = fields.Integer(1, types.max_node_count)
    nodegroup = types.string(description="Node group UUID or name.")


_STRING = fields.String(None, 0)
_SUMMARY = {
    "uuid": fields.Uuid(nullable=False), "name": _STRING, "cluster_template_id": _STRING,
    "keypair": _STRING, "docker_volume_size": fields.Integer(None, None, strings=False),
    "labels": types.STORED_LABELS,
    "node_count": fields.Integer(None, None, strings=False, nullable=False),
    "master_count": fields.Integer(None, None, strings=False, nullable=False),
    "status": _STRING, "health_status": _STRING, "master_flavor_id": _STRING,
    "flavor_id": _STRING, "create_timeout": fields.Integer(None, None, strings=False),
    "stack_id": fields.String(None, 0, max_version="1.12",
                              description="The Heat stack (before microversion 1.13)."),
    "cluster_id": fields.String(None, 0, min_version="1.13",
                                description="The Heat stack (microversion 1.13 on)."),
    "merge_labels": fields.JsonBoolean(nullable=False), "links": types.LINKS,
}
_VERSIONED = ("stack_id", "cluster_id")
_DETAIL = {
    **_SUMMARY, "discovery_url": _STRING, "fixed_network": _STRING, "fixed_subnet": _STRING,
    "floating_ip_enabled": fields.JsonBoolean(), "master_lb_enabled": fields.JsonBoolean(),
    "status_reason": _STRING,
    "health_status_reason": fields.Dict(
        _STRING, fields.Any_(), None,
        description="Null until a health monitor or a PATCH sets it (as upstream)."),
    "api_address": _STRING, "master_addresses": types.STRING_LIST,
    "node_addresses": types.STRING_LIST, "coe_version": _STRING,
    "container_version": _STRING, "project_id": _STRING, "user_id": _STRING,
    "created_at": types.TIMESTAMP, "updated_at": types.TIMESTAMP,
    "labels_overridden": types.STORED_LABELS, "labels_added": types.STORED_LABELS,
    "labels_skipped": types.STORED_LABELS,
}
SUMMARY = types.view(_SUMMARY, _VERSIONED, "A cluster (list view).")
DETAIL = types.view(_DETAIL, _VERSIONED, "A cluster.")
SHOW = types.view({**_DETAIL, "faults": fields.Dict(
    _STRING, fields.String(None, 0), None, nullable=False,
    description="Failed node groups' reasons (failed clusters only).")},
    (*_VERSIONED, "faults"), "A cluster.")


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
        "health_status_reason": values["health_status_reason"],
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
    try:
        doc["node_count"] = settings.default_worker(nodegroups).node_count
    except exception.NodeGroupNotFound:
        doc["node_count"] = 0
    doc["master_count"] = counts(nodegroups)["master_count"]
    doc["merge_labels"] = False
    return doc

