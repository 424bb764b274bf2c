"""Fixtures for the tests of the local cloud itself (devstack/local).

Most tests here need the real services: the session fixture ``localcloud`` runs
``devstack/local/localcloud up`` when ``localcloud status`` says the cloud is not up (``up`` is
idempotent and serialised by a lock, so parallel xdist workers are fine). The tests that use
it carry the ``localcloud`` marker; deselect them with ``-m "not localcloud"`` (the node
simulator's logic tests then still run, on canned Heat answers).
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LOCALCLOUD = REPO / "devstack" / "local" / "localcloud"
TEMPLATES = Path(__file__).resolve().parent / "templates"
UP_TIMEOUT = int(os.environ.get("LOCALCLOUD_UP_TIMEOUT", "1500"))
STACK_TIMEOUT = int(os.environ.get("LOCALCLOUD_STACK_TIMEOUT", "300"))


TIERS = ("lite", "full")


def pytest_configure(config):
    config.addinivalue_line("markers", "localcloud: needs the local cloud (devstack/local)")
    for tier in TIERS:
        config.addinivalue_line("markers", f"{tier}_tier: runs only on the {tier} tier")


def running_tier() -> str:
    """The tier this run tests: ``MAGNUM_LOCALCLOUD_TIER`` when set (the ``localcloud``
    fixture then brings that tier up), else the one the state directory says is up, else
    ``lite`` (what ``localcloud up`` brings)."""
    if os.environ.get("MAGNUM_LOCALCLOUD_TIER"):
        return os.environ["MAGNUM_LOCALCLOUD_TIER"]
    state = Path(os.environ.get("MAGNUM_LOCALCLOUD_DIR", REPO / ".localcloud"))
    recorded = state / "tier"
    if recorded.exists():
        return recorded.read_text().strip()
    return "lite"


def pytest_collection_modifyitems(config, items):
    """Mark the tests of this folder that need the running cloud (those using the
    ``localcloud`` fixture, directly or through another fixture), and select the tests of
    the tier under test: the other tier's tests run in its own session (tox -e e2e-full)."""
    here = Path(__file__).resolve().parent
    tier = running_tier()
    selected, deselected = [], []
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents and \
                "localcloud" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.localcloud)
        other = [t for t in TIERS if t != tier and item.get_closest_marker(f"{t}_tier")]
        (deselected if other else selected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


def _session(cloud: dict):
    from keystoneauth1 import loading, session

    auth = loading.get_plugin_loader("password").load_from_options(**cloud["auth"])
    return session.Session(auth=auth)


@pytest.fixture(scope="session")
def tier(localcloud) -> str:
    return localcloud["status"]["tier"]


@pytest.fixture(scope="session")
def demo_session(localcloud):
    return _session(localcloud["clouds"]["localcloud-demo"])


@pytest.fixture(scope="session")
def admin_session(localcloud):
    return _session(localcloud["clouds"]["localcloud-admin"])


@pytest.fixture(scope="session")
def heat_demo(demo_session):
    from heatclient import client as heat_client

    return heat_client.Client("1", session=demo_session, region_name="RegionOne")


@pytest.fixture(scope="session")
def heat_admin(admin_session):
    from heatclient import client as heat_client

    return heat_client.Client("1", session=admin_session, region_name="RegionOne")


@pytest.fixture
def stack_name(request) -> str:
    """A unique stack name for this test (xdist workers share the cloud)."""
    return "lc-%s-%s" % (request.node.name.replace("_", "-")[:30], uuid.uuid4().hex[:6])


def template(name: str) -> str:
    return (TEMPLATES / name).read_text()


def wait_stack(heat, stack_id: str, timeout: int = STACK_TIMEOUT):
    """Poll until the stack leaves *_IN_PROGRESS; returns (stack, seconds)."""
    t0 = time.monotonic()
    while True:
        stack = heat.stacks.get(stack_id)
        if not stack.stack_status.endswith("_IN_PROGRESS"):
            return stack, time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            pytest.fail("stack %s still %s after %ds" % (stack_id, stack.stack_status, timeout))
        time.sleep(1)


def wait_deleted(heat, stack_id: str, timeout: int = STACK_TIMEOUT) -> float:
    from heatclient import exc

    t0 = time.monotonic()
    while True:
        try:
            stack = heat.stacks.get(stack_id)
        except exc.HTTPNotFound:
            return time.monotonic() - t0
        if stack.stack_status == "DELETE_COMPLETE":
            return time.monotonic() - t0
        if stack.stack_status == "DELETE_FAILED":
            pytest.fail("delete failed: %s" % stack.stack_status_reason)
        if time.monotonic() - t0 > timeout:
            pytest.fail("stack %s still %s after %ds" % (stack_id, stack.stack_status, timeout))
        time.sleep(1)


def create_complete(heat, stacks: list[str], name: str, template_name: str, **kwargs):
    """Create a stack from tests/localcloud/templates, recorded for teardown; it must reach
    CREATE_COMPLETE. Returns (stack id, stack, seconds)."""
    body = heat.stacks.create(stack_name=name, template=template(template_name), **kwargs)
    sid = body["stack"]["id"]
    stacks.append(sid)
    stack, took = wait_stack(heat, sid)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    return sid, stack, took


def outputs(stack) -> dict:
    return {o["output_key"]: o["output_value"] for o in stack.outputs or []}


@pytest.fixture
def stacks(heat_demo):
    """Stacks created by a test; deleted at teardown whatever happened."""
    created: list[str] = []
    yield created
    for sid in created:
        try:
            heat_demo.stacks.delete(sid)
        except Exception:
            pass


@pytest.fixture(scope="session")
def lc():
    """Helpers for the test modules (importlib import mode: they cannot import conftest)."""
    from types import SimpleNamespace

    return SimpleNamespace(template=template, wait_stack=wait_stack, wait_deleted=wait_deleted,
                           create_complete=create_complete, outputs=outputs,
                           TEMPLATES=TEMPLATES, LOCALCLOUD=LOCALCLOUD)
