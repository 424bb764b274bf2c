"""Fixtures of the tests of the local cloud's own services (Heat stacks, templates).

The test templates live in ``templates/``; ``lc`` hands the helpers to the test modules
(importlib import mode: they cannot import a conftest).
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest

from localcloud.layout import CLI

TEMPLATES = Path(__file__).resolve().parent / "templates"
STACK_TIMEOUT = int(os.environ.get("LOCALCLOUD_STACK_TIMEOUT", "300"))


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
    """Create a stack from tests/localcloud/harness/templates, recorded for teardown; it must reach
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
                           TEMPLATES=TEMPLATES, LOCALCLOUD=CLI)
