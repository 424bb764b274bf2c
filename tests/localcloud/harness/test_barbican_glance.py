"""(c) Barbican certificate containers and (f) Glance images with os_distro."""

from __future__ import annotations

import uuid

import pytest

IMAGES = {
    "fedora-coreos-40": "fedora-coreos",
    "fedora-coreos-41": "fedora-coreos",
    "ubuntu-24.04": "ubuntu",
    "fedora-atomic-38": "fedora-atomic",
}

CERT = "-----BEGIN CERTIFICATE-----\nMIIBlocalcloudtest\n-----END CERTIFICATE-----"
KEY = "-----BEGIN PRIVATE KEY-----\nMIIElocalcloudtest\n-----END PRIVATE KEY-----"


def test_barbican_certificate_container_store_read_delete(demo_session):
    from barbicanclient import client as barbican_client
    from barbicanclient import exceptions

    barbican = barbican_client.Client(session=demo_session, region_name="RegionOne")
    name = "lc-test-%s" % uuid.uuid4().hex[:8]
    cert = barbican.secrets.create(name=name + "-cert", payload=CERT,
                                   payload_content_type="text/plain")
    key = barbican.secrets.create(name=name + "-key", payload=KEY,
                                  payload_content_type="text/plain")
    container = barbican.containers.create_certificate(name=name, certificate=cert,
                                                       private_key=key)
    ref = container.store()
    assert ref.startswith("http://127.0.0.1:9311/v1/containers/")

    got = barbican.containers.get(ref)
    assert got.name == name
    assert got.certificate.payload == CERT
    assert got.private_key.payload == KEY

    secret_refs = [got.certificate.secret_ref, got.private_key.secret_ref]
    got.delete()
    for sref in secret_refs:
        barbican.secrets.get(sref).delete()
    with pytest.raises(exceptions.HTTPClientError) as err:
        barbican.containers.get(ref).name  # noqa: B018  (lazy load raises)
    assert err.value.status_code == 404
    with pytest.raises(exceptions.HTTPClientError):
        barbican.secrets.get(secret_refs[0]).payload  # noqa: B018


def test_glance_images_have_os_distro(demo_session):
    from glanceclient import Client as GlanceClient

    glance = GlanceClient("2", session=demo_session, region_name="RegionOne")
    images = {i["name"]: i for i in glance.images.list()}
    for name, distro in IMAGES.items():
        assert name in images, sorted(images)
        img = images[name]
        assert img["os_distro"] == distro
        assert img["status"] == "active"
        assert img["visibility"] == "public"
        assert img["disk_format"] == "raw"
        assert img["size"] > 0
