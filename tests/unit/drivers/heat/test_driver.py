"""The shared Kubernetes Heat driver: registry, validation, removals, upgrades, monitoring."""

from __future__ import annotations

import pytest

from drivers.heat import driver as heat_driver
from drivers.heat import upgrade
from drivers.heat.monitor import K8sMonitor
from magnum_common import exception
from magnum_common.drivers import registry
from magnum_common.drivers.view import ClusterView
from tests.unit.drivers import support


@pytest.mark.parametrize("os_distro,name", [("fedora-coreos", "k8s_fedora_coreos_v1"),
                                            ("ubuntu", "k8s_ubuntu_v1"),
                                            ("fedora-atomic", "k8s_fedora_atomic_v1")])
def test_registry_finds_each_driver_by_its_tuple(os_distro, name):
    driver = registry.get_driver("vm", os_distro, "kubernetes")
    assert driver.get_driver_type() == name
    assert registry.get_driver("vm", "other", "kubernetes", name) is driver


def test_validate_labels_goes_through_the_label_table():
    driver = registry.get_driver("vm", "ubuntu", "kubernetes")
    driver.validate_labels({"ingress_controller": "nginx"})
    with pytest.raises(exception.InvalidParameterValue):
        driver.validate_labels({"ingress_controller": "envoy"})


def test_master_resize_is_refused():
    driver = registry.get_driver("vm", "ubuntu", "kubernetes")
    with pytest.raises(exception.MasterNGResizeNotSupported):
        driver.validate_master_resize(3)


def test_removal_list_translates_names_and_refuses_strangers():
    servers = {"c-abc-default-worker-0": "0", "c-abc-default-worker-3": "3"}
    uuid = "0b8e6a4c-1d6f-4f4f-9a53-2a9c1c1c1c1c"
    assert heat_driver.removal_list(servers, ["c-abc-default-worker-3", "1", uuid]) == [
        "3", "1", uuid]
    assert heat_driver.removal_list({}, ["elsewhere-node-7"]) == ["7"]
    with pytest.raises(exception.InvalidParameterValue):
        heat_driver.removal_list(servers, ["no-such-node"])


def test_stack_ids_map_default_groups_to_the_cluster_stack():
    ct = support.template()
    cl = support.cluster(ct, stack_id="cluster-stack")
    ngs = support.default_nodegroups(cl)
    extra = support.nodegroup(cl, "gpu", "worker", 1, False, stack_id="ng-stack")
    pending = support.nodegroup(cl, "new", "worker", 1, False)
    driver = registry.get_driver("vm", "fedora-coreos", "kubernetes")
    assert driver.stack_ids(ClusterView.of(cl, support.template(), ngs + [extra, pending])) == {
        ngs[0].uuid: "cluster-stack", ngs[1].uuid: "cluster-stack", extra.uuid: "ng-stack"}


def test_stack_names_are_those_find_stacks_looks_for():
    from drivers.heat import stack_ops

    ct = support.template()
    cl = support.cluster(ct)
    ngs = support.default_nodegroups(cl)
    extra = support.nodegroup(cl, "gpu", "worker", 1, False)
    driver = registry.get_driver("vm", "fedora-coreos", "kubernetes")
    names = driver.stack_names(ClusterView.of(cl, ct, ngs + [extra]))
    assert names[ngs[0].uuid] == names[ngs[1].uuid] == stack_ops.cluster_stack_name(cl)
    assert names[extra.uuid] == stack_ops.nodegroup_stack_name(cl, extra)


def test_a_sent_stack_create_can_land_for_its_timeouts_and_back_offs():
    from oslo_config import cfg

    conf = cfg.CONF
    conf.set_override("timeout", 30, "heat_client")
    conf.set_override("heat_attempts", 3, "conductor")
    conf.set_override("heat_backoff_max", 5, "conductor")
    driver = registry.get_driver("vm", "fedora-coreos", "kubernetes")
    assert driver.stack_create_window() == 30 * 3 + 5 * 2


def test_monitor_is_skipped_when_magnum_auto_healer_heals():
    driver = registry.get_driver("vm", "fedora-coreos", "kubernetes")
    ct = support.template()
    cl = support.cluster(ct, labels={"auto_healing_enabled": "true",
                                     "auto_healing_controller": "magnum-auto-healer"},
                         api_address="https://127.0.10.4:6443")
    assert driver.get_monitor(support.Resources(), ClusterView.of(cl, ct, ())) is None
    cl.labels = {"auto_healing_enabled": "true", "auto_healing_controller": "draino"}
    monitor = driver.get_monitor(support.Resources(certificates=("a", "b", "c")),
                                 ClusterView.of(cl, ct, ()))
    assert isinstance(monitor, K8sMonitor) and monitor.certificates == ("a", "b", "c")


def test_upgrade_rules():
    upgrade.check_version("v1.31.4", "v1.32.0")
    upgrade.check_version("v1.31.4", "v1.31.4")
    upgrade.check_version(None, "v1.30.0")
    with pytest.raises(exception.InvalidParameterValue):
        upgrade.check_version("v1.31.4", "v1.30.9")
    assert (upgrade.next_generation("2"), upgrade.next_generation(None)) == (3, 1)


def test_upgraded_labels_take_versions_from_the_new_template():
    ct = support.template()
    cl = support.cluster(ct, labels={"kube_tag": "v1.30.1", "etcd_volume_size": "5",
                                     "ingress_controller": "nginx"})
    new = support.template(labels={"kube_tag": "v1.31.4", "etcd_volume_size": "1",
                                   "ingress_controller": "octavia", "npd_enabled": "false"})
    labels = upgrade.upgraded_labels(cl, new)
    assert labels == {"kube_tag": "v1.31.4", "etcd_volume_size": "5",
                      "ingress_controller": "nginx", "npd_enabled": "false"}
