"""Every Kubernetes label the Heat drivers understand: its default and what values it accepts.

Labels are free-form strings on templates, clusters and node groups. This table is the one
place that says which labels exist, what they default to (Kubernetes 1.31 era) and which
values are acceptable, so the API can refuse a typo before anything is recorded and the
parameter builder never has to guess.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from collections.abc import Iterable, Mapping

from magnum_common import exception

# Kinds of label values.
STR = "str"
BOOL = "bool"
INT = "int"
CIDR = "cidr"
CIDRS = "cidrs"
ENUM = "enum"
VERSION = "version"

_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})
_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)([-+.][0-9A-Za-z.+-]*)?$")


@dataclasses.dataclass(frozen=True)
class Label:
    """One label: its default (``None`` = unset unless the user sets it) and its kind."""

    name: str
    default: str | None
    kind: str = STR
    choices: tuple[str, ...] = ()
    #: Case-insensitive enumerations are compared (and passed on) lower-cased.
    fold_case: bool = False
    #: The oldest release a VERSION label may name (what the node scripts can deploy).
    minimum: tuple[int, int, int] | None = None


def _l(name: str, default: str | None, kind: str = STR, choices: Iterable[str] = (),
       fold_case: bool = False, minimum: tuple[int, int, int] | None = None) -> Label:
    return Label(name, default, kind, tuple(choices), fold_case, minimum)


_ADMISSION = ("NodeRestriction,NamespaceLifecycle,LimitRanger,ServiceAccount,ResourceQuota,"
              "TaintNodesByCondition,Priority,DefaultTolerationSeconds,DefaultStorageClass,"
              "StorageObjectInUseProtection,PersistentVolumeClaimResize,"
              "MutatingAdmissionWebhook,ValidatingAdmissionWebhook,RuntimeClass")

LABELS: dict[str, Label] = {lb.name: lb for lb in (
    # --- Kubernetes core -------------------------------------------------------------------
    _l("kube_tag", "v1.31.4", VERSION),
    _l("hyperkube_prefix", "registry.k8s.io/"),
    _l("container_infra_prefix", ""),
    _l("kube_image_digest", ""),
    _l("admission_control_list", _ADMISSION),
    _l("kube_allow_priv", "true", BOOL),
    _l("kubelet_options", ""),
    _l("kubeapi_options", ""),
    _l("kubeproxy_options", ""),
    _l("kubecontroller_options", ""),
    _l("kubescheduler_options", ""),
    _l("service_cluster_ip_range", "10.254.0.0/16", CIDR),
    _l("dns_service_ip", "10.254.0.10"),
    _l("dns_cluster_domain", "cluster.local"),
    _l("coredns_tag", "1.11.3"),
    _l("system_pods_initial_delay", "30", INT),
    _l("system_pods_timeout", "5", INT),
    _l("cert_manager_api", "false", BOOL),
    _l("keystone_auth_enabled", "true", BOOL),
    _l("k8s_keystone_auth_tag", "v1.31.1"),
    _l("availability_zone", ""),
    _l("selinux_mode", "enforcing", ENUM, ("enforcing", "permissive", "disabled"), True),
    # --- etcd ------------------------------------------------------------------------------
    _l("etcd_tag", "v3.5.16"),
    _l("etcd_volume_size", "0", INT),
    _l("etcd_volume_type", None),
    # --- container runtime -----------------------------------------------------------------
    _l("container_runtime", "containerd", ENUM, ("containerd",), True),
    _l("containerd_version", "1.7.24"),
    _l("containerd_tarball_url", ""),
    _l("containerd_tarball_sha256", ""),
    _l("cgroup_driver", "systemd", ENUM, ("systemd", "cgroupfs"), True),
    _l("use_podman", "true", BOOL),
    _l("docker_volume_type", None),
    _l("boot_volume_size", None, INT),
    _l("boot_volume_type", None),
    # --- networking ------------------------------------------------------------------------
    _l("fixed_subnet_cidr", "10.0.0.0/24", CIDR),
    _l("flannel_tag", "v0.25.7"),
    _l("flannel_cni_tag", "v1.5.1-flannel2"),
    _l("flannel_network_cidr", "10.100.0.0/16", CIDR),
    _l("flannel_network_subnetlen", "24", INT),
    _l("flannel_backend", "vxlan", ENUM, ("vxlan", "host-gw", "wireguard"), True),
    _l("calico_tag", "v3.28.2"),
    _l("calico_ipv4pool", "10.100.0.0/16", CIDR),
    _l("calico_ipv4pool_ipip", "Off", ENUM, ("Always", "CrossSubnet", "Never", "Off")),
    _l("master_lb_floating_ip_enabled", None, BOOL),
    _l("master_lb_allowed_cidrs", "", CIDRS),
    _l("octavia_provider", "amphora"),
    _l("octavia_lb_algorithm", "ROUND_ROBIN", ENUM,
       ("ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT")),
    _l("octavia_lb_healthcheck", "true", BOOL),
    # --- OpenStack integration -------------------------------------------------------------
    _l("cloud_provider_enabled", None, BOOL),
    _l("cloud_provider_tag", "v1.31.1"),
    _l("cinder_csi_enabled", "true", BOOL),
    _l("cinder_csi_plugin_tag", "v1.31.1"),
    _l("csi_attacher_tag", "v4.7.0"),
    _l("csi_provisioner_tag", "v5.1.0"),
    _l("csi_snapshotter_tag", "v8.1.0"),
    _l("csi_resizer_tag", "v1.12.0"),
    _l("csi_node_driver_registrar_tag", "v2.12.0"),
    _l("csi_liveness_probe_tag", "v2.14.0"),
    # --- ingress ---------------------------------------------------------------------------
    _l("ingress_controller", "", ENUM, ("", "octavia", "nginx", "traefik"), True),
    _l("ingress_controller_role", "ingress"),
    _l("octavia_ingress_controller_tag", "v1.31.1"),
    # The node scripts run Traefik with v2/v3 flags; v2 releases before 2.5 predate
    # Kubernetes 1.22, the first to serve Ingresses only as networking.k8s.io/v1.
    _l("traefik_ingress_controller_tag", "v3.2.1", VERSION, minimum=(2, 5, 0)),
    _l("nginx_ingress_controller_tag", "v1.11.3"),
    _l("nginx_ingress_controller_chart_tag", "4.11.3"),
    # --- add-ons ---------------------------------------------------------------------------
    _l("metrics_server_enabled", "true", BOOL),
    _l("metrics_server_chart_tag", "3.12.2"),
    _l("kube_dashboard_enabled", "false", BOOL),
    _l("kube_dashboard_version", "v2.7.0"),
    _l("metrics_scraper_tag", "v1.0.8"),
    _l("influx_grafana_dashboard_enabled", "false", BOOL),
    _l("heapster_enabled", "false", BOOL),
    _l("prometheus_monitoring", "false", BOOL),
    _l("prometheus_tag", "v2.55.1"),
    _l("grafana_tag", "11.3.1"),
    _l("grafana_admin_passwd", "admin"),
    _l("monitoring_enabled", "false", BOOL),
    _l("monitoring_retention_days", "14", INT),
    _l("monitoring_retention_size", "14", INT),
    _l("monitoring_interval_seconds", "30", INT),
    _l("monitoring_storage_class_name", ""),
    _l("monitoring_ingress_enabled", "false", BOOL),
    _l("cluster_basic_auth_secret", ""),
    _l("cluster_root_domain_name", "localhost"),
    _l("prometheus_operator_chart_tag", "66.3.0"),
    _l("prometheus_adapter_enabled", "true", BOOL),
    _l("prometheus_adapter_chart_tag", "4.11.0"),
    _l("prometheus_adapter_configmap", ""),
    _l("helm_client_url", ""),
    _l("helm_client_sha256", ""),
    _l("helm_client_tag", "v3.16.3"),
    _l("npd_enabled", "true", BOOL),
    _l("node_problem_detector_tag", "v0.8.20"),
    _l("heat_container_agent_tag", "wallaby-stable-1"),
    # --- auto healing / scaling ------------------------------------------------------------
    _l("auto_healing_enabled", "false", BOOL),
    _l("auto_healing_controller", "draino", ENUM, ("draino", "magnum-auto-healer"), True),
    _l("magnum_auto_healer_tag", "v1.31.1"),
    _l("draino_tag", "abf028a"),
    _l("auto_scaling_enabled", "false", BOOL),
    _l("autoscaler_tag", "v1.31.0"),
    _l("min_node_count", "0", INT),
    _l("max_node_count", None, INT),
    # --- image-based OSes ------------------------------------------------------------------
    _l("ostree_remote", ""),
    _l("ostree_commit", ""),
)}

#: Labels whose value always comes from the cluster, never from a node group's labels.
CLUSTER_ONLY = frozenset({
    "ingress_controller", "service_cluster_ip_range", "fixed_subnet_cidr",
    "cloud_provider_enabled", "docker_volume_type", "etcd_volume_type", "etcd_volume_size",
    "boot_volume_size", "boot_volume_type", "cert_manager_api", "flannel_network_cidr",
    "calico_ipv4pool", "master_lb_allowed_cidrs", "dns_service_ip", "dns_cluster_domain",
})


def parse_bool(value: str | bool | None, default: bool = False) -> bool:
    """A label's truth value; unset means ``default``."""
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in _TRUE


