"""Fixtures of the API functional tests: the real paste pipeline (noauth) over webtest,
a real database (``db`` / ``db_any``), the RPC recorder on RabbitMQ and the stub cloud."""

from __future__ import annotations

import uuid

import oslo_messaging
import pytest
import webtest
from oslo_config import cfg
from oslo_messaging.rpc import client as rpc_client

from magnum_api import app as api_app
from magnum_api import policy
from magnum_common import crypto, rpc
from magnum_common.drivers import registry
from tests.functional.api import support

CONF = cfg.CONF
TRANSPORT_URL = "rabbit://guest:guest@127.0.0.1:5672/"
PROJECT = "project-a"
CONF.register_opts(oslo_messaging.transport._transport_opts)
CONF.register_opts(rpc_client._client_opts)
OTHER_PROJECT = "project-b"
ENCRYPTION_KEY = crypto.generate_key()


@pytest.fixture(scope="session")
def stub_cloud():
    cloud = support.StubCloud()
    yield cloud
    cloud.stop()


@pytest.fixture(scope="session")
def rpc_topic() -> str:
    return f"magnum-api-test-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def recorder(rpc_topic):
    CONF.set_override("transport_url", TRANSPORT_URL)
    rec = support.RpcRecorder(rpc_topic)
    yield rec
    rec.stop()
    rpc.cleanup()


@pytest.fixture(autouse=True)
def _api_config(stub_cloud, rpc_topic):
    CONF.set_override("transport_url", TRANSPORT_URL)
    CONF.set_override("topic", rpc_topic, "conductor")
    CONF.set_override("auth_strategy", "noauth")
    CONF.set_override("encryption_key", ENCRYPTION_KEY, "crypto")
    CONF.set_override("rpc_response_timeout", 10)
    for name, value in stub_cloud.overrides().items():
        CONF.set_override(name, value, "api")
    stub_cloud.projects.update({PROJECT, OTHER_PROJECT})
    policy.reset()
    yield
    policy.reset()


@pytest.fixture(autouse=True)
def fake_driver(monkeypatch):
    """The only installed driver is the test plugin (entry points stand for real ones)."""
    driver = support.FakeDriver()
    monkeypatch.setattr(registry, "_extensions", lambda: {"fake_k8s": driver})
    return driver


@pytest.fixture
def api(db, recorder) -> webtest.TestApp:
    recorder.reset()
    return webtest.TestApp(api_app.load_app())


@pytest.fixture
def api_any(db_any, recorder) -> webtest.TestApp:
    recorder.reset()
    return webtest.TestApp(api_app.load_app())


def headers(role: str = "member", project: str = PROJECT, user: str = "user-a",
            version: str | None = "latest") -> dict[str, str]:
    """Identity headers for noauth: admin / member / reader of a project."""
    roles = {"admin": "admin,member,reader", "member": "member,reader",
             "reader": "reader"}[role]
    result = {"X-User-Id": user, "X-Project-Id": project, "X-Roles": roles}
    if version:
        result["OpenStack-API-Version"] = f"container-infra {version}"
    return result
