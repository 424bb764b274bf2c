"""The lone master's etcd hand-over: the node's sealing (real bash and openssl) against the
driver's unsealing, the snapshot check, and when a hand-over is needed or impossible."""

from __future__ import annotations

import base64
import hashlib
import subprocess

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from drivers.heat import bootstrap, etcd_handover, parameters
from drivers.heat.conf import CONF
from drivers.heat.driver import KubernetesHeatDriver
from drivers.k8s_fedora_coreos_v1.driver import Driver
from magnum_common import exception
from magnum_common.drivers.view import ClusterView
from tests.unit.drivers import support

ETCD = bootstrap.FRAGMENTS_DIR / "40-etcd.sh"


def _snapshot(body: bytes) -> bytes:
    """What etcdctl snapshot save writes: the database, then its SHA-256."""
    return body + hashlib.sha256(body).digest()


def _bash(tmp_path, script: str) -> None:
    result = subprocess.run(["bash", "-c", f". {ETCD}\n{script}"], cwd=tmp_path,
                            capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr


@pytest.fixture
def key():
    return ec.generate_private_key(ec.SECP256R1())


def _public_der(key) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.DER,
                                         serialization.PublicFormat.SubjectPublicKeyInfo)


def test_what_the_node_seals_the_driver_opens_and_checks(tmp_path, key):
    snapshot = _snapshot(b"bbolt\0" * 5000 + b"\x01registry/configmaps/default/x")
    (tmp_path / "peer.der").write_bytes(_public_der(key))
    (tmp_path / "snapshot.db").write_bytes(snapshot)
    _bash(tmp_path, "seal peer.der snapshot.db sealed")
    sealed = (tmp_path / "sealed").read_bytes()
    assert snapshot[:64] not in sealed and len(sealed) > len(snapshot)
    opened = etcd_handover.decrypt(sealed, key)
    assert opened == snapshot
    etcd_handover.check_snapshot(opened)


def test_the_replacement_master_unseals_with_the_key_from_its_settings(tmp_path, key):
    snapshot = _snapshot(b"etcd data " * 100)
    (tmp_path / "peer.der").write_bytes(_public_der(key))
    (tmp_path / "snapshot.db").write_bytes(snapshot)
    (tmp_path / "key.pem").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    _bash(tmp_path, "seal peer.der snapshot.db sealed && unseal key.pem sealed restored.db")
    assert (tmp_path / "restored.db").read_bytes() == snapshot


def test_another_key_cannot_open_the_upload(tmp_path, key):
    (tmp_path / "peer.der").write_bytes(_public_der(key))
    (tmp_path / "snapshot.db").write_bytes(_snapshot(b"x" * 999))
    _bash(tmp_path, "seal peer.der snapshot.db sealed")
    other = ec.generate_private_key(ec.SECP256R1())
    with pytest.raises(ValueError):
        etcd_handover.check_snapshot(etcd_handover.decrypt(
            (tmp_path / "sealed").read_bytes(), other))


@pytest.mark.parametrize("data", [b"", b"short", b"x" * 100])
def test_a_snapshot_whose_hash_trailer_does_not_match_is_refused(data):
    with pytest.raises(ValueError, match="SHA-256"):
        etcd_handover.check_snapshot(data)
    with pytest.raises(ValueError, match="SHA-256"):
        etcd_handover.check_snapshot(_snapshot(b"etcd") + b"!")


def test_only_a_lone_master_without_an_etcd_volume_needs_a_handover():
    assert etcd_handover.needed(1, 0)
    assert not etcd_handover.needed(1, 5)
    assert not etcd_handover.needed(3, 0)


def test_without_the_trust_on_the_nodes_or_glance_the_replacement_is_refused():
    ct = support.template()
    cl = support.cluster(ct)
    current = {"number_of_masters": "1", "etcd_volume_size": "0"}
    with pytest.raises(exception.NotSupported, match="cluster_user_trust"):
        KubernetesHeatDriver._etcd_handover(support.Resources(), cl, current)  # no Glance
    CONF.set_override("cluster_user_trust", False, "trust")
    try:
        with pytest.raises(exception.NotSupported, match="cluster_user_trust"):
            KubernetesHeatDriver._etcd_handover(
                support.Resources(catalog={"image": "http://127.0.0.1:9292"}), cl, current)
    finally:
        CONF.clear_override("cluster_user_trust", "trust")
    # three masters, or etcd on a volume: nothing to hand over, Glance is not asked
    for masters, size in (("3", "0"), ("1", "2")):
        assert KubernetesHeatDriver._etcd_handover(support.Resources(), cl, {
            "number_of_masters": masters, "etcd_volume_size": size}) is None


def test_the_restore_settings_reach_the_masters_only():
    ct = support.template()
    cl = support.cluster(ct)
    ngs = support.default_nodegroups(cl, 1, 1)
    res = support.Resources(catalog={"identity": "http://127.0.0.1:5000/v3",
                                     "container-infra": "http://127.0.0.1:9511/v1",
                                     "image": "http://127.0.0.1:9292/"})
    handover = etcd_handover.Handover("0f6b0c1e-6a55-4c1f-9d1b-8d3b7b7a9a10", "ab" * 64,
                                      base64.b64encode(b"-----BEGIN PRIVATE KEY-----").decode())
    p = parameters.cluster_parameters(res, Driver.profile, ClusterView.of(cl, ct, ngs), None,
                                      handover.node_env())
    master = parameters.decode_env(p["master_bootstrap_env"])
    worker = parameters.decode_env(p["worker_bootstrap_env"])
    assert master["ETCD_RESTORE_IMAGE"] == handover.image_id
    assert master["ETCD_RESTORE_SHA512"] == "ab" * 64
    assert master["GLANCE_URL"] == "http://127.0.0.1:9292"
    assert "ETCD_RESTORE_KEY" not in worker and worker["GLANCE_URL"] == ""
