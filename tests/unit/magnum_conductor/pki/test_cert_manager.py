"""Choosing the certificate backend: one instance per backend and process, a clear
configuration error for an unknown name."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from magnum_common import exception
from magnum_conductor.pki import cert_manager
from magnum_conductor.pki.cert_manager import local, x509keypair

CONF = cfg.CONF


@pytest.fixture(autouse=True)
def _fresh_backends():
    """The process's backends as they were: another test may configure its own."""
    before = dict(cert_manager._backends)
    cert_manager._backends.clear()
    yield
    cert_manager._backends.clear()
    cert_manager._backends.update(before)


def test_the_configured_backend_once_per_process(tmp_path):
    CONF.set_override("storage_path", str(tmp_path), "certificates")
    CONF.set_override("cert_manager_type", "local", "certificates")
    backend = cert_manager.get_backend()
    assert isinstance(backend, local.CertManager) and cert_manager.get_backend("local") is backend
    assert isinstance(cert_manager.get_backend("x509keypair"), x509keypair.CertManager)


def test_an_unknown_backend_is_a_configuration_error():
    with pytest.raises(exception.ConfigInvalid, match="cert_manager_type 'vault'"):
        cert_manager.get_backend("vault")
