"""The API's checks against Glance, Nova, Neutron and Keystone, over HTTP to a stand-in of
those services on 127.0.0.1: what is found, what is refused, and that a check which is off,
or whose endpoint nobody knows, sends nothing and passes."""

from __future__ import annotations

import logging

import pytest
from oslo_config import cfg

from magnum_api.validation.openstack import Services
from magnum_common import exception
from magnum_common.context import RequestContext
from tests.functional.api.support import IMAGE_ID, NOOS_IMAGE_ID, StubCloud

CTX = RequestContext(user_id="u1", project_id="p1", auth_token="token")


@pytest.fixture
def cloud():
    stub = StubCloud()
    for name, value in stub.overrides().items():
        cfg.CONF.set_override(name, value, "api")
    yield stub
    stub.stop()


def test_images_are_found_by_id_or_unique_name_and_refused_otherwise(cloud):
    cloud.images.append({"id": "second", "name": "plain"})
    services = Services(CTX)

    assert services.image(IMAGE_ID)["name"] == "fedora-coreos-40"
    assert services.os_distro("fedora-coreos-40") == ("fedora-coreos", None)
    with pytest.raises(exception.Conflict, match="Multiple images exist with same name plain"):
        services.image("plain")
    with pytest.raises(exception.ImageNotFound):
        services.image("no-such-image")
    with pytest.raises(exception.OSDistroFieldNotFound):
        services.os_distro(NOOS_IMAGE_ID)


def test_flavors_keypairs_networks_and_projects_are_looked_up(cloud):
    services = Services(CTX)

    assert services.flavor("m1.medium")["id"] == "2"
    with pytest.raises(exception.FlavorZeroRootVolumeNotSupported):
        services.check_root_disk("m1.nodisk", 0)
    services.check_root_disk("m1.nodisk", 20)  # a boot volume makes up for the disk
    services.keypair("kp")
    with pytest.raises(exception.KeyPairNotFound):
        services.keypair("other")
    services.external_network("public")
    with pytest.raises(exception.ExternalNetworkNotFound):
        services.external_network("private")
    cloud.projects.add("p2")
    services.project("p2")
    with pytest.raises(exception.ProjectNotFound):
        services.project("p3")


def test_a_check_that_is_off_sends_nothing_and_passes(cloud):
    for name in ("validate_images", "validate_flavors", "validate_keypairs",
                 "validate_networks", "validate_projects"):
        cfg.CONF.set_override(name, False, "api")
    services = Services(CTX)

    assert services.image("no-such-image") is None
    assert services.flavor("no-such-flavor") is None
    services.keypair("other")
    services.external_network("private")
    services.project("p3")
    assert cloud.requests == []


def test_a_service_without_a_known_endpoint_is_not_checked_and_that_is_logged(caplog):
    services = Services(CTX)  # no overrides, no catalog in the token

    with caplog.at_level(logging.WARNING, logger="magnum_api.validation.openstack"):
        assert services.image("anything") is None
        services.keypair("anything")
        services.fixed_network("anything")
    assert [r.getMessage() for r in caplog.records] == [
        f"No endpoint known for the {kind} service: its check is skipped"
        for kind in ("image", "compute", "network")]
