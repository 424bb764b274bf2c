"""``api``: the pecan application with its hooks (no paste pipeline, so the identity
headers are the caller's, as noauth passes them) on SQLite, for the hooks' and the
controllers' tests."""

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
