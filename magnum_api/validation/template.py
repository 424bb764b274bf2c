"""Cluster template rules: drivers for the COE, storage, resources."""

from __future__ import annotations

import logging
from typing import Any

from magnum_api.conf import CONF
from magnum_api.validation.openstack import Services
from magnum_common import exception
from magnum_common.drivers import settings

LOG = logging.getLogger(__name__)


SUPPORTED_NETWORK_DRIVERS = {"kubernetes": ("flannel", "calico", "cilium")}
SUPPORTED_VOLUME_DRIVERS = {"kubernetes": ("cinder",)}
SUPPORTED_SERVER_TYPES = ("vm", "bm")


def default_network_driver(coe: str) -> str | None:
    return CONF.cluster_template.kubernetes_default_network_driver if coe == "kubernetes" \
        else None


def check_server_type(server_type: str | None) -> None:
    if server_type is not None and server_type not in SUPPORTED_SERVER_TYPES:
        raise exception.InvalidParameterValue(
            err=f"Server type {server_type} is not supported, expecting a vm/bm/unspecified "
            "server type.")


def check_network_driver(coe: str, driver: str | None) -> None:
    if driver is None:
        return
    supported = SUPPORTED_NETWORK_DRIVERS.get(coe, ())
    if driver not in supported:
        raise exception.InvalidParameterValue(
            err=f"Network driver type {driver} is not supported, expecting a "
            f"{'/'.join(supported)}/unspecified network driver.")
    allowed = CONF.cluster_template.kubernetes_allowed_network_drivers
    if "all" not in allowed and driver not in allowed:
        raise exception.InvalidParameterValue(
            err=f"Network driver type {driver} is not allowed, expecting a "
            f"{'/'.join(allowed)}/unspecified network driver. ")


def check_volume_driver(coe: str, driver: str | None) -> None:
    if driver is None:
        return
    supported = SUPPORTED_VOLUME_DRIVERS.get(coe, ())
    if driver not in supported:
        raise exception.InvalidParameterValue(
            err=f"Volume driver type {driver} is not supported, expecting a "
            f"{'/'.join(supported)}/unspecified volume driver.")
    check_trusted_volume_driver(driver)


def check_trusted_volume_driver(driver: str | None) -> None:
    """Cinder volumes are attached by the cloud provider, which acts with the trust."""
    if driver == "cinder" and not CONF.trust.cluster_user_trust:
        raise exception.InvalidParameterValue(
            err="volume_driver cinder needs the cluster's nodes to hold the trust, which "
            "this deployment does not give them ([trust] cluster_user_trust = false).")


def check_docker_volume(storage_driver: str | None, size: int | None) -> None:
    if storage_driver == "devicemapper" and size is not None and size < 3:
        raise exception.InvalidParameterValue(
            err=f"docker volume size {size} GB is not valid, expecting minimum value 3GB for "
            "devicemapper storage driver.")


def check_resources(services: Services, values: dict[str, Any], labels: dict | None,
                    root_disk: bool = True) -> None:
    """Image, flavors, networks and subnet of a template (or a cluster's effective ones)."""
    if values.get("image_id"):
        services.image(values["image_id"])
    for key in ("flavor_id", "master_flavor_id"):
        if values.get(key):
            services.flavor(values[key])
    if values.get("external_network_id"):
        services.external_network(values["external_network_id"])
    if values.get("fixed_network"):
        services.fixed_network(values["fixed_network"])
    if values.get("fixed_subnet"):
        services.fixed_subnet(values["fixed_subnet"])
    if root_disk:
        size = settings.boot_volume_size(labels)
        for key in ("flavor_id", "master_flavor_id"):
            if values.get(key):
                services.check_root_disk(values[key], size)
