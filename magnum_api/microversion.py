"""Microversion negotiation with the ``OpenStack-API-Version`` header (1.1 to 1.14)."""

from __future__ import annotations

import re
from typing import NamedTuple

HEADER = "OpenStack-API-Version"
MIN_HEADER = "OpenStack-API-Minimum-Version"
MAX_HEADER = "OpenStack-API-Maximum-Version"
#: Every spelling of the service type a client may send.
SERVICE_TYPES = frozenset({
    "container-infrastructure-management", "container-infrastructure", "container-infra",
})
#: The spelling used in response headers (upstream HEAD's choice).
RESPONSE_SERVICE = "container-infrastructure-management"
_VERSION_RE = re.compile(r"^(\d+)\.(\d+)$")
ENVIRON_KEY = "magnum.api.version"


class Version(NamedTuple):
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


MIN_VERSION = Version(1, 1)
MAX_VERSION = Version(1, 14)

# Versions at which behaviour changes (see the API reference, section 3.5).
ROLLBACK = Version(1, 3)
RESIZE = Version(1, 7)
UPGRADE = Version(1, 8)
NODEGROUPS = Version(1, 9)
ZERO_NODES = Version(1, 10)
CREDENTIALS = Version(1, 12)
CLUSTER_ID = Version(1, 13)


class MalformedVersion(Exception):
    """The header is not ``<service> <X.Y|latest>``: a plain 406."""


class UnsupportedVersion(Exception):
    """A well-formed version outside the supported range: the 406 of section 4.2."""

    def __init__(self, version: Version) -> None:
        super().__init__(str(version))
        self.version = version


def parse(header: str | None) -> Version:
    """The requested version; no header means the minimum (1.1), as upstream."""
    if header is None:
        return MIN_VERSION
    tokens = header.split()
    if len(tokens) != 2:
        raise MalformedVersion(header)
    service, version = tokens
    if version.lower() == "latest":
        return MAX_VERSION
    if service not in SERVICE_TYPES:
        raise MalformedVersion(header)
    match = _VERSION_RE.match(version)
    if match is None:
        raise MalformedVersion(header)
    requested = Version(int(match.group(1)), int(match.group(2)))
    if requested.major != 1 or not MIN_VERSION <= requested <= MAX_VERSION:
        raise UnsupportedVersion(requested)
    return requested


def response_headers(version: Version) -> list[tuple[str, str]]:
    return [
        (MIN_HEADER, f"{RESPONSE_SERVICE} {MIN_VERSION}"),
        (MAX_HEADER, f"{RESPONSE_SERVICE} {MAX_VERSION}"),
        (HEADER, f"{RESPONSE_SERVICE} {version}"),
        ("vary", HEADER),
    ]
