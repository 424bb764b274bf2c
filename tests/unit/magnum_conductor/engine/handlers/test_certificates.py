"""The certificate calls a conductor answers (the database store, SQLite): the CA of each
type of a cluster's row, and a CSR signed by the kubernetes CA."""

from __future__ import annotations

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from oslo_config import cfg

from magnum_common import crypto
from magnum_common.db.clusters import clusters
from magnum_conductor.engine.handlers import certificates
from magnum_conductor.pki import cluster_certs
from tests.unit.magnum_common.db.support import ALICE, make_cluster

CONF = cfg.CONF


def _csr() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    request = x509.CertificateSigningRequestBuilder().subject_name(x509.Name(
        [x509.NameAttribute(NameOID.COMMON_NAME, "kubelet")])).sign(key, hashes.SHA256())
    return request.public_bytes(serialization.Encoding.PEM).decode()


def test_the_cas_of_a_row_and_a_signed_csr(db):
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    CONF.set_override("cert_manager_type", "x509keypair", "certificates")
    row = make_cluster(ALICE)
    clusters.update(None, row.uuid, cluster_certs.create_for_cluster(ALICE, row))
    kubernetes = x509.load_pem_x509_certificate(
        certificates.get_ca_certificate(ALICE, row.uuid, None).encode())
    etcd = x509.load_pem_x509_certificate(
        certificates.get_ca_certificate(ALICE, row.uuid, "etcd").encode())
    assert kubernetes.serial_number != etcd.serial_number  # one CA per type
    signed = x509.load_pem_x509_certificate(
        certificates.sign_certificate(ALICE, row.uuid, _csr(), None).encode())
    assert signed.issuer == kubernetes.subject
    assert signed.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "kubelet"
    signed.verify_directly_issued_by(kubernetes)  # raises unless the CA signed it
