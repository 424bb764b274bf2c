"""Parameter mapping: rows + resources -> Heat parameters and the nodes' bootstrap settings."""

from __future__ import annotations

import base64
import time

import pytest

from drivers.heat import labels as label_table
from drivers.heat import parameters
from drivers.k8s_fedora_coreos_v1.driver import Driver as FcosDriver
from drivers.k8s_ubuntu_v1.driver import Driver as UbuntuDriver
from magnum_common import crypto, exception
from magnum_common.config import CONF
from magnum_common.drivers.view import ClusterView
from tests.unit.drivers import support

PROFILE = FcosDriver.profile


def _build(ct_kw=None, cl_kw=None, masters=1, workers=2, res=None):
    ct = support.template(**(ct_kw or {}))
    cl = support.cluster(ct, **(cl_kw or {}))
    ngs = support.default_nodegroups(cl, masters, workers)
    res = res or support.Resources()
    return res, ct, cl, ngs


def test_cluster_parameters_map_rows_and_resources():
    res, ct, cl, ngs = _build(masters=3, workers=2, cl_kw={"labels": {"kube_tag": "v1.31.2"}})
    keys = parameters.ServiceAccountKeys.generate()
    p = parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs), keys)
    assert p["cluster_uuid"] == cl.uuid
    assert (p["number_of_masters"], p["number_of_minions"]) == (3, 2)
    assert (p["master_flavor"], p["minion_flavor"]) == ("m1.medium", "m1.small")
    assert p["kube_tag"] == p["kube_version"] == p["master_kube_tag"] == "v1.31.2"
    assert p["ssh_key_name"] == "kp" and p["external_network"] == "public"
    assert p["fixed_network_name"] == cl.name and p["fixed_network"] == ""
    assert (p["kubernetes_port"], p["loadbalancing_protocol"]) == (6443, "TCP")
    assert p["pods_network_cidr"] == label_table.resolve()["flannel_network_cidr"]  # default
    assert p["master_generation"] == p["worker_generation"] == 0
    assert p["kube_service_account_key"] == keys.public
    assert base64.b64decode(keys.private).startswith(b"-----BEGIN RSA PRIVATE KEY")
    assert p["etcd_volume_type"] == "" and p["docker_volume_type"] == ""


def test_service_account_keys_are_left_out_when_not_rotating():
    res, ct, cl, ngs = _build()
    p = parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs), None)
    assert "kube_service_account_key" not in p


def test_the_key_reserve_hands_each_key_out_once_and_refills_in_the_background():
    reserve = parameters.KeyReserve(size=2)
    first = reserve.take()  # empty: made on the spot, and the refill starts
    deadline = time.monotonic() + 30
    while reserve.ready() < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert reserve.ready() == 2
    taken = [first, reserve.take(), reserve.take(), reserve.take()]
    numbers = {key.private_numbers().d for key in taken}
    assert len(numbers) == 4 and all(key.key_size == 2048 for key in taken)


def test_service_account_keys_differ_between_creates():
    one, two = parameters.ServiceAccountKeys.generate(), parameters.ServiceAccountKeys.generate()
    assert one.private != two.private and one.public != two.public
    assert base64.b64decode(one.public).startswith(b"-----BEGIN PUBLIC KEY")


def test_bootstrap_env_carries_the_settings_verbatim():
    res, ct, cl, ngs = _build(cl_kw={"labels": {"kubelet_options": "--a=b,c --v=2"}})
    p = parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs), None)
    master = parameters.decode_env(p["master_bootstrap_env"])
    worker = parameters.decode_env(p["worker_bootstrap_env"])
    assert master["TRUSTEE_PASSWORD"] == "s3cr'et \"pw\""
    assert master["KUBELET_OPTIONS"] == "--a=b,c --v=2"
    assert master["AUTH_URL"] == "http://keystone.example:5000/v3"
    assert master["MAGNUM_URL"] == "http://magnum.example:9511/v1"
    assert master["TRUST_ID"] == "trust-1" and master["CLUSTER_UUID"] == cl.uuid
    assert (master["IS_MASTER"], worker["IS_MASTER"]) == ("true", "false")
    assert master["KEYSTONE_AUTH_DEFAULT_POLICY"] and not worker["KEYSTONE_AUTH_DEFAULT_POLICY"]
    assert master["CA_KEY"] == "" and master["CONTAINERD_SOURCE"] == "image"
    assert worker["NODEGROUP_NAME"] == "default-worker"
    assert master["AUTOSCALER_NODES"] == "0:3:default-worker"  # count 2, one more
    assert master["SSH_PUBLIC_KEY"].startswith("ssh-rsa")


