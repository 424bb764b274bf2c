"""The API seals every token it records, so it does not start without usable [crypto] keys
(doc/source/admin/security.rst)."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from magnum_api import app as api_app
from magnum_common import exception

CONF = cfg.CONF


@pytest.mark.parametrize("key", [None, "not-a-fernet-key"])
def test_the_api_refuses_to_start_without_a_usable_crypto_key(db, key):
    CONF.set_override("encryption_key", key, "crypto")
    with pytest.raises(exception.ConfigInvalid, match=r"\[crypto\] encryption_key"):
        api_app.load_app()
