"""The simulated etcd snapshots: sealed as the node's 40-etcd.sh seals them (its bash
unseal and the driver open them), and a snapshot whose hash does not match is refused."""

from __future__ import annotations

import subprocess

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from drivers.heat import bootstrap, etcd_handover
from localcloud.helpers import etcdsim, nodeboot


def _keys():
    key = ec.generate_private_key(ec.SECP256R1())
    der = key.public_key().public_bytes(serialization.Encoding.DER,
                                        serialization.PublicFormat.SubjectPublicKeyInfo)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    return key, der, pem


def test_a_simulated_snapshot_opens_like_a_real_one(tmp_path):
    key, der, pem = _keys()
    keyspace = {"/registry/configmaps/default/kept": {"data": {"k": "v"}}}
    sealed = etcdsim.seal(der, etcdsim.snapshot(keyspace))
    etcd_handover.check_snapshot(etcd_handover.decrypt(sealed, key))  # the driver's check
    (tmp_path / "sealed").write_bytes(sealed)
    (tmp_path / "key.pem").write_bytes(pem)
    subprocess.run(["bash", "-c", f". {bootstrap.FRAGMENTS_DIR / '40-etcd.sh'}\n"
                    "unseal key.pem sealed snapshot.db"], cwd=tmp_path, check=True,
                   env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert etcdsim.load_snapshot((tmp_path / "snapshot.db").read_bytes()) == keyspace
    assert etcdsim.load_snapshot(etcdsim.unseal(pem, sealed)) == keyspace


def test_a_corrupt_snapshot_is_not_restored():
    with pytest.raises(etcdsim.RestoreError, match="hash"):
        etcdsim.load_snapshot(etcdsim.snapshot({"a": 1})[:-1] + b"x")


def test_only_a_lone_master_with_the_trust_and_glance_runs_the_handover_timer():
    env = {"IS_MASTER": "true", "MASTER_IPS": "127.10.0.5", "GLANCE_URL": "http://127.0.0.1:9292",
           "TRUST_ID": "t"}
    assert etcdsim.lone_master(nodeboot.Node("s", env))
    for change in ({"MASTER_IPS": "127.10.0.5,127.10.0.6"}, {"ETCD_VOLUME_ID": "v"},
                   {"TRUST_ID": ""}, {"GLANCE_URL": ""}, {"IS_MASTER": "false"}):
        assert not etcdsim.lone_master(nodeboot.Node("s", {**env, **change}))
