"""Template rules: server type, network and volume drivers (supported, then allowed by
``[cluster_template]``), docker volume size, and the resources looked up in the cloud."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from magnum_api.validation import template as rules
from magnum_api.validation.openstack import Services
from magnum_common import exception
from magnum_common.context import RequestContext
from tests.functional.api.support import IMAGE_ID, StubCloud

CONF = cfg.CONF


def test_server_types_and_volume_drivers_are_the_supported_ones():
    for server_type in (None, "vm", "bm"):
        rules.check_server_type(server_type)
    with pytest.raises(exception.InvalidParameterValue, match="Server type container"):
        rules.check_server_type("container")
    rules.check_volume_driver("kubernetes", None)
    with pytest.raises(exception.InvalidParameterValue, match="cluster_user_trust = false"):
        rules.check_volume_driver("kubernetes", "cinder")  # the default: nodes hold no trust
    CONF.set_override("cluster_user_trust", True, "trust")
    rules.check_volume_driver("kubernetes", "cinder")
    with pytest.raises(exception.InvalidParameterValue, match="expecting a cinder/unspecified"):
        rules.check_volume_driver("kubernetes", "rexray")


def test_a_network_driver_must_be_supported_and_allowed():
    rules.check_network_driver("kubernetes", "calico")
    with pytest.raises(exception.InvalidParameterValue, match="not supported"):
        rules.check_network_driver("kubernetes", "weave")
    with pytest.raises(exception.InvalidParameterValue, match="not allowed"):
        rules.check_network_driver("kubernetes", "cilium")  # supported, not allowed by default
    cfg.CONF.set_override("kubernetes_allowed_network_drivers", ["all"], "cluster_template")
    rules.check_network_driver("kubernetes", "cilium")


def test_the_default_network_driver_is_configured_for_kubernetes_only():
    cfg.CONF.set_override("kubernetes_default_network_driver", "calico", "cluster_template")
    assert rules.default_network_driver("kubernetes") == "calico"
    assert rules.default_network_driver("swarm") is None


def test_devicemapper_needs_three_gigabytes():
    rules.check_docker_volume("devicemapper", 3)
    rules.check_docker_volume("overlay2", 1)
    rules.check_docker_volume("devicemapper", None)
    with pytest.raises(exception.InvalidParameterValue, match="minimum value 3GB"):
        rules.check_docker_volume("devicemapper", 2)


def test_resources_are_looked_up_and_a_flavor_without_disk_needs_a_boot_volume():
    cloud = StubCloud()
    try:
        for name, value in cloud.overrides().items():
            cfg.CONF.set_override(name, value, "api")
        services = Services(RequestContext(user_id="u", project_id="p"))
        values = {"image_id": IMAGE_ID, "flavor_id": "m1.nodisk", "external_network_id": "public"}

        rules.check_resources(services, values, {"boot_volume_size": "10"})
        with pytest.raises(exception.FlavorZeroRootVolumeNotSupported):
            rules.check_resources(services, values, None)
        with pytest.raises(exception.ExternalNetworkNotFound):
            rules.check_resources(services, {"external_network_id": "private"}, None)
    finally:
        cloud.stop()
