"""Re-encrypting every stored secret: what the old key sealed opens with the new key alone;
what is no token of ours, or no configured key opens, stays as it was."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from magnum_common import crypto, exception
from magnum_common.db import api as db_api
from magnum_common.db import models, rotation

CONF = cfg.CONF


def test_every_token_moves_to_the_current_key_and_nothing_else_changes(db):
    old, new, lost = crypto.generate_key(), crypto.generate_key(), crypto.generate_key()
    CONF.set_override("encryption_key", lost, "crypto")
    unopenable = crypto.encrypt("from a key nobody has")
    CONF.set_override("encryption_key", old, "crypto")
    with db_api.writer() as session:
        session.add(models.Cluster(uuid="c-1", project_id="p", name="plain name",
                                   trustee_password=crypto.encrypt("pw-1"),
                                   labels={"note": "not a token"}))
        session.add(models.Cluster(uuid="c-2", project_id="p", trustee_password=unopenable))
    CONF.set_override("encryption_key", new, "crypto")
    CONF.set_override("previous_encryption_keys", [old], "crypto")
    assert rotation.reencrypt_all() == 1
    CONF.set_override("previous_encryption_keys", [], "crypto")
    with db_api.reader() as session:
        first = session.query(models.Cluster).filter_by(uuid="c-1").one()
        second = session.query(models.Cluster).filter_by(uuid="c-2").one()
        assert crypto.decrypt(first.trustee_password) == "pw-1"
        assert (first.name, first.labels) == ("plain name", {"note": "not a token"})
        assert second.trustee_password == unopenable
    with pytest.raises(exception.DecryptionFailed):
        crypto.decrypt(unopenable)
    assert rotation.reencrypt_all() == 1  # again: re-encrypted with the current key once more
