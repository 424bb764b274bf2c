"""Per-cluster certificate authorities, Magnum's client certificate and CSR signing.

Every cluster gets three independent self-signed CAs (kubernetes, etcd, front-proxy) whose
subject CN is the cluster's name (or uuid), and a client certificate (CN ``admin``,
O ``system:masters``) signed by the kubernetes CA, which the conductor uses to talk to the
cluster's API. CSRs posted to the API by users and nodes are signed here after their
extensions are filtered by the ``[x509]`` policy.

Keys are ECDSA P-256 by default (``[x509] key_algorithm = ec``): generating one takes well
under a millisecond against tens of milliseconds for RSA-2048, which keeps a cluster's whole
credential set far below the one-second budget of a create. ``rsa`` (``[x509] rsa_key_size``)
remains available for consumers that need RSA.

Private keys never leave this module in the clear unless asked for (``decrypt_key``): they
are PKCS#8 PEM encrypted with ``BestAvailableEncryption`` under a random passphrase that is
returned next to them and stored separately by the certificate backend.

Public API:
    ``CertKeyPair`` (certificate PEM, encrypted private key PEM, passphrase),
    ``ClusterCertificates`` (ca, etcd_ca, front_proxy_ca, admin),
    ``generate_ca(common_name) -> CertKeyPair``,
    ``generate_client_certificate(ca, common_name, organization) -> CertKeyPair``,
    ``generate_cluster_certificates(cluster_name_or_uuid) -> ClusterCertificates``,
    ``sign_csr(ca_cert_pem, ca_key_pem, passphrase, csr_pem) -> str``,
    ``decrypt_key(key_pem, passphrase) -> str``.
Errors: ``InvalidCsr`` (unparseable CSR or bad CSR signature), ``CertificateValidationError``
(a critical extension or key usage the policy refuses).
"""

from __future__ import annotations

import dataclasses
import datetime
import secrets
import uuid

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, ExtensionOID, NameOID

from magnum_common import exception
from magnum_conductor.conf import CONF, EXTENSION_NAMES, KEY_USAGES

GROUP = "x509"

_CA_KEY_USAGES = frozenset({"key_cert_sign", "crl_sign"})


_PrivateKey = ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey


@dataclasses.dataclass(frozen=True)
class CertKeyPair:
    """A certificate with its private key, encrypted under ``passphrase`` (all text)."""

    certificate: str
    private_key: str
    passphrase: str


@dataclasses.dataclass(frozen=True)
class ClusterCertificates:
    """Everything a new cluster needs: three CAs and Magnum's admin client certificate."""

    ca: CertKeyPair
    etcd_ca: CertKeyPair
    front_proxy_ca: CertKeyPair
    admin: CertKeyPair


# --- keys ----------------------------------------------------------------------------------
def _new_private_key() -> _PrivateKey:
    if CONF.x509.key_algorithm == "rsa":
        return rsa.generate_private_key(public_exponent=65537, key_size=CONF.x509.rsa_key_size)
    return ec.generate_private_key(ec.SECP256R1())


def _new_passphrase() -> str:
    return secrets.token_urlsafe(24)


def _encrypt_key(key: _PrivateKey, passphrase: str) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(passphrase.encode("utf-8")),
    ).decode("ascii")


def _load_key(key_pem: str, passphrase: str | None) -> _PrivateKey:
    password = passphrase.encode("utf-8") if passphrase else None
    key = serialization.load_pem_private_key(key_pem.encode("ascii"), password=password)
    if not isinstance(key, (ec.EllipticCurvePrivateKey, rsa.RSAPrivateKey)):
        raise ValueError(f"unsupported CA key type {type(key).__name__}")
    return key


def decrypt_key(key_pem: str, passphrase: str | None) -> str:
    """The private key as unencrypted PKCS#8 PEM (for the conductor's TLS client)."""
    return _load_key(key_pem, passphrase).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")


# --- certificates --------------------------------------------------------------------------
def _common_name(value: str) -> x509.Name:
    if not value:
        raise ValueError("a certificate needs a non-empty common name")
    # X.520 caps commonName at 64 characters; cluster names may be longer.
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, value[:64])])


def _issue(
    subject: x509.Name,
    public_key: object,
    issuer: x509.Name,
    issuer_public_key: object,
    signing_key: _PrivateKey,
    extensions: list[x509.Extension],
    issuer_not_after: datetime.datetime | None = None,
) -> x509.Certificate:
    """Build and sign; validity never outlasts the issuing CA (``issuer_not_after``)."""
    now = datetime.datetime.now(datetime.UTC)
    not_after = now + datetime.timedelta(days=CONF.x509.term_of_validity)
    if issuer_not_after is not None:
        not_after = min(not_after, issuer_not_after)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(uuid.uuid4().int)
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(not_after)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_public_key),
            critical=False,
        )
    )
    for ext in extensions:
        builder = builder.add_extension(ext.value, critical=ext.critical)
    return builder.sign(signing_key, hashes.SHA256())


def _pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode("ascii")


def _key_usage(**usages: bool) -> x509.KeyUsage:
    fields = dict.fromkeys(KEY_USAGES.values(), False)
    fields.update(usages)
    return x509.KeyUsage(**fields)


def generate_ca(common_name: str) -> CertKeyPair:
    """A self-signed CA that may sign only end-entity certificates (pathlen 0)."""
    key = _new_private_key()
    name = _common_name(common_name)
    cert = _issue(
        name, key.public_key(), name, key.public_key(), key,
        [
            x509.Extension(ExtensionOID.BASIC_CONSTRAINTS, True,
                           x509.BasicConstraints(ca=True, path_length=0)),
            x509.Extension(ExtensionOID.KEY_USAGE, True, _key_usage(key_cert_sign=True)),
        ],
    )
    passphrase = _new_passphrase()
    return CertKeyPair(_pem(cert), _encrypt_key(key, passphrase), passphrase)


