"""The Barbican certificate backend and the cluster facade against the local cloud's Barbican.

Needs ``tools/localcloud`` (the shared ``localcloud`` fixture starts it); the
service credentials come from the cloud's ``magnum-localcloud.conf`` fragment.
"""

from __future__ import annotations

import configparser
import types
import uuid
from pathlib import Path

import pytest
from cryptography import x509 as cx509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

from magnum_common import exception
from magnum_common.context import RequestContext, make_admin_context
from magnum_conductor.identity import keystone
from magnum_conductor.pki import cert_manager, cluster_certs, x509
from magnum_conductor.pki.cert_manager import barbican

CONF = cfg.CONF
REPO = Path(__file__).resolve().parents[3]
CTX = make_admin_context()


@pytest.fixture(scope="module")
def state_dir(localcloud) -> Path:
    return localcloud["state_dir"]


@pytest.fixture
def store(state_dir) -> barbican.CertManager:
    """The local cloud's service credentials and Barbican, selected as the backend."""
    CONF.register_opts(ks_loading.get_auth_plugin_conf_options("password"), "keystone_auth")
    ini = configparser.RawConfigParser()
    ini.read(state_dir / "magnum-localcloud.conf")
    for group in ("keystone_auth", "barbican_client", "certificates"):
        for name, value in ini.items(group):
            CONF.set_override(name, value, group)
    keystone.reset_cache()
    backend = cert_manager.get_backend()
    assert isinstance(backend, barbican.CertManager)
    yield backend
    keystone.reset_cache()


@pytest.fixture(scope="module")
def pair() -> x509.CertKeyPair:
    return x509.generate_ca("barbican-test")


def test_round_trip_preserves_pem_texts_exactly(store, pair):
    chain = pair.certificate * 2
    name = f"test-{uuid.uuid4()}"
    ref = store.store_cert(CTX, pair.certificate, pair.private_key, passphrase=pair.passphrase,
                           intermediates=chain, name=name)
    try:
        # The name filters that the failure tests rely on do find what was stored.
        assert len(barbican.client().secrets.list(name=f"{name} certificate")) == 1
        assert len(barbican.client().containers.list(name=name)) == 1
        assert ref.startswith("http://127.0.0.1:9311/v1/containers/")
        cert = store.get_cert(CTX, ref)
        assert cert.certificate == pair.certificate  # trailing newline kept
        assert cert.private_key == pair.private_key
        assert cert.passphrase == pair.passphrase
        assert cert.intermediates == chain
        assert "BEGIN PRIVATE KEY" in cert.decrypted_private_key
        assert barbican.client().containers.get(ref).consumers == []
    finally:
        store.delete_cert(CTX, ref)


def test_delete_removes_container_and_secrets(store, pair):
    ref = store.store_cert(CTX, pair.certificate, pair.private_key, passphrase=pair.passphrase)
    secret_refs = [s.secret_ref for s in barbican.client().containers.get(ref).secrets.values()]
    assert len(secret_refs) == 3
    store.delete_cert(CTX, ref)
    with pytest.raises(exception.CertificateNotFound):
        store.get_cert(CTX, ref)
    for secret_ref in secret_refs:
        with pytest.raises(Exception) as info:
            barbican.client().secrets.get(secret_ref).name  # noqa: B018  (fetches)
        assert getattr(info.value, "status_code", None) == 404
    store.delete_cert(CTX, ref)


def test_missing_or_malformed_refs(store):
    missing = f"http://127.0.0.1:9311/v1/containers/{uuid.uuid4()}"
    with pytest.raises(exception.CertificateNotFound):
        store.get_cert(CTX, missing)
    with pytest.raises(exception.CertificateNotFound):
        store.get_cert(CTX, "not-a-ref")
    store.delete_cert(CTX, missing)


def test_a_failed_store_removes_the_secrets_it_made(store, pair):
    name = f"partial-{uuid.uuid4()}"
    too_big = "x" * 100_000  # above Barbican's max_allowed_secret_in_bytes
    with pytest.raises(Exception) as info:
        store.store_cert(CTX, pair.certificate, pair.private_key, passphrase=pair.passphrase,
                         intermediates=too_big, name=name)
    assert getattr(info.value, "status_code", None) in (400, 413)
    bc = barbican.client()
    for part in ("certificate", "private_key", "private_key_passphrase"):
        assert bc.secrets.list(name=f"{name} {part}") == []


