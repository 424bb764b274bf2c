"""Cluster CAs, Magnum's client certificate and CSR signing with the [x509] policy."""

from __future__ import annotations

import datetime
import subprocess

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, ExtensionOID, NameOID
from cryptography.x509.verification import ExtensionPolicy, PolicyBuilder, Store
from oslo_config import cfg

from magnum_common import exception
from magnum_conductor.pki import x509 as mx

CONF = cfg.CONF


def _cert(pem: str) -> x509.Certificate:
    return x509.load_pem_x509_certificate(pem.encode())


def _ext(cert: x509.Certificate, oid: x509.ObjectIdentifier) -> x509.Extension:
    return cert.extensions.get_extension_for_oid(oid)


@pytest.fixture(scope="module")
def certs() -> mx.ClusterCertificates:
    return mx.generate_cluster_certificates("k8s-prod")


def _csr(*extensions: tuple[x509.ExtensionType, bool], cn: str = "system:node:n1",
         key=None) -> str:
    key = key or ec.generate_private_key(ec.SECP256R1())
    builder = x509.CertificateSigningRequestBuilder().subject_name(x509.Name([
        x509.NameAttribute(NameOID.COMMON_NAME, cn),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "system:nodes"),
    ]))
    for value, critical in extensions:
        builder = builder.add_extension(value, critical=critical)
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM).decode()


def _sign(ca: mx.CertKeyPair, csr: str) -> x509.Certificate:
    return _cert(mx.sign_csr(ca.certificate, ca.private_key, ca.passphrase, csr))


def _verify_client(ca: x509.Certificate, leaf: x509.Certificate) -> None:
    """Path validation with WebPKI rules for the CA; a client certificate needs no SAN."""
    PolicyBuilder().store(Store([ca])).extension_policies(
        ca_policy=ExtensionPolicy.webpki_defaults_ca(), ee_policy=ExtensionPolicy.permit_all(),
    ).build_client_verifier().verify(leaf, [])


def _usage(**kw: bool) -> x509.KeyUsage:
    fields = dict.fromkeys(mx.KEY_USAGES.values(), False)
    fields.update(kw)
    return x509.KeyUsage(**fields)


# --- CAs -----------------------------------------------------------------------------------
@pytest.mark.parametrize("which", ["ca", "etcd_ca", "front_proxy_ca"])
def test_cluster_cas_are_self_signed_leaf_only_cas(certs, which):
    pair = getattr(certs, which)
    cert = _cert(pair.certificate)
    cn = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value
    assert cn == "k8s-prod"
    assert cert.issuer == cert.subject
    cert.verify_directly_issued_by(cert)
    bc = _ext(cert, ExtensionOID.BASIC_CONSTRAINTS)
    assert bc.critical and bc.value.ca and bc.value.path_length == 0
    ku = _ext(cert, ExtensionOID.KEY_USAGE)
    assert ku.critical and ku.value.key_cert_sign
    assert not (ku.value.digital_signature or ku.value.key_encipherment or ku.value.crl_sign)
    assert isinstance(cert.public_key(), ec.EllipticCurvePublicKey)
    assert cert.signature_hash_algorithm.name == "sha256"


def test_the_three_cas_are_independent(certs):
    keys = {_cert(p.certificate).public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        for p in (certs.ca, certs.etcd_ca, certs.front_proxy_ca)}
    assert len(keys) == 3
    assert len({certs.ca.passphrase, certs.etcd_ca.passphrase,
                certs.front_proxy_ca.passphrase}) == 3


def test_private_keys_are_stored_encrypted(certs):
    assert "ENCRYPTED PRIVATE KEY" in certs.ca.private_key
    with pytest.raises(TypeError):
        serialization.load_pem_private_key(certs.ca.private_key.encode(), password=None)
    with pytest.raises(ValueError):
        mx.decrypt_key(certs.ca.private_key, "wrong-passphrase")
    clear = mx.decrypt_key(certs.ca.private_key, certs.ca.passphrase)
    key = serialization.load_pem_private_key(clear.encode(), password=None)
    assert key.public_key() == _cert(certs.ca.certificate).public_key()


