"""Node group: the create body, patchable attributes and the views."""

from __future__ import annotations

from typing import Any

from wsme import types as wtypes

from magnum_api.schemas import patch, types

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


class NodeGroupPost(wtypes.Base):
    uuid = types.uuid
    name = wtypes.wsattr(types.string(1, 255), mandatory=True)
    cluster_id = wtypes.text
    project_id = types.readonly()
    docker_volume_size = wtypes.IntegerType(minimum=1)
    labels = types.labels
    merge_labels = types.boolean
    flavor_id = types.string(1, 255)
    image_id = types.string(1, 255)
    node_count = wtypes.IntegerType(minimum=0)
    role = types.string(1, 255)
    min_node_count = wtypes.IntegerType(minimum=0)
    max_node_count = wtypes.IntegerType(minimum=0)
    is_default = types.boolean
    node_labels = types.any_json
    node_taints = types.any_json
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


def _links(base_url: str, cluster_uuid: str, uuid: str) -> list[dict[str, str]]:
    return types.links(base_url, f"clusters/{cluster_uuid}/nodegroups", uuid)


def summary(row: Any, base_url: str) -> dict[str, Any]:
    body = {field: getattr(row, field) for field in SUMMARY_FIELDS}
    body["merge_labels"] = False
    body["links"] = _links(base_url, row.cluster_id, row.uuid)
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
