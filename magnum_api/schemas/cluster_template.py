"""Cluster template: the create body, the patchable attributes and the response view."""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any

from magnum_api.schemas import base, fields, patch, types
from magnum_common import grammar, states

FIELDS = (
    "uuid", "name", "coe", "image_id", "flavor_id", "master_flavor_id", "keypair_id",
    "dns_nameserver", "external_network_id", "fixed_network", "fixed_subnet",
    "network_driver", "volume_driver", "apiserver_port", "docker_volume_size",
    "docker_storage_driver", "cluster_distro", "http_proxy", "https_proxy", "no_proxy",
    "insecure_registry", "registry_enabled", "tls_disabled", "public", "hidden",
    "server_type", "master_lb_enabled", "floating_ip_enabled", "labels", "tags", "driver",
    "project_id", "user_id",
)
BOOLEAN_DEFAULTS = {"registry_enabled": False, "tls_disabled": False, "public": False,
                    "hidden": False, "master_lb_enabled": False, "floating_ip_enabled": True}
INTERNAL = patch.COMMON_INTERNAL
NON_REMOVABLE = ("/coe", "/image_id", "/network_driver", "/external_network_id",
                 "/tls_disabled", "/public", "/server_type", "/registry_enabled",
                 "/cluster_distro", "/hidden")
LITERAL_PATHS = ("/labels",)


class ClusterTemplatePost(base.Body):
    argname = "cluster_template"
    description = ("A cluster template. Numbers and booleans may also be sent as strings. "
                   "Read-only (refused): uuid, project_id, user_id, created_at, updated_at, "
                   "links.")

    uuid = types.readonly(types.uuid())
    name = types.string()
    coe = fields.Enum(states.COE_TYPES, mandatory=True)
    image_id = types.string(mandatory=True, description="Glance image name or id.")
    flavor_id = types.string()
    master_flavor_id = types.string()
    keypair_id = types.string()
    dns_nameserver = fields.DNSList(description="Comma-separated IPv4 addresses.")
    external_network_id = types.string()
    fixed_network = types.string()
    fixed_subnet = types.string()
    network_driver = types.string()
    volume_driver = types.string()
    apiserver_port = fields.Integer(1024, 65535)
    docker_volume_size = fields.Integer(1, types.MAX_VOLUME_SIZE, description="GB.")
    docker_storage_driver = types.string()
    cluster_distro = types.string(description="Overwritten with the image's os_distro.")
    http_proxy = types.string()
    https_proxy = types.string()
    no_proxy = types.string()
    insecure_registry = types.string()
    registry_enabled = types.boolean()
    tls_disabled = types.boolean()
    public = types.boolean()
    hidden = types.boolean()
    server_type = fields.Enum(states.SERVER_TYPES)
    master_lb_enabled = types.boolean()
    floating_ip_enabled = types.boolean()
    labels = types.labels()
    tags = types.string(min_length=0)
    driver = types.string()
    project_id = types.readonly()
    user_id = types.readonly()
    created_at = types.readonly()
    updated_at = types.readonly()
    links = types.readonly()


types.with_grammar(ClusterTemplatePost, grammar.TEMPLATE)

VIEW = types.view({
    **ClusterTemplatePost.response_fields(FIELDS), "uuid": fields.Uuid(nullable=False),
    "created_at": types.TIMESTAMP, "updated_at": types.TIMESTAMP, "links": types.LINKS,
}, description="A cluster template.")


def _complete(body: dict[str, Any], created: Any, updated: Any,
              base_url: str) -> dict[str, Any]:
    body["labels"] = body["labels"] or {}
    body["created_at"] = types.isotime(created)
    body["updated_at"] = types.isotime(updated)
    body["links"] = types.links(base_url, "clustertemplates", body["uuid"])
    return body


def view(values: Mapping[str, Any], base_url: str) -> dict[str, Any]:
    """The template as the API shows it, from its column values (``as_dict()`` of a row)."""
    return _complete({field: values[field] for field in FIELDS}, values["created_at"],
                     values["updated_at"], base_url)


def views(rows: Sequence[Any], base_url: str) -> list[dict[str, Any]]:
    """:func:`view` of every row of one result (row reads of the repositories), the
    columns picked by position (one C-level call per row, not a lookup per field)."""
    if not rows:
        return []
    names = rows[0]._fields
    pick = operator.itemgetter(*(names.index(field) for field in FIELDS))
    created, updated = names.index("created_at"), names.index("updated_at")
    return [_complete(dict(zip(FIELDS, pick(row), strict=True)), row[created], row[updated],
                      base_url) for row in rows]


def patch_document(row: Any) -> dict[str, Any]:
    """The resource as JSON-patch operations see it."""
    return {field: getattr(row, field) for field in FIELDS}
