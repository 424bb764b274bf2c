"""The node simulator reads a node's settings from the user data every driver renders."""

from __future__ import annotations

import pytest

from drivers.heat import bootstrap, parameters, renderer
from localcloud.helpers import nodeboot

DRIVERS = ["k8s_fedora_coreos_v1", "k8s_ubuntu_v1", "k8s_fedora_atomic_v1"]
ENV = {"CLUSTER_UUID": "5d12f0b4-2f4f-4a4e-9c0d-0c5c1d9f1e01", "IS_MASTER": "true",
       "NODEGROUP_ROLE": "master", "TLS_DISABLED": "false", "KUBE_TAG": "v1.31.4",
       "TRUSTEE_PASSWORD": "it's a 'quoted' $secret", "MAGNUM_URL": "http://127.0.0.1:9511/v1"}


def _user_data(driver: str, role: str) -> str:
    """The user data Nova would get: the rendered file with Heat's str_replace done."""
    text = renderer.render_cluster(driver, parameters.Features()).files[f"userdata-{role}"]
    values = {"BOOTSTRAP_ENV": parameters.encode_env(ENV), "NODE_NAME": "c-master-0",
              "NODE_IP": "127.10.0.7", "NODE_PUBLIC_IP": "127.24.4.21",
              "API_PRIVATE_ADDRESS": "127.10.0.7", "API_PUBLIC_ADDRESS": "127.24.4.21"}
    keys = bootstrap.RUNTIME_KEYS + bootstrap.MASTER_RUNTIME_KEYS + ("BOOTSTRAP_ENV",)
    for key in keys:
        text = text.replace(f"@@{key}@@", values.get(key, ""))
    return text


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_master_is_read_from_its_rendered_user_data(driver):
    node = nodeboot.read_node("server-1", _user_data(driver, "master"))
    assert node is not None and node.cluster == ENV["CLUSTER_UUID"]
    assert node.env["TRUSTEE_PASSWORD"] == ENV["TRUSTEE_PASSWORD"]
    assert (node.name, node.ip, node.master, node.tls, node.port) == (
        "c-master-0", "127.10.0.7", True, True, 6443)
    assert node.api_addresses() == ["127.10.0.7", "127.24.4.21"]


def test_a_server_without_magnum_bootstrap_is_no_node():
    assert nodeboot.read_node("s", "#cloud-config\nwrite_files: []\n") is None
    assert nodeboot.read_node("s", None) is None
    assert nodeboot.read_node("s", "#!/bin/sh\necho hi\n") is None


def test_a_tls_disabled_worker_serves_nothing_and_uses_8080():
    env = dict(ENV, IS_MASTER="false", NODEGROUP_ROLE="worker", TLS_DISABLED="true")
    text = _user_data("k8s_ubuntu_v1", "worker").replace(
        parameters.encode_env(ENV), parameters.encode_env(env))
    node = nodeboot.read_node("s", text)
    assert not node.master and not node.tls and node.port == 8080
