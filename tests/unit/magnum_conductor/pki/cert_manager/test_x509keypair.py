"""The database certificate backend: secrets encrypted at rest, rows scoped to a project."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from magnum_common import crypto, exception
from magnum_common.context import RequestContext, make_admin_context
from magnum_common.db import api as db_api
from magnum_common.db import models
from magnum_conductor.pki import cert_manager, x509
from magnum_conductor.pki.cert_manager import x509keypair

CONF = cfg.CONF
OWNER = RequestContext(user_id="u1", project_id="p1")
OTHER = RequestContext(user_id="u2", project_id="p2")


@pytest.fixture
def key() -> None:
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")


@pytest.fixture(scope="module")
def pair() -> x509.CertKeyPair:
    return x509.generate_ca("db-test")


def _row(ref: str) -> models.X509KeyPair:
    with db_api.reader() as session:
        return session.query(models.X509KeyPair).filter_by(uuid=ref).one()


def test_round_trip_on_every_database(db_any, key, pair):
    store = x509keypair.CertManager()
    ref = store.store_cert(OWNER, pair.certificate, pair.private_key,
                           passphrase=pair.passphrase, intermediates="CHAIN")
    cert = store.get_cert(OWNER, ref)
    assert (cert.certificate, cert.private_key, cert.passphrase, cert.intermediates) == (
        pair.certificate, pair.private_key, pair.passphrase, "CHAIN")
    assert "BEGIN PRIVATE KEY" in cert.decrypted_private_key
    store.delete_cert(OWNER, ref)
    with pytest.raises(exception.CertificateNotFound):
        store.get_cert(OWNER, ref)


def test_private_key_and_passphrase_are_encrypted_in_the_row(db, key, pair):
    ref = x509keypair.CertManager().store_cert(OWNER, pair.certificate, pair.private_key,
                                               passphrase=pair.passphrase)
    row = _row(ref)
    assert row.project_id == "p1" and row.user_id == "u1"
    assert row.certificate == pair.certificate
    assert "PRIVATE KEY" not in row.private_key
    assert pair.passphrase not in row.private_key_passphrase
    assert crypto.decrypt(row.private_key) == pair.private_key
    assert crypto.decrypt(row.private_key_passphrase) == pair.passphrase


def test_without_an_encryption_key_nothing_is_stored(db, pair):
    with pytest.raises(exception.ConfigInvalid):
        x509keypair.CertManager().store_cert(OWNER, pair.certificate, pair.private_key)
    with db_api.reader() as session:
        assert session.query(models.X509KeyPair).count() == 0


def test_rows_are_project_scoped(db, key, pair):
    store = x509keypair.CertManager()
    ref = store.store_cert(OWNER, pair.certificate, pair.private_key)
    with pytest.raises(exception.CertificateNotFound):
        store.get_cert(OTHER, ref)
    store.delete_cert(OTHER, ref)  # not visible, so nothing happens
    assert store.get_cert(make_admin_context(), ref).certificate == pair.certificate
    assert store.get_cert(OWNER, ref).passphrase is None


def test_delete_of_a_missing_ref_is_fine(db, key):
    x509keypair.CertManager().delete_cert(OWNER, "00000000-0000-0000-0000-000000000000")


def test_selected_by_configuration(db, key):
    CONF.set_override("cert_manager_type", "x509keypair", "certificates")
    assert isinstance(cert_manager.get_backend(), x509keypair.CertManager)
