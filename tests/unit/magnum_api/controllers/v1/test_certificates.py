"""Certificates through their controller: the CA and CSR signing asked of the conductor
over RabbitMQ, a malformed CSR refused before any message, and a node's own token opening
its cluster's two routes and nothing else."""

from __future__ import annotations

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from oslo_config import cfg

from magnum_common import crypto
from tests.functional.api.support import CA_PEM, SIGNED_PEM
from tests.unit.magnum_api.controllers.support import who
from tests.unit.magnum_common.db.support import ALICE, make_cluster

CONF = cfg.CONF
#: The cluster's own user (the certificate rules are the owner's).
OWNER = {**who(), "X-User-Id": ALICE.user_id}


def _csr() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    request = x509.CertificateSigningRequestBuilder().subject_name(x509.Name(
        [x509.NameAttribute(NameOID.COMMON_NAME, "admin")])).sign(key, hashes.SHA256())
    return request.public_bytes(serialization.Encoding.PEM).decode()


def test_the_ca_and_signing_go_to_the_conductor(api, conductor):
    row = make_cluster(ALICE, "c1")
    ca = api.get("/v1/certificates/c1?ca_cert_type=etcd", headers=OWNER).json
    assert (ca["cluster_uuid"], ca["pem"]) == (row.uuid, CA_PEM)
    assert api.get("/v1/certificates/c1", headers=who("member"),
                   expect_errors=True).status_int == 403  # another user of the project
    (asked,) = conductor.wait_for("get_ca_certificate")
    assert asked["kwargs"] == {"cluster_uuid": row.uuid, "ca_cert_type": "etcd"}
    csr = _csr()
    signed = api.post_json("/v1/certificates", {"cluster_uuid": "c1", "csr": csr},
                           headers=OWNER)
    assert signed.status_int == 201 and signed.json["pem"] == SIGNED_PEM
    bad = api.post_json("/v1/certificates", {"cluster_uuid": "c1", "csr": "-----BEGIN x"},
                        headers=OWNER, expect_errors=True)
    assert bad.status_int == 400
    assert len(conductor.calls) == 2  # the malformed CSR sent nothing
    missing = api.post_json("/v1/certificates", {"cluster_uuid": "nope", "csr": csr},
                            headers=OWNER, expect_errors=True)
    assert missing.status_int == 400


def test_a_node_token_opens_its_clusters_ca_only(api, conductor):
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    row = make_cluster(ALICE, "c1")
    node = {"X-Magnum-Node-Token": crypto.node_token(row.uuid)}
    assert api.get(f"/v1/certificates/{row.uuid}", headers=node).json["pem"] == CA_PEM
    forged = api.get(f"/v1/certificates/{row.uuid}",
                     headers={"X-Magnum-Node-Token": "forged"}, expect_errors=True)
    assert forged.status_int == 403
    other = make_cluster(ALICE, "c2")
    assert api.get(f"/v1/certificates/{other.uuid}", headers=node,
                   expect_errors=True).status_int == 403
