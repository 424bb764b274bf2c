"""Cluster template: the create body, the patchable attributes and the response view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wsme import types as wtypes

from magnum_api.schemas import patch, types
from magnum_common import states

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


class ClusterTemplatePost(wtypes.Base):
    uuid = types.uuid
    name = types.string(1, 255)
    coe = wtypes.wsattr(types.Enum(str, *states.COE_TYPES), mandatory=True)
    image_id = wtypes.wsattr(types.string(1, 255), mandatory=True)
    flavor_id = types.string(1, 255)
    master_flavor_id = types.string(1, 255)
    keypair_id = types.string(1, 255)
    dns_nameserver = types.dns_list
    external_network_id = types.string(1, 255)
    fixed_network = types.string(1, 255)
    fixed_subnet = types.string(1, 255)
    network_driver = types.string(1, 255)
    volume_driver = types.string(1, 255)
    apiserver_port = wtypes.IntegerType(minimum=1024, maximum=65535)
    docker_volume_size = wtypes.IntegerType(minimum=1)
    docker_storage_driver = types.string(1, 255)
    cluster_distro = types.string(1, 255)
    http_proxy = types.string(1, 255)
    https_proxy = types.string(1, 255)
    no_proxy = types.string(1, 255)
    insecure_registry = types.string(1, 255)
    registry_enabled = types.boolean
    tls_disabled = types.boolean
    public = types.boolean
    hidden = types.boolean
    server_type = types.Enum(str, *states.SERVER_TYPES)
    master_lb_enabled = types.boolean
    floating_ip_enabled = types.boolean
    labels = types.labels
    tags = types.string(0, 255)
    driver = types.string(1, 255)
    project_id = types.readonly()
    user_id = types.readonly()
    created_at = types.readonly()
    updated_at = types.readonly()
    links = types.readonly()


def view(values: Mapping[str, Any], base_url: str) -> dict[str, Any]:
    """The template as the API shows it, from its column values (``as_dict()`` of a row)."""
    body = {field: values[field] for field in FIELDS}
    body["labels"] = values["labels"] or {}
    body["created_at"] = types.isotime(values["created_at"])
    body["updated_at"] = types.isotime(values["updated_at"])
    body["links"] = types.links(base_url, "clustertemplates", values["uuid"])
    return body


def patch_document(row: Any) -> dict[str, Any]:
    """The resource as JSON-patch operations see it."""
    return {field: getattr(row, field) for field in FIELDS}
