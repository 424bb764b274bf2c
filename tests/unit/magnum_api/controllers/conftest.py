"""The controllers' tests: the pecan application with its hooks (no paste pipeline, so
the identity headers are the caller's, as noauth sets them) on SQLite."""

from __future__ import annotations

import pytest
import webtest
from oslo_config import cfg

from magnum_api import app, policy
from magnum_common import crypto

CONF = cfg.CONF


@pytest.fixture
def api(db):
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    policy.reset()
    yield webtest.TestApp(app.setup_app())
    policy.reset()


@pytest.fixture
def cloud():
    """Keystone, Glance, Nova and Neutron as the API reads them: a local HTTP stand-in."""
    from tests.functional.api.support import StubCloud

    stub = StubCloud()
    for name, value in stub.overrides().items():
        CONF.set_override(name, value, "api")
    yield stub
    stub.stop()
