"""Node group: the create body, patchable attributes and the views."""

from __future__ import annotations

from typing import Any

from magnum_api.schemas import base, fields, patch, types
from magnum_common import grammar

INTERNAL = patch.COMMON_INTERNAL + (
    "/name", "/cluster_id", "/project_id", "/docker_volume_size", "/labels", "/flavor_id",
    "/image_id", "/node_addresses", "/node_count", "/role", "/is_default", "/stack_id",
    "/status", "/status_reason", "/version")
LITERAL_PATHS = ("/node_labels", "/node_taints")
PATCHABLE = ("min_node_count", "max_node_count", "node_labels", "node_taints")
FULL_FIELDS = (
    "id", "uuid", "name", "cluster_id", "project_id", "docker_volume_size", "labels",
    "flavor_id", "image_id", "node_addresses", "node_count", "role", "min_node_count",
    "max_node_count", "is_default", "stack_id", "status", "status_reason", "version",
    "node_labels", "node_taints")
SUMMARY_FIELDS = ("uuid", "name", "flavor_id", "image_id", "node_count", "role", "is_default",
                  "status", "stack_id", "min_node_count", "max_node_count")
#: A Kubernetes label key: an optional DNS prefix (253) and a name (63).
LABEL_KEY_LENGTH = 317


class NodeGroupPost(base.Body):
    argname = "nodegroup"
    description = ("A node group. Numbers and booleans may also be sent as strings. "
                   "Read-only (refused): uuid, cluster_id, project_id, is_default, status, "
                   "status_reason, stack_id, version, node_addresses, labels_*, timestamps, "
                   "links.")

    uuid = types.readonly(types.uuid())
    name = types.string(mandatory=True)
    cluster_id = types.readonly()
    project_id = types.readonly()
    docker_volume_size = fields.Integer(1, types.MAX_VOLUME_SIZE, description="GB.")
    labels = types.labels(description="Default: the cluster's labels.")
    merge_labels = types.boolean(description="Merge labels onto the cluster's.")
    flavor_id = types.string(description="Default: the cluster's flavor_id.")
    image_id = types.string(description="Default: the template's image_id.")
    node_count = types.node_count(description="Default 1.")
    role = types.string(description="Default worker; master is refused.")
    min_node_count = types.node_count()
    max_node_count = types.node_count()
    is_default = types.readonly(types.boolean())
    node_labels = fields.Dict(fields.String(LABEL_KEY_LENGTH),
                              fields.String(255, min_length=0), 64,
                              description="Kubernetes labels of the nodes (1.14).")
    node_taints = fields.List(fields.Any_(description="{key, value, effect}"), 64,
                              description="Kubernetes taints of the nodes (1.14): objects "
                              "with key, optional value and effect (NoSchedule, "
                              "PreferNoSchedule or NoExecute).")
    id = types.readonly()
    node_addresses = types.readonly()
    stack_id = types.readonly()
    status = types.readonly()
    status_reason = types.readonly()
    version = types.readonly()
    labels_overridden = types.readonly()
    labels_added = types.readonly()
    labels_skipped = types.readonly()
    created_at = types.readonly()
    updated_at = types.readonly()
    links = types.readonly()


types.with_grammar(NodeGroupPost, grammar.NODEGROUP)

_STRING = fields.String(None, 0)
_INTEGER = fields.Integer(None, None, strings=False)
_TAINT = fields.Object({"key": _STRING, "value": _STRING, "effect": _STRING},
                       nullable=False)
_FULL = {
    "id": _INTEGER, "uuid": fields.Uuid(nullable=False), "name": _STRING,
    "cluster_id": _STRING, "project_id": _STRING, "docker_volume_size": _INTEGER,
    "labels": types.STORED_LABELS, "flavor_id": _STRING, "image_id": _STRING,
    "node_addresses": types.STRING_LIST, "node_count": _INTEGER, "role": _STRING,
    "min_node_count": _INTEGER, "max_node_count": _INTEGER,
    "is_default": fields.JsonBoolean(), "stack_id": _STRING, "status": _STRING,
    "status_reason": _STRING, "version": _STRING,
    "node_labels": fields.Dict(_STRING, _STRING, None),
    "node_taints": fields.List(_TAINT, None),
    "created_at": types.TIMESTAMP, "updated_at": types.TIMESTAMP,
    "merge_labels": fields.JsonBoolean(nullable=False),
    "labels_overridden": types.STORED_LABELS, "labels_added": types.STORED_LABELS,
    "labels_skipped": types.STORED_LABELS, "links": types.LINKS,
}
FULL = types.view(_FULL, description="A node group.")
#: The 202 of a create shows the group as assembled: what the conductor sets is absent.
ACCEPTED = types.view(_FULL, ("id", "docker_volume_size", "node_addresses", "is_default",
                              "stack_id", "status", "status_reason", "version", "created_at",
                              "updated_at"), "The node group as accepted.")
#: Upstream's list items: no ``links`` (python-magnumclient and gophercloud read none).
SUMMARY = types.view({k: _FULL[k] for k in (*SUMMARY_FIELDS, "merge_labels")},
                     description="A node group (list view).")


def _links(base_url: str, cluster_uuid: str, uuid: str) -> list[dict[str, str]]:
    return types.links(base_url, f"clusters/{cluster_uuid}/nodegroups", uuid)


def summary(row: Any) -> dict[str, Any]:
    body = {field: getattr(row, field) for field in SUMMARY_FIELDS}
    body["merge_labels"] = False
    return body


def full(values: dict[str, Any], cluster_labels: dict, base_url: str) -> dict[str, Any]:
    """A node group as stored (or as just assembled: absent fields are omitted)."""
    body = {k: values[k] for k in FULL_FIELDS if k in values}
    for key in ("created_at", "updated_at"):
        if key in values:
            body[key] = types.isotime(values[key])
    labels = values.get("labels") or {}
    body["labels"] = labels
    body["merge_labels"] = False
    body.update(types.label_diff(labels, cluster_labels or {}))
    body["links"] = _links(base_url, values["cluster_id"], values["uuid"])
    return body


def row_values(row: Any) -> dict[str, Any]:
    values = {k: getattr(row, k) for k in FULL_FIELDS}
    values["created_at"], values["updated_at"] = row.created_at, row.updated_at
    return values