def generate_client_certificate(
    ca: CertKeyPair, common_name: str = "admin", organization: str = "system:masters"
) -> CertKeyPair:
    """A TLS client certificate signed by ``ca`` (Kubernetes maps O to the user's group)."""
    ca_cert = x509.load_pem_x509_certificate(ca.certificate.encode("ascii"))
    ca_key = _load_key(ca.private_key, ca.passphrase)
    key = _new_private_key()
    subject = x509.Name([
        x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization),
    ])
    # Key encipherment only means something for RSA key transport.
    usage = _key_usage(digital_signature=True,
                       key_encipherment=isinstance(key, rsa.RSAPrivateKey))
    cert = _issue(
        subject, key.public_key(), ca_cert.subject, ca_key.public_key(), ca_key,
        [
            x509.Extension(ExtensionOID.BASIC_CONSTRAINTS, True,
                           x509.BasicConstraints(ca=False, path_length=None)),
            x509.Extension(ExtensionOID.KEY_USAGE, True, usage),
            x509.Extension(ExtensionOID.EXTENDED_KEY_USAGE, False,
                           x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH])),
        ],
        ca_cert.not_valid_after_utc,
    )
    passphrase = _new_passphrase()
    return CertKeyPair(_pem(cert), _encrypt_key(key, passphrase), passphrase)


def generate_cluster_certificates(cluster_name_or_uuid: str) -> ClusterCertificates:
    """The three CAs of a cluster and Magnum's admin client certificate for it."""
    ca = generate_ca(cluster_name_or_uuid)
    return ClusterCertificates(
        ca=ca,
        etcd_ca=generate_ca(cluster_name_or_uuid),
        front_proxy_ca=generate_ca(cluster_name_or_uuid),
        admin=generate_client_certificate(ca),
    )


# --- CSR signing ---------------------------------------------------------------------------
def _extension_name(oid: x509.ObjectIdentifier) -> str:
    return EXTENSION_NAMES.get(oid, oid.dotted_string)


def _filter_key_usage(ext: x509.Extension) -> x509.Extension | None:
    usage: x509.KeyUsage = ext.value
    allowed = {KEY_USAGES[name] for name in CONF.x509.allowed_key_usage}
    if not CONF.x509.allow_ca:
        allowed -= _CA_KEY_USAGES
    kept: dict[str, bool] = {}
    for name, field in KEY_USAGES.items():
        if field in ("encipher_only", "decipher_only") and not usage.key_agreement:
            continue  # undefined without key agreement (cryptography raises on access)
        if not getattr(usage, field):
            continue
        if field in allowed:
            kept[field] = True
        elif ext.critical:
            raise exception.CertificateValidationError(extension=f"keyUsage: {name}")
    if not kept:
        return None
    if not kept.get("key_agreement"):
        kept.pop("encipher_only", None)
        kept.pop("decipher_only", None)
    return x509.Extension(ext.oid, ext.critical, _key_usage(**kept))


def _filter_basic_constraints(ext: x509.Extension) -> x509.Extension:
    if CONF.x509.allow_ca or not ext.value.ca:
        return ext
    if ext.critical:
        raise exception.CertificateValidationError(extension="basicConstraints: CA")
    return x509.Extension(ext.oid, ext.critical,
                          x509.BasicConstraints(ca=False, path_length=None))


def _filter_extensions(extensions: x509.Extensions) -> list[x509.Extension]:
    """The CSR's extensions that the ``[x509]`` policy lets into a certificate."""
    allowed = set(CONF.x509.allowed_extensions)
    kept = []
    for ext in extensions:
        name = _extension_name(ext.oid)
        if name not in allowed and ext.oid.dotted_string not in allowed:
            if ext.critical:
                raise exception.CertificateValidationError(extension=name)
            continue
        if ext.oid in (ExtensionOID.SUBJECT_KEY_IDENTIFIER,
                       ExtensionOID.AUTHORITY_KEY_IDENTIFIER):
            continue  # always computed by the signer
        if ext.oid == ExtensionOID.KEY_USAGE:
            ext = _filter_key_usage(ext)
        elif ext.oid == ExtensionOID.BASIC_CONSTRAINTS:
            ext = _filter_basic_constraints(ext)
        if ext is not None:
            kept.append(ext)
    return kept


def sign_csr(ca_cert_pem: str, ca_key_pem: str, passphrase: str | None, csr_pem: str) -> str:
    """Sign a PEM CSR with a cluster CA; returns the certificate PEM.

    The subject is copied from the CSR and the issuer is the CA's subject; extensions pass
    through the ``[x509]`` policy (see module docstring). Valid from a day ago for
    ``[x509] term_of_validity`` days, but never beyond the CA's own expiry.
    """
    try:
        csr = x509.load_pem_x509_csr(
            csr_pem.encode("utf-8") if isinstance(csr_pem, str) else csr_pem
        )
        valid_signature = csr.is_signature_valid
        public_key = csr.public_key()
        extensions = csr.extensions
    except (ValueError, TypeError, x509.DuplicateExtension,
            x509.UnsupportedGeneralNameType) as exc:
        raise exception.InvalidCsr(csr=csr_pem) from exc
    if not valid_signature:
        raise exception.InvalidCsr(csr=csr_pem)
    ca_cert = x509.load_pem_x509_certificate(ca_cert_pem.encode("ascii"))
    ca_key = _load_key(ca_key_pem, passphrase)
    cert = _issue(csr.subject, public_key, ca_cert.subject, ca_key.public_key(), ca_key,
                  _filter_extensions(extensions), ca_cert.not_valid_after_utc)
    return _pem(cert)