class _KeyFromAFile(support.Resources):
    """A keypair uploaded from an id_rsa.pub: Nova keeps the file's trailing newline."""

    def keypair_public_key(self, name: str | None) -> str | None:
        return "ssh-ed25519 AAAAC3Nza leaver@host\r\n"


def test_a_keypair_with_its_files_trailing_newline_becomes_a_one_line_setting():
    res, ct, cl, ngs = _build(res=_KeyFromAFile())
    p = parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs), None)
    master = parameters.decode_env(p["master_bootstrap_env"])
    assert master["SSH_PUBLIC_KEY"] == "ssh-ed25519 AAAAC3Nza leaver@host"


def test_without_cluster_user_trust_nodes_get_a_node_token_and_no_trustee_credential():
    CONF.set_override("cluster_user_trust", False, "trust")
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    res, ct, cl, ngs = _build()
    p = parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs), None)
    for blob in (p["master_bootstrap_env"], p["worker_bootstrap_env"]):
        env = parameters.decode_env(blob)
        assert (env["TRUSTEE_USER_ID"], env["TRUSTEE_PASSWORD"], env["TRUST_ID"]) == ("", "", "")
        assert crypto.check_node_token(cl.uuid, env["NODE_TOKEN"])
        assert env["CLOUD_PROVIDER_ENABLED"] == "false"
    assert "s3cr'et" not in repr(p)
    CONF.set_override("cluster_user_trust", True, "trust")
    env = parameters.decode_env(parameters.cluster_parameters(
        res, PROFILE, ClusterView.of(cl, ct, ngs), None)["master_bootstrap_env"])
    assert env["NODE_TOKEN"] == "" and env["TRUST_ID"] == "trust-1"


@pytest.mark.parametrize("labels", [
    {"cloud_provider_enabled": "true"}, {"cinder_csi_enabled": "True"},
    {"auto_scaling_enabled": "true"}, {"ingress_controller": "octavia"},
    {"auto_healing_enabled": "true", "auto_healing_controller": "magnum-auto-healer"}])
def test_features_needing_the_trust_are_refused_without_it(labels):
    driver = FcosDriver()
    CONF.set_override("cluster_user_trust", False, "trust")
    with pytest.raises(exception.InvalidParameterValue,
                       match=r"\[trust\] cluster_user_trust = false"):
        driver.validate_labels(labels)
    driver.validate_labels({"auto_healing_enabled": "true", "cloud_provider_enabled": "false",
                            "ingress_controller": "nginx"})
    CONF.set_override("cluster_user_trust", True, "trust")
    driver.validate_labels(labels)


def test_tls_disabled_calico_and_proxies():
    res, ct, cl, ngs = _build(ct_kw={"tls_disabled": True, "network_driver": "calico",
                                     "no_proxy": "localhost",
                                     "labels": {"calico_ipv4pool": "127.200.0.0/16",
                                                "fixed_subnet_cidr": "127.10.0.0/24"}})
    p = parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs), None)
    assert (p["kubernetes_port"], p["loadbalancing_protocol"]) == (8080, "HTTP")
    assert p["pods_network_cidr"] == "127.200.0.0/16"
    env = parameters.decode_env(p["master_bootstrap_env"])
    assert env["NO_PROXY"] == "localhost,127.10.0.0/24" and env["TLS_DISABLED"] == "true"
    assert parameters.features(ClusterView.of(cl, ct, ngs)).tls_disabled


def test_lb_allowed_cidrs_get_the_subnet_and_cert_api_ships_the_ca_key():
    res, ct, cl, ngs = _build(cl_kw={"labels": {"master_lb_allowed_cidrs": "127.0.2.0/24",
                                                "fixed_subnet_cidr": "127.10.0.0/24",
                                                "cert_manager_api": "true"}})
    p = parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs), None)
    assert p["master_lb_allowed_cidrs"] == ["127.0.2.0/24", "127.10.0.0/24"]
    env = parameters.decode_env(p["master_bootstrap_env"])
    assert base64.b64decode(env["CA_KEY"]).startswith(b"-----BEGIN RSA")
    assert parameters.decode_env(p["worker_bootstrap_env"])["CA_KEY"] == ""


def test_cloud_provider_rules():
    res, ct, cl, ngs = _build(res=support.Resources(trust_id=None))
    env = parameters.decode_env(
        parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs),
                                      None)["master_bootstrap_env"])
    assert env["CLOUD_PROVIDER_ENABLED"] == "false"
    res, ct, cl, ngs = _build(cl_kw={"labels": {"cloud_provider_enabled": "true"}},
                              res=support.Resources(trust_id=None))
    with pytest.raises(exception.InvalidParameterValue):
        parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs), None)
    res, ct, cl, ngs = _build(ct_kw={"volume_driver": "cinder"},
                              cl_kw={"labels": {"cloud_provider_enabled": "false"}})
    with pytest.raises(exception.InvalidParameterValue):
        parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs), None)


