"""The label table: defaults of the 1.31 era, validation of enumerated and typed labels."""

from __future__ import annotations

import pytest

from drivers.heat import labels
from magnum_common import exception

# Labels named in the seeds' label table and the internals' defaults table.
SEED_LABELS = (
    "kube_tag", "container_runtime", "etcd_tag", "coredns_tag", "calico_tag", "flannel_tag",
    "cloud_provider_enabled", "cloud_provider_tag", "cinder_csi_enabled",
    "cinder_csi_plugin_tag", "autoscaler_tag", "auto_scaling_enabled", "auto_healing_enabled",
    "auto_healing_controller", "master_lb_floating_ip_enabled", "ingress_controller",
    "metrics_server_enabled", "cert_manager_api", "flannel_network_cidr", "flannel_backend",
    "flannel_network_subnetlen", "system_pods_initial_delay", "system_pods_timeout",
    "admission_control_list", "prometheus_monitoring", "grafana_admin_passwd",
    "kube_dashboard_enabled", "etcd_volume_size", "ingress_controller_role",
    "octavia_ingress_controller_tag", "kubelet_options", "kubeapi_options",
    "kubeproxy_options", "kubecontroller_options", "kubescheduler_options",
    "influx_grafana_dashboard_enabled", "master_lb_allowed_cidrs", "octavia_provider",
    "octavia_lb_algorithm", "octavia_lb_healthcheck", "hyperkube_prefix",
    "container_infra_prefix", "availability_zone", "cgroup_driver", "containerd_version",
    "containerd_tarball_url", "containerd_tarball_sha256", "calico_ipv4pool",
    "calico_ipv4pool_ipip", "csi_attacher_tag", "csi_provisioner_tag", "csi_snapshotter_tag",
    "csi_resizer_tag", "csi_node_driver_registrar_tag", "csi_liveness_probe_tag",
    "flannel_cni_tag", "prometheus_tag", "grafana_tag", "heat_container_agent_tag",
    "keystone_auth_enabled", "k8s_keystone_auth_tag", "heapster_enabled",
    "metrics_server_chart_tag", "monitoring_enabled", "monitoring_retention_days",
    "monitoring_retention_size", "monitoring_interval_seconds",
    "monitoring_storage_class_name", "monitoring_ingress_enabled",
    "cluster_basic_auth_secret", "cluster_root_domain_name", "prometheus_operator_chart_tag",
    "prometheus_adapter_enabled", "prometheus_adapter_chart_tag",
    "prometheus_adapter_configmap", "selinux_mode", "helm_client_url", "helm_client_sha256",
    "helm_client_tag", "traefik_ingress_controller_tag", "node_problem_detector_tag",
    "nginx_ingress_controller_tag", "nginx_ingress_controller_chart_tag",
    "magnum_auto_healer_tag", "draino_tag", "min_node_count", "max_node_count", "npd_enabled",
    "ostree_remote", "ostree_commit", "use_podman", "kube_image_digest", "metrics_scraper_tag",
    "service_cluster_ip_range", "fixed_subnet_cidr", "docker_volume_type", "etcd_volume_type",
    "boot_volume_size", "boot_volume_type", "kube_allow_priv", "kube_dashboard_version",
    "dns_service_ip", "dns_cluster_domain",
)


@pytest.mark.parametrize("name", SEED_LABELS)
def test_every_documented_label_is_known(name):
    assert name in labels.LABELS


@pytest.mark.parametrize("name,minor", [
    ("kube_tag", (1, 31)), ("cloud_provider_tag", (1, 31)), ("cinder_csi_plugin_tag", (1, 31)),
    ("autoscaler_tag", (1, 31)), ("etcd_tag", (3, 5)), ("calico_tag", (3, 28)),
    ("flannel_tag", (0, 25)), ("coredns_tag", (1, 11)),
])
def test_defaults_are_of_the_kubernetes_1_31_era(name, minor):
    assert labels.parse_version(labels.LABELS[name].default)[:2] == minor


@pytest.mark.parametrize("name,value", [
    ("ingress_controller", "haproxy"), ("auto_healing_controller", "kured"),
    ("cgroup_driver", "none"), ("container_runtime", "host-docker"),
    ("flannel_backend", "udp"), ("calico_ipv4pool_ipip", "sometimes"),
    ("octavia_lb_algorithm", "RANDOM"), ("selinux_mode", "strict"),
    ("cert_manager_api", "maybe"), ("etcd_volume_size", "-1"), ("etcd_volume_size", "big"),
    ("flannel_network_cidr", "127.100.0.0/33"), ("master_lb_allowed_cidrs", "127.2.3.0/24,x"),
    ("kube_tag", "latest"),
    # Releases the node scripts cannot run: v1 has other flags, pre-2.5 predates k8s 1.22.
    ("traefik_ingress_controller_tag", "v1.7.28"), ("traefik_ingress_controller_tag", "v2.4.0"),
])
def test_invalid_values_are_refused_with_a_400(name, value):
    with pytest.raises(exception.InvalidParameterValue) as err:
        labels.validate({name: value})
    assert err.value.code == 400 and name in str(err.value)


@pytest.mark.parametrize("name,value", [
    ("ingress_controller", "Octavia"), ("ingress_controller", ""),
    ("auto_healing_controller", "magnum-auto-healer"), ("cgroup_driver", "CGROUPFS"),
    ("calico_ipv4pool_ipip", "CrossSubnet"), ("cert_manager_api", "True"),
    ("etcd_volume_size", "10"), ("master_lb_allowed_cidrs", "127.2.3.0/24, 127.64.0.0/10"),
    ("kube_tag", "v1.30.2-rancher1"), ("my_operator_label", "anything"),
    ("traefik_ingress_controller_tag", "v2.5.0"), ("traefik_ingress_controller_tag", "3.2.1"),
    ("boot_volume_size", ""),
])
def test_valid_and_unknown_values_pass(name, value):
    labels.validate({name: value})


def test_resolve_layers_later_wins_and_folds_case():
    resolved = labels.resolve({"kube_tag": "v1.30.0", "ingress_controller": "NGINX"},
                              {"kube_tag": "v1.31.1", "extra": "kept", "etcd_tag": None})
    assert resolved["kube_tag"] == "v1.31.1"
    assert resolved["ingress_controller"] == "nginx"
    assert resolved["extra"] == "kept"
    assert resolved["etcd_tag"] == labels.LABELS["etcd_tag"].default
    assert "max_node_count" not in resolved


def test_parse_bool_and_version():
    assert labels.parse_bool("TRUE") and not labels.parse_bool("off")
    assert labels.parse_bool(None, default=True)
    assert labels.parse_version("v1.31.4") < labels.parse_version("1.32.0")
    with pytest.raises(exception.InvalidParameterValue):
        labels.parse_version("one.two")


def test_trust_role_features_follow_the_labels_as_rendered():
    """The drivers' conftest gives nodes the trust: the cloud provider is on by default."""
    resolved = labels.resolve({})
    assert labels.trust_roles_features(resolved, None) == ["cloud_provider", "cinder_csi"]
    off = labels.resolve({"cloud_provider_enabled": "false"})
    assert labels.trust_roles_features(off, None) == []
    assert labels.trust_roles_features(off, "cinder") == ["cinder_csi"]
    every = labels.resolve({"auto_scaling_enabled": "true", "ingress_controller": "octavia",
                            "auto_healing_enabled": "true",
                            "auto_healing_controller": "magnum-auto-healer"})
    assert labels.trust_roles_features(every, None) == [
        "cloud_provider", "cinder_csi", "autoscaler", "octavia_ingress", "auto_healer"]
