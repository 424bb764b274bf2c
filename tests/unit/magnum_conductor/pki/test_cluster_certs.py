"""The cluster certificate facade over the local and database backends."""

from __future__ import annotations

import types

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from oslo_config import cfg

from magnum_common import crypto, exception, utils
from magnum_common.context import RequestContext, make_admin_context
from magnum_conductor.pki import cert_manager, cluster_certs

CONF = cfg.CONF
OWNER = RequestContext(user_id="u1", project_id="p1")


@pytest.fixture(params=["local", "x509keypair"])
def backend(request, tmp_path) -> str:
    CONF.set_override("cert_manager_type", request.param, "certificates")
    CONF.set_override("storage_path", str(tmp_path / "certs"), "certificates")
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    if request.param == "x509keypair":
        request.getfixturevalue("db")
    return request.param


def _cluster(name: str | None = "prod") -> types.SimpleNamespace:
    cluster = types.SimpleNamespace(uuid=utils.generate_uuid(), name=name, project_id="p1",
                                    user_id="u1")
    for field in cluster_certs.REF_FIELDS:
        setattr(cluster, field, None)
    return cluster


def _created(context=OWNER, name="prod") -> types.SimpleNamespace:
    cluster = _cluster(name)
    for field, ref in cluster_certs.create_for_cluster(context, cluster).items():
        setattr(cluster, field, ref)
    return cluster


def _load(pem: str) -> x509.Certificate:
    return x509.load_pem_x509_certificate(pem.encode())


def _csr() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    return x509.CertificateSigningRequestBuilder().subject_name(
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubelet")])
    ).sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM).decode()


def _exists(cluster, field) -> bool:
    try:
        cert_manager.get_backend().get_cert(make_admin_context(), getattr(cluster, field))
    except exception.CertificateNotFound:
        return False
    return True


def test_create_stores_three_cas_and_the_client_certificate(backend):
    cluster = _created()
    assert all(getattr(cluster, f) for f in cluster_certs.REF_FIELDS)
    assert len({getattr(cluster, f) for f in cluster_certs.REF_FIELDS}) == 4
    cas = {t: _load(cluster_certs.get_ca(OWNER, cluster, t))
           for t in (None, "etcd", "front_proxy")}
    assert len({c.fingerprint(hashes.SHA256()) for c in cas.values()}) == 3
    assert cluster_certs.get_ca(OWNER, cluster, "front-proxy") == \
        cluster_certs.get_ca(OWNER, cluster, "front_proxy")
    assert cluster_certs.get_ca(OWNER, cluster, "kubernetes") == \
        cluster_certs.get_ca(OWNER, cluster, None)
    assert all(c.subject.rfc4514_string() == "CN=prod" for c in cas.values())
    ca_pem, cert_pem, key_pem = cluster_certs.client_credentials(OWNER, cluster)
    client = _load(cert_pem)
    client.verify_directly_issued_by(cas[None])
    key = serialization.load_pem_private_key(key_pem.encode(), password=None)
    assert key.public_key() == client.public_key()
    assert ca_pem == cluster_certs.get_ca(OWNER, cluster)


def test_unnamed_cluster_uses_its_uuid(backend):
    cluster = _created(name=None)
    ca = _load(cluster_certs.get_ca(OWNER, cluster))
    assert ca.subject.rfc4514_string() == f"CN={cluster.uuid}"


def test_service_context_and_owner_see_the_same_certificates(backend):
    cluster = _created(context=make_admin_context())
    assert cluster_certs.get_ca(OWNER, cluster) == \
        cluster_certs.get_ca(make_admin_context(), cluster)


def test_create_is_idempotent_when_refs_exist(backend):
    cluster = _created()
    refs = {f: getattr(cluster, f) for f in cluster_certs.REF_FIELDS}
    assert cluster_certs.create_for_cluster(OWNER, cluster) == refs


