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
