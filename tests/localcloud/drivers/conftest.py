"""Fixtures of the driver tests against real Heat on the local cloud (localcloud/).

The shared ``localcloud`` fixture starts the cloud when it is down, as for every suite
that needs it. The ClusterResources here is the process boundary: a keystoneauth session
of the cloud's ``demo`` user and the python-heatclient built on it.
"""

from __future__ import annotations

import time
import types

import pytest

from magnum_common.drivers.base import TrusteeCredentials

STACK_TIMEOUT = 600


@pytest.fixture(autouse=True)
def _nodes_hold_the_trust():
    """As the local cloud configures Magnum: the nodes get the trust (LocalResources hands
    out a trustee)."""
    from magnum_common.config import CONF

    CONF.set_override("cluster_user_trust", True, "trust")


@pytest.fixture(scope="session")
def cloud(localcloud) -> dict:
    """The demo user's clouds.yaml entry of the local cloud (started by the shared
    ``localcloud`` fixture of tests/localcloud/conftest.py when it is not up)."""
    return localcloud["clouds"]["localcloud-demo"]


class LocalResources:
    """ClusterResources over the demo user's session: real Heat, the real catalog."""

    def __init__(self, cloud: dict) -> None:
        from heatclient import client as heat_client
        from keystoneauth1 import loading, session

        auth = loading.get_plugin_loader("password").load_from_options(**cloud["auth"])
        self._session = session.Session(auth=auth)
        # The tests' own Heat calls (waiting, inspecting): a connection dropped by a
        # restarting heat-api is retried here, as the driver retries its own.
        self._heat = heat_client.Client("1", session=self._session, connect_retries=3,
                                        region_name=cloud.get("region_name", "RegionOne"))
        self.context = types.SimpleNamespace(user_name=cloud["auth"]["username"])

    def session(self):
        return self._session

    def heat(self):
        """A Heat client for the test's own checks (the driver makes its own)."""
        return self._heat

    def url_for(self, service_type: str, interface: str = "public") -> str | None:
        from keystoneauth1 import exceptions

        try:
            return self._session.get_endpoint(service_type=service_type, interface=interface)
        except exceptions.EndpointNotFound:
            return None

    def trustee(self) -> TrusteeCredentials:
        return TrusteeCredentials(user_id="trustee", username="trustee", password="pw",
                                  domain_id="magnum", trust_id="trust")

    def ca_private_key(self) -> str | None:
        return None

    def keypair_public_key(self, name: str | None) -> str | None:
        return None

    def client_certificates(self) -> tuple[str, str, str] | None:
        return None


@pytest.fixture(scope="session")
def resources(cloud) -> LocalResources:
    return LocalResources(cloud)


def wait_stack(heat, stack_id: str, timeout: int = STACK_TIMEOUT):
    """Poll until the stack leaves *_IN_PROGRESS; return it.

    The shared local cloud's API processes are sometimes restarted by other suites: a
    refused connection while polling is retried until the deadline.
    """
    from keystoneauth1 import exceptions

    deadline = time.monotonic() + timeout
    while True:
        try:
            stack = heat.stacks.get(stack_id)
        except exceptions.ConnectFailure:
            if time.monotonic() > deadline:
                raise
            time.sleep(5)
            continue
        if not stack.stack_status.endswith("_IN_PROGRESS"):
            return stack
        if time.monotonic() > deadline:
            pytest.fail(f"stack {stack_id} still {stack.stack_status} after {timeout}s")
        time.sleep(2)


@pytest.fixture
def cleanup(resources):
    """Stack ids a test created, deleted at teardown whatever happened."""
    created: list[str] = []
    yield created
    for stack_id in reversed(created):
        try:
            resources.heat().stacks.delete(stack_id)
        except Exception:
            pass


@pytest.fixture(scope="session")
def heat_helpers():
    """Helpers for the modules (importlib import mode: they cannot import conftest)."""
    return types.SimpleNamespace(wait_stack=wait_stack)
