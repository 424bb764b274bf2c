"""Clean-up that never leaks, with the database certificate store (x509keypair, SQLite):
a cluster's bundles removed, a certificate orphan swept once its removal succeeds, and the
sweeper's back-off bounded."""

from __future__ import annotations

import datetime

import pytest
from oslo_config import cfg

from magnum_common import crypto, exception
from magnum_common.context import make_admin_context
from magnum_common.db.clusters import clusters
from magnum_common.db.orphans import orphans
from magnum_conductor.engine import cleanup
from magnum_conductor.pki import cert_manager, x509
from tests.unit.magnum_common.db.support import ALICE, make_cluster

CONF = cfg.CONF


@pytest.fixture
def store(db):
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    CONF.set_override("cert_manager_type", "x509keypair", "certificates")
    CONF.set_override("cleanup_backoff", 0, "conductor")
    return cert_manager.get_backend("x509keypair")


def _stored(store) -> str:
    ca = x509.generate_ca("c")
    return store.store_cert(ALICE, ca.certificate, ca.private_key, ca.passphrase)


def test_a_clusters_bundles_are_removed(store):
    row = make_cluster(ALICE)
    refs = {"ca_cert_ref": _stored(store), "magnum_cert_ref": _stored(store)}
    clusters.update(None, row.uuid, refs)
    assert cleanup.remove_certificates(make_admin_context(),
                                       clusters.get_by_uuid(None, row.uuid))
    for ref in refs.values():
        with pytest.raises(exception.CertificateNotFound):
            store.get_cert(ALICE, ref)
    assert orphans.count(None) == 0


def test_the_sweeper_drops_an_orphan_once_removed(store):
    row = make_cluster(ALICE)
    ref = _stored(store)
    orphans.record(cleanup.CERTIFICATE, ref, row, "the store was down", 3)
    assert cleanup.sweep() == 1
    assert orphans.count(None) == 0
    with pytest.raises(exception.CertificateNotFound):
        store.get_cert(ALICE, ref)


def test_the_back_off_grows_and_is_bounded():
    CONF.set_override("cleanup_backoff", 2.0, "conductor")
    assert cleanup.backoff(0) == datetime.timedelta(seconds=2)
    assert cleanup.backoff(3) == datetime.timedelta(seconds=16)
    assert cleanup.backoff(50) == datetime.timedelta(seconds=cleanup.MAX_BACKOFF)
    CONF.set_override("cleanup_backoff", 0, "conductor")
    assert cleanup.backoff(5) == datetime.timedelta(seconds=1)
