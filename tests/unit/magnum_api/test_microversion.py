"""``OpenStack-API-Version`` negotiation: no header is 1.1, ``latest`` is 1.14, anything
outside 1.1 to 1.14 or not of the form ``<service> X.Y`` is refused (406 upstairs)."""

from __future__ import annotations

import pytest

from magnum_api import microversion
from magnum_api.microversion import MalformedVersion, UnsupportedVersion, Version, parse


@pytest.mark.parametrize("header, expected", [
    (None, Version(1, 1)),
    ("container-infra 1.10", Version(1, 10)),
    ("container-infrastructure-management 1.14", Version(1, 14)),
    ("container-infrastructure 1.1", Version(1, 1)),
    ("container-infra latest", Version(1, 14)),
    ("container-infra LATEST", Version(1, 14)),
])
def test_supported_versions_are_parsed(header, expected):
    assert parse(header) == expected


@pytest.mark.parametrize("header", [
    "", "1.10", "container-infra", "container-infra 1.10 extra", "compute 1.10",
    "container-infra 1", "container-infra 1.x", "container-infra v1.2",
])
def test_malformed_headers_are_refused(header):
    with pytest.raises(MalformedVersion):
        parse(header)


@pytest.mark.parametrize("header, version", [
    ("container-infra 1.0", Version(1, 0)), ("container-infra 1.15", Version(1, 15)),
    ("container-infra 2.1", Version(2, 1)),
])
def test_versions_outside_the_range_are_refused_naming_the_version(header, version):
    with pytest.raises(UnsupportedVersion) as raised:
        parse(header)
    assert raised.value.version == version and str(raised.value) == str(version)


def test_every_response_names_the_range_and_the_version_served():
    headers = dict(microversion.response_headers(Version(1, 9)))

    assert headers == {
        "OpenStack-API-Minimum-Version": "container-infrastructure-management 1.1",
        "OpenStack-API-Maximum-Version": "container-infrastructure-management 1.14",
        "OpenStack-API-Version": "container-infrastructure-management 1.9",
        "vary": "OpenStack-API-Version",
    }


def test_behaviour_changes_happen_in_version_order():
    steps = [microversion.ROLLBACK, microversion.RESIZE, microversion.UPGRADE,
             microversion.NODEGROUPS, microversion.ZERO_NODES, microversion.CREDENTIALS,
             microversion.CLUSTER_ID]
    assert steps == sorted(steps)
    assert all(microversion.MIN_VERSION < step <= microversion.MAX_VERSION for step in steps)
