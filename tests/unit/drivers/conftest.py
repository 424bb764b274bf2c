"""The drivers' unit tests run as the local cloud and devstack do: nodes get the trust
(``[trust] cluster_user_trust = true``); the tests of ``false`` say so themselves."""

from __future__ import annotations

import pytest

from magnum_common.config import CONF


@pytest.fixture(autouse=True)
def _nodes_hold_the_trust():
    CONF.set_override("cluster_user_trust", True, "trust")
