"""The checks of a cluster's life that need no cluster (the life itself runs against the
cloud: tests/localcloud/e2e, tools/main-job): every address a cluster reports is on this
machine; a command that must be refused fails the step when it succeeds (the real
``openstack`` client, no cloud configured); the nodes' bootstrap settings are read from the
user data the lite tier keeps; and a kubeconfig passes only with the cluster's API address,
its CA, and a client certificate that CA signed for system:masters (checked with openssl)."""

from __future__ import annotations

import base64
import datetime
import io
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from localcloud.scenario import life
from localcloud.scenario.narrate import Narrator
from tests.unit.localcloud.helpers.test_nodeboot import ENV, _user_data

API = "https://127.0.0.1:6443"


def test_every_reported_address_must_be_on_this_machine():
    life.check_local_addresses({"api_address": API, "master_addresses": ["127.10.0.11"],
                                "node_addresses": ["127.10.0.12", "127.24.4.30"]})
    for bad in ({"api_address": "https://0.10.0.7:6443"},
                {"api_address": API, "node_addresses": ["0.10.0.8"]},
                {"api_address": "https://api.example:6443"}, {}):
        with pytest.raises(life.StepFailed, match="not in 127.0.0.0/8"):
            life.check_local_addresses({"name": "c1", **bad})


@pytest.fixture
def flow(tmp_path, monkeypatch):
    monkeypatch.setenv("MAGNUM_LOCALCLOUD_DIR", str(tmp_path / "state"))
    return life.ClusterLife(Narrator(out=io.StringIO()), tmp_path / "work", tag="t1")


def test_a_command_that_must_be_refused_fails_the_step_when_it_succeeds(flow):
    err = flow.refused("coe", "cluster", "list")  # no clouds.yaml: the client refuses
    assert "Cloud localcloud-demo was not found" in err.stderr
    assert "refused: Cloud localcloud-demo was not found." in flow.n.out.getvalue()
    with pytest.raises(life.StepFailed, match="succeeded but must fail"):
        flow.refused("--version")


def test_the_nodes_settings_come_from_the_user_data_the_lite_tier_keeps(flow, tmp_path,
                                                                       monkeypatch):
    """Only the servers of the cluster's own stack are read (Magnum's API and Heat stand in
    here: the cluster's stack and its server ids); a server gone meanwhile is skipped."""
    servers = tmp_path / "state" / "data" / "heat" / "servers"
    servers.mkdir(parents=True)
    (servers / "s1.user_data").write_text(_user_data("k8s_fedora_coreos_v1", "master"))
    (servers / "s2.user_data").write_text("#cloud-config\nwrite_files: []\n")
    (servers / "other.user_data").write_text(_user_data("k8s_fedora_coreos_v1", "worker"))
    monkeypatch.setattr(flow, "show", lambda ident: {"uuid": ident, "cluster_id": "stack-1"})
    monkeypatch.setattr(flow, "stack_servers", lambda stack_id: {
        "stack-1": ["s1", "s2", "gone"]}[stack_id])
    assert life.ClusterLife.server_user_data("gone") is None
    (settings,) = flow.node_settings(ENV["CLUSTER_UUID"])
    assert (settings["NODE_NAME"], settings["NODE_IP"]) == ("c-master-0", "127.10.0.7")
    assert flow.node_settings("another-cluster") == []


def _pair(subject: str, issuer: tuple | None = None, organization: str | None = None):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]
                     + ([x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization)]
                        if organization else []))
    signer_name, signer_key = (issuer[0].subject, issuer[1]) if issuer else (name, key)
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(name).issuer_name(signer_name)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=1))
               .not_valid_after(now + datetime.timedelta(days=1)))
    if issuer is None:
        builder = builder.add_extension(x509.BasicConstraints(ca=True, path_length=None),
                                        critical=True)
    return builder.sign(signer_key, hashes.SHA256()), key


def _pem(cert) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def _kubeconfig(target: Path, ca, client, key, server: str = API) -> dict:
    target.mkdir(parents=True, exist_ok=True)
    (target / "ca.pem").write_text(_pem(ca))
    (target / "cert.pem").write_text(_pem(client))
    (target / "key.pem").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    return {"clusters": [{"cluster": {"server": server, "certificate-authority-data":
                                      base64.b64encode(_pem(ca).encode()).decode()}}]}


def test_a_kubeconfig_passes_only_with_the_api_the_ca_and_a_client_it_signed(flow, tmp_path):
    flow.cluster = {"api_address": API}
    ca = _pair("kubernetes CA")
    client, key = _pair("admin", issuer=ca, organization="system:masters")
    target = tmp_path / "kubeconfig"
    config = _kubeconfig(target, ca[0], client, key)
    flow._verify(target, config, _pem(ca[0]))
    assert "openssl verify -CAfile ca.pem cert.pem -> " in flow.n.out.getvalue()
    with pytest.raises(life.StepFailed, match="kubeconfig server"):
        flow._verify(target, _kubeconfig(target, ca[0], client, key, "https://127.0.0.2:6443"),
                     _pem(ca[0]))
    other = _pair("another CA")
    with pytest.raises(life.StepFailed, match="not the CA `coe ca show` returns"):
        flow._verify(target, config, _pem(other[0]))
    stranger, stranger_key = _pair("admin", issuer=other, organization="system:masters")
    with pytest.raises(life.StepFailed, match="not signed by the CA"):
        flow._verify(target, _kubeconfig(target, ca[0], stranger, stranger_key), _pem(ca[0]))
    viewer, viewer_key = _pair("viewer", issuer=ca)
    with pytest.raises(life.StepFailed, match="must keep the CSR's"):
        flow._verify(target, _kubeconfig(target, ca[0], viewer, viewer_key), _pem(ca[0]))
    _kubeconfig(target, ca[0], client, key)
    (target / "key.pem").write_bytes(stranger_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    with pytest.raises(life.StepFailed, match="does not match key.pem"):
        flow._verify(target, config, _pem(ca[0]))
