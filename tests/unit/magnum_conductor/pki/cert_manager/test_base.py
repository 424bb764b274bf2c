"""The certificate bundle: the private key is kept encrypted and handed out decrypted."""

from __future__ import annotations

from magnum_conductor.pki import x509
from magnum_conductor.pki.cert_manager.base import Cert


def test_the_bundle_decrypts_its_key_for_tls_clients():
    ca = x509.generate_ca("cluster-ca")
    cert = Cert(ca.certificate, ca.private_key, ca.passphrase)
    assert "ENCRYPTED" in cert.private_key
    plain = cert.decrypted_private_key
    assert plain.startswith("-----BEGIN PRIVATE KEY-----") and "ENCRYPTED" not in plain
    assert x509.decrypt_key(plain, None) == plain  # already plain stays plain
    assert Cert(ca.certificate, None).decrypted_private_key is None