def test_admin_client_certificate_chains_to_the_kubernetes_ca(certs, tmp_path):
    ca, admin = _cert(certs.ca.certificate), _cert(certs.admin.certificate)
    assert admin.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "admin"
    assert admin.subject.get_attributes_for_oid(
        NameOID.ORGANIZATION_NAME)[0].value == "system:masters"
    assert admin.issuer == ca.subject
    assert list(_ext(admin, ExtensionOID.EXTENDED_KEY_USAGE).value) == [
        ExtendedKeyUsageOID.CLIENT_AUTH]
    assert _ext(admin, ExtensionOID.BASIC_CONSTRAINTS).value.ca is False
    assert _ext(admin, ExtensionOID.KEY_USAGE).value.digital_signature
    _verify_client(ca, admin)
    (tmp_path / "ca.pem").write_text(certs.ca.certificate)
    (tmp_path / "admin.pem").write_text(certs.admin.certificate)
    (tmp_path / "etcd.pem").write_text(certs.etcd_ca.certificate)
    ok = subprocess.run(["openssl", "verify", "-CAfile", tmp_path / "ca.pem",
                         tmp_path / "admin.pem"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    wrong = subprocess.run(["openssl", "verify", "-CAfile", tmp_path / "etcd.pem",
                            tmp_path / "admin.pem"], capture_output=True, text=True)
    assert wrong.returncode != 0


def test_rsa_keys_when_configured():
    CONF.set_override("key_algorithm", "rsa", "x509")
    pair = mx.generate_ca("rsa-cluster")
    key = _cert(pair.certificate).public_key()
    assert isinstance(key, rsa.RSAPublicKey) and key.key_size == 2048
    admin = _cert(mx.generate_client_certificate(pair).certificate)
    assert _ext(admin, ExtensionOID.KEY_USAGE).value.key_encipherment


def test_long_cluster_names_are_cut_to_the_common_name_limit():
    cert = _cert(mx.generate_ca("x" * 200).certificate)
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "x" * 64


# --- signing -------------------------------------------------------------------------------
def test_signed_certificate_fields(certs):
    key = ec.generate_private_key(ec.SECP256R1())
    csr_pem = _csr((x509.SubjectAlternativeName([x509.DNSName("node-1")]), False), key=key)
    before = datetime.datetime.now(datetime.UTC)
    cert = _sign(certs.ca, csr_pem)
    ca = _cert(certs.ca.certificate)
    assert cert.subject == x509.load_pem_x509_csr(csr_pem.encode()).subject
    assert cert.issuer == ca.subject
    assert cert.public_key() == key.public_key()
    assert cert.signature_hash_algorithm.name == "sha256"
    cert.verify_directly_issued_by(ca)
    assert abs(cert.not_valid_before_utc - (before - datetime.timedelta(days=1))).seconds < 60
    assert abs(cert.not_valid_after_utc - (before + datetime.timedelta(days=1825))).seconds < 60
    assert 0 < cert.serial_number < 2**128
    assert _ext(cert, ExtensionOID.SUBJECT_KEY_IDENTIFIER).value == \
        x509.SubjectKeyIdentifier.from_public_key(key.public_key())
    assert _ext(cert, ExtensionOID.SUBJECT_ALTERNATIVE_NAME).value.get_values_for_type(
        x509.DNSName) == ["node-1"]
    assert _sign(certs.ca, csr_pem).serial_number != cert.serial_number


def test_term_of_validity_is_configurable(certs):
    CONF.set_override("term_of_validity", 30, "x509")
    cert = _sign(certs.ca, _csr())
    assert (cert.not_valid_after_utc - cert.not_valid_before_utc).days == 31


def test_certificates_never_outlive_their_ca():
    CONF.set_override("term_of_validity", 10, "x509")
    ca = mx.generate_ca("short-lived")
    CONF.set_override("term_of_validity", 1000, "x509")
    ca_expiry = _cert(ca.certificate).not_valid_after_utc
    assert _sign(ca, _csr()).not_valid_after_utc == ca_expiry
    assert _cert(mx.generate_client_certificate(ca).certificate).not_valid_after_utc == ca_expiry


def test_signed_client_certificate_verifies_against_its_ca_only(certs):
    csr = _csr((x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), False),
               (_usage(digital_signature=True), True))
    cert = _sign(certs.etcd_ca, csr)
    _verify_client(_cert(certs.etcd_ca.certificate), cert)
    with pytest.raises(Exception, match="(?i)candidates exhausted|issuer"):
        _verify_client(_cert(certs.ca.certificate), cert)


def test_disallowed_extensions_are_dropped_or_refused_when_critical(certs):
    ocsp = x509.OCSPNoCheck()
    cert = _sign(certs.ca, _csr((ocsp, False)))
    with pytest.raises(x509.ExtensionNotFound):
        cert.extensions.get_extension_for_class(x509.OCSPNoCheck)
    with pytest.raises(exception.CertificateValidationError, match="1.3.6.1.5.5.7.48.1.5"):
        _sign(certs.ca, _csr((ocsp, True)))
    CONF.set_override("allowed_extensions", ["keyUsage"], "x509")
    with pytest.raises(exception.CertificateValidationError, match="subjectAltName"):
        _sign(certs.ca, _csr((x509.SubjectAlternativeName([x509.DNSName("a")]), True)))
    CONF.set_override("allowed_extensions", ["keyUsage", "1.3.6.1.5.5.7.48.1.5"], "x509")
    cert = _sign(certs.ca, _csr((ocsp, False)))
    assert cert.extensions.get_extension_for_class(x509.OCSPNoCheck)


def test_key_usages_are_filtered(certs):
    cert = _sign(certs.ca, _csr(
        (_usage(digital_signature=True, key_cert_sign=True, data_encipherment=True), False)))
    usage = _ext(cert, ExtensionOID.KEY_USAGE).value
    assert usage.digital_signature
    assert not usage.key_cert_sign and not usage.data_encipherment
    with pytest.raises(exception.CertificateValidationError, match="Data Encipherment"):
        _sign(certs.ca, _csr((_usage(data_encipherment=True), True)))
    cert = _sign(certs.ca, _csr((_usage(crl_sign=True), False)))
    with pytest.raises(x509.ExtensionNotFound):
        _ext(cert, ExtensionOID.KEY_USAGE)


def test_ca_requests_are_neutered_unless_allowed(certs):
    ca_bc = x509.BasicConstraints(ca=True, path_length=None)
    cert = _sign(certs.ca, _csr((ca_bc, False)))
    assert _ext(cert, ExtensionOID.BASIC_CONSTRAINTS).value.ca is False
    with pytest.raises(exception.CertificateValidationError, match="basicConstraints"):
        _sign(certs.ca, _csr((ca_bc, True)))
    CONF.set_override("allow_ca", True, "x509")
    CONF.set_override("allowed_key_usage", ["Digital Signature", "Certificate Sign"], "x509")
    cert = _sign(certs.ca, _csr((ca_bc, True), (_usage(key_cert_sign=True), True)))
    assert _ext(cert, ExtensionOID.BASIC_CONSTRAINTS).value.ca is True
    assert _ext(cert, ExtensionOID.KEY_USAGE).value.key_cert_sign


def test_ca_key_usage_needs_allow_ca_even_when_listed(certs):
    CONF.set_override("allowed_key_usage", ["Digital Signature", "Certificate Sign"], "x509")
    with pytest.raises(exception.CertificateValidationError, match="Certificate Sign"):
        _sign(certs.ca, _csr((_usage(key_cert_sign=True), True)))


@pytest.mark.parametrize("csr", ["", "garbage", "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n"
                                 "-----END CERTIFICATE REQUEST-----\n"])
def test_unparseable_csr_is_invalid(certs, csr):
    with pytest.raises(exception.InvalidCsr):
        mx.sign_csr(certs.ca.certificate, certs.ca.private_key, certs.ca.passphrase, csr)


def test_csr_with_a_broken_signature_is_invalid(certs):
    csr = x509.load_pem_x509_csr(_csr().encode())
    der = bytearray(csr.public_bytes(serialization.Encoding.DER))
    der[-3] ^= 0x01  # inside the signature value
    broken = x509.load_der_x509_csr(bytes(der)).public_bytes(serialization.Encoding.PEM)
    with pytest.raises(exception.InvalidCsr):
        mx.sign_csr(certs.ca.certificate, certs.ca.private_key, certs.ca.passphrase,
                    broken.decode())


def test_rsa_csr_signed_by_ec_ca(certs):
    key = rsa.generate_private_key(65537, 2048)
    cert = _sign(certs.front_proxy_ca, _csr(key=key))
    assert isinstance(cert.public_key(), rsa.RSAPublicKey)
    cert.verify_directly_issued_by(_cert(certs.front_proxy_ca.certificate))