def test_octavia_ingress_needs_octavia():
    res, ct, cl, ngs = _build(cl_kw={"labels": {"ingress_controller": "octavia"}})
    with pytest.raises(exception.InvalidParameterValue):
        parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs), None)
    res.catalog["load-balancer"] = "http://octavia.example:9876"
    env = parameters.decode_env(
        parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs),
                                      None)["master_bootstrap_env"])
    assert env["INGRESS_CONTROLLER"] == "octavia" and env["OCTAVIA_ENABLED"] == "true"


def test_volumes_and_types(monkeypatch):
    from oslo_config import cfg
    cfg.CONF.set_override("default_etcd_volume_type", "fast", group="cinder")
    res, ct, cl, ngs = _build(cl_kw={"labels": {"etcd_volume_size": "5",
                                                "docker_volume_type": "bulk"},
                                     "docker_volume_size": 20})
    p = parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs), None)
    assert (p["etcd_volume_size"], p["etcd_volume_type"]) == (5, "fast")
    assert (p["docker_volume_size"], p["docker_volume_type"]) == (20, "bulk")
    f = parameters.features(ClusterView.of(cl, ct, ngs))
    assert f.etcd_volume and f.worker_docker_volume and f.master_docker_volume
    assert not f.boot_volume


def test_nodegroup_parameters_use_its_labels_but_cluster_only_labels_from_the_cluster():
    res, ct, cl, ngs = _build(cl_kw={"labels": {"kube_tag": "v1.31.1"}})
    ng = support.nodegroup(cl, "gpu", "worker", 2, False, flavor_id="gpu.large",
                           labels={"kube_tag": "v1.31.3", "service_cluster_ip_range":
                                   "127.9.0.0/16", "availability_zone": "az2"},
                           max_node_count=7)
    outputs = {"fixed_network": "net-1", "fixed_subnet": "sub-1",
               "worker_security_group": "sg-1", "api_private_address": "127.0.10.5"}
    view = ClusterView.of(cl, ct, ngs + [ng])
    p = parameters.nodegroup_parameters(res, UbuntuDriver.profile, view, view.nodegroups[-1],
                                        outputs)
    assert (p["nodegroup_name"], p["number_of_minions"], p["minion_flavor"]) == (
        "gpu", 2, "gpu.large")
    assert (p["fixed_network"], p["security_group"], p["api_private_address"]) == (
        "net-1", "sg-1", "127.0.10.5")
    assert p["kube_tag"] == "v1.31.3" and p["availability_zone"] == "az2"
    env = parameters.decode_env(p["bootstrap_env"])
    # a cluster-only label: the cluster's (here the default), not the node group's
    assert env["PORTAL_NETWORK_CIDR"] == label_table.resolve()["service_cluster_ip_range"]
    assert env["NODEGROUP_NAME"] == "gpu" and env["CONTAINERD_SOURCE"] == "package"


def test_features_follow_the_cluster_over_the_template():
    res, ct, cl, ngs = _build(ct_kw={"master_lb_enabled": False, "floating_ip_enabled": True,
                                     "fixed_network": "mynet"},
                              cl_kw={"master_lb_enabled": True, "floating_ip_enabled": False,
                                     "labels": {"master_lb_floating_ip_enabled": "true"}})
    f = parameters.features(ClusterView.of(cl, ct, ngs))
    assert f.master_lb and not f.floating_ip and f.lb_floating_ip and f.existing_network


def test_stacks_record_what_their_workers_registered_with():
    """A digest of node labels and taints rides on the stacks: a PATCH of either is seen."""
    res, ct, cl, ngs = _build()
    worker = ngs[1]
    p = parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs), None)
    assert p["worker_node_labels_digest"] == parameters.NO_NODE_LABELS_DIGEST
    worker.node_labels = {"workload": "web"}
    labelled = parameters.node_labels_digest(worker)
    worker.node_taints = [{"key": "k", "value": "", "effect": "NoSchedule"}]
    tainted = parameters.node_labels_digest(worker)
    assert len({parameters.NO_NODE_LABELS_DIGEST, labelled, tainted}) == 3
    env = parameters.decode_env(
        parameters.cluster_parameters(res, PROFILE, ClusterView.of(cl, ct, ngs),
                                      None)["worker_bootstrap_env"])
    assert (env["NODE_LABELS"], env["NODE_TAINTS"]) == ("workload=web", "k=:NoSchedule")
    extra = support.nodegroup(cl, "gpu", "worker", 1, False, node_labels={"gpu": "yes"})
    view = ClusterView.of(cl, ct, ngs + [extra])
    params = parameters.nodegroup_parameters(res, PROFILE, view, view.nodegroups[-1], {})
    assert params["node_labels_digest"] == parameters.node_labels_digest(extra)