def parse_version(value: str) -> tuple[int, int, int]:
    """``v1.31.4`` (or ``v1.31.4-rancher1``) -> ``(1, 31, 4)``."""
    match = _VERSION_RE.match(value.strip())
    if not match:
        raise exception.InvalidParameterValue(
            err=f"'{value}' is not a Kubernetes version like v1.31.4.")
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def _invalid(name: str, value: str, expected: str) -> exception.InvalidParameterValue:
    return exception.InvalidParameterValue(
        err=f"Invalid value '{value}' for label {name}: expected {expected}.")


def _check(label: Label, value: str) -> None:
    text = str(value).strip()
    if label.kind == BOOL:
        if text.lower() not in _TRUE | _FALSE:
            raise _invalid(label.name, value, "true or false")
    elif label.kind == INT:
        try:
            if int(text) < 0:
                raise ValueError
        except ValueError:
            raise _invalid(label.name, value, "a non-negative integer") from None
    elif label.kind == CIDR:
        try:
            ipaddress.ip_network(text, strict=False)
        except ValueError:
            raise _invalid(label.name, value, "a CIDR such as 10.0.0.0/24") from None
    elif label.kind == CIDRS:
        for part in filter(None, (p.strip() for p in text.split(","))):
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise _invalid(label.name, value, "comma-separated CIDRs") from None
    elif label.kind == VERSION:
        if not _VERSION_RE.match(text):
            raise _invalid(label.name, value, "a version such as v1.31.4")
        if label.minimum and parse_version(text) < label.minimum:
            oldest = "v" + ".".join(map(str, label.minimum))
            raise _invalid(label.name, value, f"{oldest} or later")
    elif label.kind == ENUM:
        probe = text.lower() if label.fold_case else text
        choices = [c.lower() for c in label.choices] if label.fold_case else label.choices
        if probe not in choices:
            shown = ", ".join(repr(c) for c in label.choices)
            raise _invalid(label.name, value, f"one of {shown}")


def validate(labels: Mapping[str, str] | None) -> None:
    """Refuse values a known label cannot take; unknown labels pass (operators add their own).

    Raises InvalidParameterValue, which the API answers with 400.
    """
    for name, value in (labels or {}).items():
        label = LABELS.get(name)
        if label is None or value is None or (value == "" and label.kind != ENUM):
            continue
        _check(label, value)


def resolve(*layers: Mapping[str, str] | None) -> dict[str, str]:
    """Defaults overlaid by each label layer in turn (later layers win).

    Enumerations that fold case come back lower-cased; unknown labels are kept so operator
    extensions reach the nodes. Unset values are left out.
    """
    result = {name: lb.default for name, lb in LABELS.items() if lb.default is not None}
    for layer in layers:
        for name, value in (layer or {}).items():
            if value is None:
                continue
            label = LABELS.get(name)
            text = str(value)
            if label is not None and label.fold_case:
                text = text.lower()
            result[name] = text
    return result
