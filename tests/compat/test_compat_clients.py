"""python-magnumclient 5.0.0 and ``openstack coe`` against a running magnum-api (noauth).

Every command of the client contract (API reference, section 9.2) is run through the real
CLI; the conductor side is the RPC recorder, which answers CA / signing calls and stands in
for the conductor's status changes where a command needs a finished cluster.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from magnumclient import client as magnum_client

from magnum_common import states
from magnum_common.db.clusters import clusters
from magnum_common.db.services import magnum_services
from tests.functional.api import support

OPENSTACK = os.path.join(os.path.dirname(sys.executable), "openstack")
# `coe cluster config` reads $SHELL; CI runners may start without one.
CLI_ENV = {**os.environ, "SHELL": os.environ.get("SHELL", "/bin/sh")}


def coe(env, *args: str, fmt: bool = True, check: bool = True):
    cmd = [OPENSTACK, "--os-auth-type", "none", "--os-endpoint", env["url"] + "/v1", "coe",
           *args]
    if fmt:
        cmd += ["-f", "json"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=CLI_ENV)
    if check and out.returncode != 0:
        raise AssertionError(f"{' '.join(args)} failed: {out.stdout}\n{out.stderr}")
    if not fmt:
        return out
    text = out.stdout
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    return json.loads(text[min(starts):]) if starts else None


def settle(uuid: str, status: str = states.CREATE_COMPLETE) -> None:
    """Wait for the recorder to take the operation, then finish it as a conductor would."""
    deadline = time.monotonic() + 15
    while clusters.get_by_uuid(None, uuid).operation and time.monotonic() < deadline:
        time.sleep(0.05)
    clusters.update(None, uuid, {"status": status, "api_address": "https://127.0.0.5:6443",
                                 "stack_id": "stack-1"})


def accepted(out) -> str:
    """The UUID a create's "Request to create cluster <uuid> accepted" names."""
    assert "Request to create cluster" in out.stdout and "accepted" in out.stdout
    return out.stdout.split("cluster ")[1].split(" ")[0]


@pytest.fixture(scope="module")
def flow(compat_env):
    """A template and a settled cluster made for the tests below, once per worker: every
    test works on them or on objects of its own, so it passes whichever of the others ran
    before it on its worker (xdist may split the module anywhere)."""
    compat_env["configure"]()  # set up before the autouse fixture configures the test
    template = coe(compat_env, "cluster", "template", "create", "shared", "--coe",
                   "kubernetes", "--image", support.IMAGE_ID, "--external-network", "public",
                   "--flavor", "m1.small", "--master-flavor", "m1.medium", "--keypair", "kp",
                   "--labels", "kube_tag=v1.30.4,x=y")
    cluster = accepted(coe(compat_env, "cluster", "create", "c1", "--cluster-template",
                           "shared", "--node-count", "2", fmt=False))
    settle(cluster)
    return {"template": template["uuid"], "cluster": cluster}


def test_template_commands(compat_env):
    created = coe(compat_env, "cluster", "template", "create", "k8s", "--coe", "kubernetes",
                  "--image", support.IMAGE_ID, "--external-network", "public",
                  "--flavor", "m1.small", "--master-flavor", "m1.medium", "--keypair", "kp",
                  "--labels", "kube_tag=v1.30.4", "--tags", "a,b,a")
    assert created["name"] == "k8s" and created["labels"] == {"kube_tag": "v1.30.4"}
    assert set(created["tags"].split(",")) == {"a", "b"}
    assert created["dns_nameserver"] == "8.8.8.8"
    assert created["cluster_distro"] == "fedora-coreos"
    assert created["driver"] == "k8s_fedora_coreos_v1"
    assert len(coe(compat_env, "cluster", "template", "list", "--limit", "1")) == 1
    listed = coe(compat_env, "cluster", "template", "list")
    assert created["uuid"] in [t["uuid"] for t in listed]
    shown = coe(compat_env, "cluster", "template", "show", "k8s")
    assert shown["uuid"] == created["uuid"]
    updated = coe(compat_env, "cluster", "template", "update", "k8s",
                  "--docker-volume-size", "7", "--label", "x=y")
    assert updated["docker_volume_size"] == 7
    spare = coe(compat_env, "cluster", "template", "create", "spare", "--coe", "kubernetes",
                "--image", support.IMAGE_ID, "--external-network", "public")
    out = coe(compat_env, "cluster", "template", "delete", spare["uuid"], fmt=False)
    assert "has been accepted" in out.stdout
    bad = coe(compat_env, "cluster", "template", "create", "bad", "--coe", "kubernetes",
              "--image", "missing", "--external-network", "public", fmt=False, check=False)
    assert "Image missing could not be found (HTTP 400)" in bad.stderr