def test_cluster_certificates_live_and_die_together(store):
    cluster = types.SimpleNamespace(uuid=str(uuid.uuid4()), name="bb", project_id="p",
                                    user_id="u", **dict.fromkeys(cluster_certs.REF_FIELDS))
    owner = RequestContext(user_id="u", project_id="p")
    for field, ref in cluster_certs.create_for_cluster(owner, cluster).items():
        setattr(cluster, field, ref)
    try:
        key = ec.generate_private_key(ec.SECP256R1())
        csr = cx509.CertificateSigningRequestBuilder().subject_name(cx509.Name(
            [cx509.NameAttribute(NameOID.COMMON_NAME, "admin")])).sign(key, hashes.SHA256())
        signed = cx509.load_pem_x509_certificate(cluster_certs.sign(
            owner, cluster, csr.public_bytes(serialization.Encoding.PEM).decode()).encode())
        ca = cx509.load_pem_x509_certificate(cluster_certs.get_ca(owner, cluster).encode())
        signed.verify_directly_issued_by(ca)
        ca_pem, cert_pem, key_pem = cluster_certs.client_credentials(CTX, cluster)
        assert ca_pem == cluster_certs.get_ca(CTX, cluster)
    finally:
        assert cluster_certs.delete_for_cluster(owner, cluster) == []
    for field in cluster_certs.REF_FIELDS:
        with pytest.raises(exception.CertificateNotFound):
            store.get_cert(CTX, getattr(cluster, field))


def test_a_failed_cluster_store_leaves_no_bundle(store, monkeypatch):
    cluster = types.SimpleNamespace(uuid=str(uuid.uuid4()), name="bad", project_id="p",
                                    user_id="u", **dict.fromkeys(cluster_certs.REF_FIELDS))
    real = x509.generate_cluster_certificates

    def with_oversized_front_proxy_ca(name):
        certs = real(name)
        bloated = x509.CertKeyPair("x" * 100_000, certs.front_proxy_ca.private_key,
                                   certs.front_proxy_ca.passphrase)
        return x509.ClusterCertificates(certs.ca, certs.etcd_ca, bloated, certs.admin)

    monkeypatch.setattr(x509, "generate_cluster_certificates", with_oversized_front_proxy_ca)
    with pytest.raises(Exception):  # noqa: B017  (Barbican's 413, whatever its class)
        cluster_certs.create_for_cluster(CTX, cluster)
    bc = barbican.client()
    for bundle in ("kubernetes CA", "etcd CA", "front-proxy CA", "Magnum client"):
        name = f"{cluster.uuid} {bundle}"
        assert bc.containers.list(name=name) == []
        assert bc.secrets.list(name=f"{name} certificate") == []


def test_bundles_and_loose_parts_are_found_by_name_and_deleted(store, pair):
    """A conductor killed after Barbican stored a bundle, before the reference was
    journaled, leaves it findable by its name only; so is a part whose container was
    never made. Both are found and deleted; other names are not touched."""
    name = f"{uuid.uuid4()} kubernetes CA"
    bundle = store.store_cert(CTX, pair.certificate, pair.private_key, name=name)
    loose = barbican.client().secrets.create(name=f"{name} private_key",
                                             payload=b"a part without its container")
    loose_ref = loose.store()
    other = store.store_cert(CTX, pair.certificate, pair.private_key,
                             name=f"{uuid.uuid4()} kubernetes CA")
    try:
        found = store.find_named(CTX, [name])
        assert found[0] == bundle
        parts = set(found[1:])
        assert loose_ref in parts and len(parts) == 3  # the bundle's two parts and the loose one
        for ref in found:
            store.delete_cert(CTX, ref)
        assert store.find_named(CTX, [name]) == []
        assert store.get_cert(CTX, other).certificate == pair.certificate
    finally:
        store.delete_cert(CTX, other)
