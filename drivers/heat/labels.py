"""Every Kubernetes label the Heat drivers understand: its default and what values it accepts.

Labels are free-form strings on templates, clusters and node groups. This table is the one
place that says which labels exist, what they default to (Kubernetes 1.31 era) and which
values are acceptable, so the API can refuse a typo before anything is recorded and the
parameter builder never has to guess.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from magnum_common import exception, grammar
from magnum_common.config import CONF

# Kinds of label values: each is a grammar of magnum_common.grammar (the doc extension shows
# the kind's description).
STR = "str"
BOOL = "bool"
INT = "int"
CIDR = "cidr"
CIDRS = "cidrs"
ENUM = "enum"
VERSION = "version"
TAG = "tag"
URL = "url"
SHA256 = "sha256"
IP = "ip"
DOMAIN = "domain"
ARGS = "args"
OBJECT_NAME = "object-name"
NODE_ROLE = "node-role"
PREFIX = "prefix"
PLUGINS = "plugins"
REF = "ref"

_TRUE = frozenset({"true", "1", "yes", "on"})

#: What each kind accepts (ENUM and VERSION labels build theirs from choices / minimum).
KIND_CHECKS: dict[str, grammar.Check] = {
    STR: grammar.label_value, BOOL: grammar.boolean, INT: grammar.non_negative_int,
    CIDR: grammar.cidr, CIDRS: grammar.cidrs, VERSION: grammar.version, TAG: grammar.tag,
    URL: grammar.http_url, SHA256: grammar.sha256, IP: grammar.ip_address,
    DOMAIN: grammar.domain_name, ARGS: grammar.component_args,
    OBJECT_NAME: grammar.dns_subdomain, NODE_ROLE: grammar.k8s_name,
    PREFIX: grammar.image_prefix, PLUGINS: grammar.plugin_list, REF: grammar.openstack_ref,
}
#: What the label reference says each kind accepts.
KIND_DESCRIPTIONS = {
    BOOL: "true / false", INT: "integer", CIDR: "CIDR", CIDRS: "comma-separated CIDRs",
    VERSION: "version (vX.Y.Z)", TAG: "image / release tag", URL: "http(s) URL",
    SHA256: "sha256 (hex)", IP: "IP address", DOMAIN: "DNS domain",
    ARGS: "command-line options (no quotes, $ ; & | \\ ( ))",
    OBJECT_NAME: "Kubernetes object name", NODE_ROLE: "Kubernetes label value",
    PREFIX: "registry prefix host[:port]/path/", PLUGINS: "comma-separated names",
    REF: "OpenStack name or id", STR: "single-line text",
}


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

    def problem(self, value: str) -> str | None:
        """Why ``value`` is no value of this label (None when it is one)."""
        if self.kind == ENUM:
            return grammar.one_of(*self.choices, fold_case=self.fold_case)(value)
        if self.kind == VERSION and self.minimum:
            return grammar.version_at_least(self.minimum)(value)
        return KIND_CHECKS[self.kind](value)


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
    _l("hyperkube_prefix", "registry.k8s.io/", PREFIX),
    _l("container_infra_prefix", "", PREFIX),
    _l("kube_image_digest", ""),
    _l("admission_control_list", _ADMISSION, PLUGINS),
    _l("kube_allow_priv", "true", BOOL),
    _l("kubelet_options", "", ARGS),
    _l("kubeapi_options", "", ARGS),
    _l("kubeproxy_options", "", ARGS),
    _l("kubecontroller_options", "", ARGS),
    _l("kubescheduler_options", "", ARGS),
    _l("service_cluster_ip_range", "10.254.0.0/16", CIDR),
    _l("dns_service_ip", "10.254.0.10", IP),
    _l("dns_cluster_domain", "cluster.local", DOMAIN),
    _l("coredns_tag", "1.11.3", TAG),
    _l("system_pods_initial_delay", "30", INT),
    _l("system_pods_timeout", "5", INT),
    _l("cert_manager_api", "false", BOOL),
    _l("keystone_auth_enabled", "true", BOOL),
    _l("k8s_keystone_auth_tag", "v1.31.1", TAG),
    _l("availability_zone", "", REF),
    _l("selinux_mode", "enforcing", ENUM, ("enforcing", "permissive", "disabled"), True),
    # --- etcd ------------------------------------------------------------------------------
    _l("etcd_tag", "v3.5.16", TAG),
    _l("etcd_volume_size", "0", INT),
    _l("etcd_volume_type", None, REF),
    # --- container runtime -----------------------------------------------------------------
    _l("container_runtime", "containerd", ENUM, ("containerd",), True),
    _l("containerd_version", "1.7.24", TAG),
    _l("containerd_tarball_url", "", URL),
    _l("containerd_tarball_sha256", "", SHA256),
    _l("cgroup_driver", "systemd", ENUM, ("systemd", "cgroupfs"), True),
    _l("use_podman", "true", BOOL),
    _l("docker_volume_type", None, REF),
    _l("boot_volume_size", None, INT),
    _l("boot_volume_type", None, REF),
    # --- networking ------------------------------------------------------------------------
    _l("fixed_subnet_cidr", "10.0.0.0/24", CIDR),
    _l("flannel_tag", "v0.25.7", TAG),
    _l("flannel_cni_tag", "v1.5.1-flannel2", TAG),
    _l("flannel_network_cidr", "10.100.0.0/16", CIDR),
    _l("flannel_network_subnetlen", "24", INT),
    _l("flannel_backend", "vxlan", ENUM, ("vxlan", "host-gw", "wireguard"), True),
    _l("calico_tag", "v3.28.2", TAG),
    _l("calico_ipv4pool", "10.100.0.0/16", CIDR),
    _l("calico_ipv4pool_ipip", "Off", ENUM, ("Always", "CrossSubnet", "Never", "Off")),
    _l("master_lb_floating_ip_enabled", None, BOOL),
    _l("master_lb_allowed_cidrs", "", CIDRS),
    _l("octavia_provider", "amphora", TAG),
    _l("octavia_lb_algorithm", "ROUND_ROBIN", ENUM,
       ("ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT")),
    _l("octavia_lb_healthcheck", "true", BOOL),
    # --- OpenStack integration -------------------------------------------------------------
    _l("cloud_provider_enabled", None, BOOL),
    _l("cloud_provider_tag", "v1.31.1", TAG),
    _l("cinder_csi_enabled", "true", BOOL),
    _l("cinder_csi_plugin_tag", "v1.31.1", TAG),
    _l("csi_attacher_tag", "v4.7.0", TAG),
    _l("csi_provisioner_tag", "v5.1.0", TAG),
    _l("csi_snapshotter_tag", "v8.1.0", TAG),
    _l("csi_resizer_tag", "v1.12.0", TAG),
    _l("csi_node_driver_registrar_tag", "v2.12.0", TAG),
    _l("csi_liveness_probe_tag", "v2.14.0", TAG),
    # --- ingress ---------------------------------------------------------------------------
    _l("ingress_controller", "", ENUM, ("", "octavia", "nginx", "traefik"), True),
    _l("ingress_controller_role", "ingress", NODE_ROLE),
    _l("octavia_ingress_controller_tag", "v1.31.1", TAG),
    # The node scripts run Traefik with v2/v3 flags; v2 releases before 2.5 predate
    # Kubernetes 1.22, the first to serve Ingresses only as networking.k8s.io/v1.
    _l("traefik_ingress_controller_tag", "v3.2.1", VERSION, minimum=(2, 5, 0)),
    _l("nginx_ingress_controller_tag", "v1.11.3", TAG),
    _l("nginx_ingress_controller_chart_tag", "4.11.3", TAG),
    # --- add-ons ---------------------------------------------------------------------------
    _l("metrics_server_enabled", "true", BOOL),
    _l("metrics_server_chart_tag", "3.12.2", TAG),
    _l("kube_dashboard_enabled", "false", BOOL),
    _l("kube_dashboard_version", "v2.7.0", TAG),
    _l("metrics_scraper_tag", "v1.0.8", TAG),
    _l("influx_grafana_dashboard_enabled", "false", BOOL),
    _l("heapster_enabled", "false", BOOL),
    _l("prometheus_monitoring", "false", BOOL),
    _l("prometheus_tag", "v2.55.1", TAG),
    _l("grafana_tag", "11.3.1", TAG),
    _l("grafana_admin_passwd", "admin"),
    _l("monitoring_enabled", "false", BOOL),
    _l("monitoring_retention_days", "14", INT),
    _l("monitoring_retention_size", "14", INT),
    _l("monitoring_interval_seconds", "30", INT),
    _l("monitoring_storage_class_name", "", OBJECT_NAME),
    _l("monitoring_ingress_enabled", "false", BOOL),
    _l("cluster_basic_auth_secret", "", OBJECT_NAME),
    _l("cluster_root_domain_name", "localhost", DOMAIN),
    _l("prometheus_operator_chart_tag", "66.3.0", TAG),
    _l("prometheus_adapter_enabled", "true", BOOL),
    _l("prometheus_adapter_chart_tag", "4.11.0", TAG),
    _l("prometheus_adapter_configmap", "", OBJECT_NAME),
    _l("helm_client_url", "", URL),
    _l("helm_client_sha256", "", SHA256),
    _l("helm_client_tag", "v3.16.3", TAG),
    _l("npd_enabled", "true", BOOL),
    _l("node_problem_detector_tag", "v0.8.20", TAG),
    _l("heat_container_agent_tag", "wallaby-stable-1", TAG),
    # --- auto healing / scaling ------------------------------------------------------------
    _l("auto_healing_enabled", "false", BOOL),
    _l("auto_healing_controller", "draino", ENUM, ("draino", "magnum-auto-healer"), True),
    _l("magnum_auto_healer_tag", "v1.31.1", TAG),
    _l("draino_tag", "abf028a", TAG),
    _l("auto_scaling_enabled", "false", BOOL),
    _l("autoscaler_tag", "v1.31.0", TAG),
    _l("min_node_count", "0", INT),
    _l("max_node_count", None, INT),
    # --- image-based OSes ------------------------------------------------------------------
    _l("ostree_remote", ""),
    _l("ostree_commit", ""),
)}

#: The labels the node scripts read: the only ones a node's environment gets (upper-cased).
#: Every other label, known or an operator's own, stays with the API and the stack.
NODE_ENV = frozenset({
    "admission_control_list", "auto_healing_controller", "auto_healing_enabled",
    "auto_scaling_enabled", "autoscaler_tag", "calico_ipv4pool_ipip", "calico_tag",
    "cgroup_driver", "cinder_csi_enabled", "cinder_csi_plugin_tag", "cloud_provider_enabled",
    "cloud_provider_tag", "containerd_tarball_sha256", "containerd_tarball_url",
    "containerd_version", "container_infra_prefix", "coredns_tag", "dns_cluster_domain",
    "dns_service_ip", "draino_tag", "etcd_tag", "flannel_backend", "flannel_network_subnetlen",
    "flannel_tag", "helm_client_sha256", "helm_client_tag", "helm_client_url",
    "hyperkube_prefix", "ingress_controller", "ingress_controller_role",
    "k8s_keystone_auth_tag", "keystone_auth_enabled", "kubeapi_options",
    "kubecontroller_options", "kubelet_options", "kubescheduler_options", "kube_allow_priv",
    "kube_dashboard_enabled", "kube_dashboard_version", "kube_tag", "magnum_auto_healer_tag",
    "metrics_server_chart_tag", "metrics_server_enabled", "nginx_ingress_controller_tag",
    "node_problem_detector_tag", "npd_enabled", "octavia_ingress_controller_tag",
    "octavia_provider", "selinux_mode", "traefik_ingress_controller_tag",
})

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
    parsed = grammar.parse_version(value)
    if parsed is None:
        raise exception.InvalidParameterValue(
            err=f"'{value}' is not a Kubernetes version like v1.31.4.")
    return parsed


def problem(name: str, value: str | None) -> str | None:
    """Why ``value`` cannot be label ``name`` (None when it can, or the label is unknown)."""
    label = LABELS.get(name)
    if label is None or value is None or (value == "" and label.kind != ENUM):
        return None
    return label.problem(str(value))


def validate(labels: Mapping[str, str] | None) -> None:
    """Refuse values a known label cannot take; unknown labels pass (operators add their own,
    they are stored and shown but never reach a node).

    Raises InvalidParameterValue, which the API answers with 400.
    """
    for name, value in (labels or {}).items():
        reason = problem(name, value)
        if reason:
            raise exception.InvalidParameterValue(
                err=f"Invalid value {value!r} for label {name}: {reason}.")


#: Features that call OpenStack from inside the cluster with the trustee's credentials and
#: the trust (boolean labels; plus the Octavia ingress controller and magnum-auto-healer).
NEEDS_TRUST = ("cloud_provider_enabled", "cinder_csi_enabled", "auto_scaling_enabled")


def trust_features(labels: Mapping[str, str] | None) -> list[str]:
    """The features ``labels`` turn on that need the trust on the nodes."""
    labels = labels or {}
    found = [f"{name}=true" for name in NEEDS_TRUST if parse_bool(labels.get(name))]
    if str(labels.get("ingress_controller", "")).lower() == "octavia":
        found.append("ingress_controller=octavia")
    if parse_bool(labels.get("auto_healing_enabled")) and str(
            labels.get("auto_healing_controller", "")).lower() == "magnum-auto-healer":
        found.append("auto_healing_controller=magnum-auto-healer")
    return found


def trust_roles_features(labels: Mapping[str, str] | None,
                         volume_driver: str | None) -> list[str]:
    """The features of resolved ``labels`` whose roles the trust delegates
    (``magnum_common.trust_roles``). The cloud provider is on by default when the nodes hold
    the trust, as ``parameters`` renders it; Cinder CSI runs with it (or for volume_driver
    cinder)."""
    labels = labels or {}
    found = []
    cloud_provider = parse_bool(labels.get("cloud_provider_enabled"),
                                CONF.trust.cluster_user_trust)
    if cloud_provider:
        found.append("cloud_provider")
    if (cloud_provider and parse_bool(labels.get("cinder_csi_enabled"))) or (
            volume_driver or "") == "cinder":
        found.append("cinder_csi")
    if parse_bool(labels.get("auto_scaling_enabled")):
        found.append("autoscaler")
    named = trust_features(labels)
    if "ingress_controller=octavia" in named:
        found.append("octavia_ingress")
    if "auto_healing_controller=magnum-auto-healer" in named:
        found.append("auto_healer")
    return found


def check_trust(labels: Mapping[str, str] | None) -> None:
    """Refuse the features that need the trust on the nodes when the deployment gives the
    nodes none (``[trust] cluster_user_trust = false``): InvalidParameterValue (400)."""
    found = [] if CONF.trust.cluster_user_trust else trust_features(labels)
    if found:
        raise exception.InvalidParameterValue(
            err=f"Label {found[0]} needs the cluster's nodes to hold the trust, which this "
            "deployment does not give them ([trust] cluster_user_trust = false).")


def resolve(*layers: Mapping[str, str] | None) -> dict[str, str]:
    """Defaults overlaid by each label layer in turn (later layers win).

    Enumerations that fold case come back lower-cased; unknown labels are kept (operators'
    own labels, read by the Heat templates' logic but never exported to a node). Unset
    values are left out.
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