def test_cluster_commands(compat_env, flow):
    uuid = accepted(coe(compat_env, "cluster", "create", "c2", "--cluster-template",
                        "shared", "--node-count", "2", "--labels", "x=z", "--merge-labels",
                        fmt=False))
    settle(uuid)
    listed = {c["uuid"]: c for c in coe(compat_env, "cluster", "list")}
    assert listed[uuid]["node_count"] == 2
    shown = coe(compat_env, "cluster", "show", "c2")
    assert shown["cluster_id"] == "stack-1" and shown["labels"]["x"] == "z"
    assert shown["labels_overridden"] == {"x": "y"}
    coe(compat_env, "cluster", "update", "c2", "--node-count", "3", fmt=False)
    settle(uuid, states.UPDATE_COMPLETE)
    refused = coe(compat_env, "cluster", "update", "c2", "--name", "x", fmt=False,
                  check=False)
    assert "cannot change cluster property(ies) name" in refused.stderr
    out = coe(compat_env, "cluster", "resize", "c2", "4", fmt=False)
    assert out.returncode == 0
    settle(uuid, states.UPDATE_COMPLETE)
    coe(compat_env, "cluster", "upgrade", "c2", "shared", "--max-batch-size", "1",
        fmt=False)
    settle(uuid, states.UPDATE_COMPLETE)
    methods = [c["method"] for c in compat_env["recorder"].calls]
    for method in ("cluster_create", "cluster_update", "cluster_resize", "cluster_upgrade"):
        assert method in methods


def test_nodegroup_commands(compat_env, flow):
    cluster = flow["cluster"]
    created = coe(compat_env, "nodegroup", "create", "c1", "ng1", "--node-count", "2",
                  "--max-nodes", "5", "--node-labels", "gpu=yes",
                  "--node-taints", "gpu=yes:NoSchedule", fmt=False)
    assert "Request to create nodegroup" in created.stdout
    settle(cluster, states.UPDATE_COMPLETE)
    listed = coe(compat_env, "nodegroup", "list", "c1")
    assert {ng["name"] for ng in listed} == {"default-master", "default-worker", "ng1"}
    workers = coe(compat_env, "nodegroup", "list", "c1", "--role", "master")
    assert [ng["name"] for ng in workers] == ["default-master"]
    shown = coe(compat_env, "nodegroup", "show", "c1", "ng1")
    assert shown["node_labels"] == {"gpu": "yes"} and shown["max_node_count"] == 5
    assert shown["node_taints"] == [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]
    coe(compat_env, "nodegroup", "update", "c1", "ng1", "--max-nodes", "6", fmt=False)
    settle(cluster, states.UPDATE_COMPLETE)
    out = coe(compat_env, "nodegroup", "delete", "c1", "ng1", fmt=False)
    assert out.returncode == 0
    settle(cluster, states.UPDATE_COMPLETE)  # the next steps start from a settled cluster


def _csr(path) -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    csr = x509.CertificateSigningRequestBuilder().subject_name(x509.Name([
        x509.NameAttribute(NameOID.COMMON_NAME, "admin")])).sign(key, hashes.SHA256())
    path.write_bytes(csr.public_bytes(serialization.Encoding.PEM))
    return str(path)


def test_ca_credential_and_config_commands(compat_env, flow, tmp_path):
    cluster = flow["cluster"]
    out = coe(compat_env, "ca", "show", "c1", fmt=False)
    assert support.CA_PEM in out.stdout
    out = coe(compat_env, "ca", "sign", "c1", _csr(tmp_path / "csr.pem"), fmt=False)
    assert support.SIGNED_PEM in out.stdout
    coe(compat_env, "ca", "rotate", "c1", fmt=False)
    settle(cluster, states.UPDATE_COMPLETE)
    out = coe(compat_env, "credential", "rotate", "c1", fmt=False)
    assert out.returncode == 0
    settle(cluster, states.UPDATE_COMPLETE)
    out = coe(compat_env, "cluster", "config", "c1", "--dir", str(tmp_path), fmt=False)
    assert "export KUBECONFIG=" in out.stdout
    kubeconfig = (tmp_path / "config").read_text()
    assert "server: https://127.0.0.5:6443" in kubeconfig


def test_quota_stats_service_commands(compat_env):
    def run(*args):
        return coe(compat_env, *args, fmt=False).stdout

    assert "5" in run("quotas", "create", "--project-id", "noauth-project", "--resource",
                      "Cluster", "--hard-limit", "5")
    assert "7" in run("quotas", "update", "--project-id", "noauth-project", "--resource",
                      "Cluster", "--hard-limit", "7")
    shown = run("quotas", "show", "--project-id", "noauth-project", "--resource", "Cluster")
    assert "hard_limit" in shown and "7" in shown
    assert "noauth-project" in run("quotas", "list", "--all-tenants")
    run("quotas", "delete", "--project-id", "noauth-project", "--resource", "Cluster")
    stats = run("stats", "list", "noauth-project")
    assert "clusters" in stats and "nodes" in stats
    magnum_services.heartbeat("conductor-host", "magnum-conductor")
    services = run("service", "list")
    assert "conductor-host" in services and "up" in services


def test_library_client_and_delete(compat_env, flow):
    """The library as Horizon / scripts use it: no microversion header (1.1 semantics)."""
    lib = magnum_client.Client("1", endpoint_override=compat_env["url"] + "/v1",
                               auth_token="noauth")
    detail = {c.uuid: c for c in lib.clusters.list(detail=True)}
    assert detail[flow["cluster"]].stack_id == "stack-1"
    assert flow["template"] in [t.uuid for t in lib.cluster_templates.list()]
    assert lib.certificates.get(cluster_uuid=flow["cluster"]).pem == support.CA_PEM
    doomed = accepted(coe(compat_env, "cluster", "create", "c3", "--cluster-template",
                          "shared", fmt=False))
    settle(doomed)
    out = coe(compat_env, "cluster", "delete", "c3", fmt=False)
    assert out.returncode == 0
    deadline = time.monotonic() + 15
    while not any(c["method"] == "cluster_delete" for c in compat_env["recorder"].calls):
        assert time.monotonic() < deadline
        time.sleep(0.05)
