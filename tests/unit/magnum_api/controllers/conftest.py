"""``cloud``: what the controllers ask of Keystone, Glance, Nova and Neutron, served by a
local HTTP stand-in (``api`` is in the parent conftest)."""

from __future__ import annotations

import pytest
from oslo_config import cfg

CONF = cfg.CONF


@pytest.fixture
def cloud():
    from tests.functional.api.support import StubCloud

    stub = StubCloud()
    for name, value in stub.overrides().items():
        CONF.set_override(name, value, "api")
    yield stub
    stub.stop()


@pytest.fixture
def conductor():
    """The conductor's place on RabbitMQ: an RPC server on a topic of the test's own that
    records every message and finishes each recorded operation as a conductor would."""
    import uuid

    import oslo_messaging
    from oslo_messaging.rpc import client as rpc_client

    from magnum_common import rpc
    from tests.functional.api.support import RpcRecorder

    CONF.register_opts(oslo_messaging.transport._transport_opts)
    CONF.register_opts(rpc_client._client_opts)
    CONF.set_override("transport_url", "rabbit://guest:guest@127.0.0.1:5672/")
    CONF.set_override("rpc_response_timeout", 10)
    topic = f"magnum-unit-{uuid.uuid4().hex[:12]}"
    CONF.set_override("topic", topic, "conductor")
    recorder = RpcRecorder(topic)
    yield recorder
    recorder.stop()
    rpc.cleanup()