def test_sign_with_each_ca(backend):
    cluster = _created()
    for ca_type in (None, "etcd", "front-proxy"):
        cert = _load(cluster_certs.sign(OWNER, cluster, _csr(), ca_type))
        cert.verify_directly_issued_by(_load(cluster_certs.get_ca(OWNER, cluster, ca_type)))
    with pytest.raises(exception.InvalidCsr):
        cluster_certs.sign(OWNER, cluster, None)
    with pytest.raises(exception.InvalidCsr):
        cluster_certs.sign(OWNER, cluster, "not a csr")


def test_ca_private_key_matches_the_ca(backend):
    cluster = _created()
    key = serialization.load_pem_private_key(
        cluster_certs.ca_private_key(OWNER, cluster, "etcd").encode(), password=None)
    assert key.public_key() == _load(cluster_certs.get_ca(OWNER, cluster, "etcd")).public_key()


def test_delete_removes_all_four_and_tolerates_missing(backend):
    cluster = _created()
    cluster_certs.client_credentials(OWNER, cluster)  # cached from here on
    cert_manager.get_backend().delete_cert(OWNER, cluster.etcd_ca_cert_ref)
    assert cluster_certs.delete_for_cluster(OWNER, cluster) == []
    assert not any(_exists(cluster, f) for f in cluster_certs.REF_FIELDS)
    with pytest.raises(exception.CertificateNotFound):
        cluster_certs.client_credentials(OWNER, cluster)
    assert cluster_certs.delete_for_cluster(OWNER, cluster) == []
    with pytest.raises(exception.CertificateNotFound):
        cluster_certs.get_ca(OWNER, _cluster())


def test_rotate_replaces_everything_and_deletes_the_old_after_commit(backend):
    cluster = _created()
    old = {f: getattr(cluster, f) for f in cluster_certs.REF_FIELDS}
    old_ca = cluster_certs.get_ca(OWNER, cluster)
    cluster_certs.client_credentials(OWNER, cluster)
    seen_during_commit = []

    def commit(new_refs):
        seen_during_commit.append(all(_exists(cluster, f) for f in cluster_certs.REF_FIELDS))
        for field, ref in new_refs.items():
            setattr(cluster, field, ref)

    new = cluster_certs.rotate_ca(OWNER, cluster, commit=commit)
    assert seen_during_commit == [True]
    assert set(new.values()).isdisjoint(old.values())
    assert cluster_certs.get_ca(OWNER, cluster) != old_ca
    assert not any(_exists(types.SimpleNamespace(**old), f) for f in cluster_certs.REF_FIELDS)
    ca_pem, cert_pem, _ = cluster_certs.client_credentials(OWNER, cluster)
    _load(cert_pem).verify_directly_issued_by(_load(ca_pem))
    assert ca_pem != old_ca


def test_failed_commit_keeps_the_old_certificates(backend):
    cluster = _created()
    old_ca = cluster_certs.get_ca(OWNER, cluster)
    stored = []

    def commit(new_refs):
        stored.extend(new_refs.values())
        raise exception.ConcurrentUpdate("row changed")

    with pytest.raises(exception.ConcurrentUpdate):
        cluster_certs.rotate_ca(OWNER, cluster, commit=commit)
    assert cluster_certs.get_ca(OWNER, cluster) == old_ca
    assert len(stored) == 4
    for ref in stored:
        with pytest.raises(exception.CertificateNotFound):
            cert_manager.get_backend().get_cert(make_admin_context(), ref)


def test_each_reference_is_told_before_its_bundle_is_stored(backend):
    """Both backends here let the caller choose the reference: it is handed to
    ``on_stored`` before the store, so a crash during the store leaves no bundle that the
    operation's journal does not name."""
    cluster = _cluster()
    told: dict[str, tuple[str, bool]] = {}

    def journal(field: str, ref: str) -> None:
        probe = types.SimpleNamespace(**{**vars(cluster), field: ref})
        told[field] = (ref, _exists(probe, field))

    refs = cluster_certs.create_for_cluster(OWNER, cluster, journal)
    assert {field: ref for field, (ref, _) in told.items()} == refs
    assert not any(existed for _, existed in told.values())
    assert all(_exists(types.SimpleNamespace(**{**vars(cluster), **refs}), field)
               for field in cluster_certs.REF_FIELDS)
