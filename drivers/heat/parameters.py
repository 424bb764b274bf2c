"""Translate a cluster's view (cluster, template, node groups) into Heat parameters and
node settings.

Two outputs per stack: the Heat parameters the templates consume (counts, flavors, images,
networks, volumes, versions) and, per node role, a *bootstrap environment*: the settings the
node scripts read (credentials, endpoints, the labels they use). Only names the driver
chooses reach that environment (the labels of ``labels.NODE_ENV``, never a key a tenant
made up), every tenant value in it has passed its grammar (``magnum_common.grammar``) once
more, and the node reads it as data, never as shell. The environment travels
base64-encoded as one hidden parameter, so the rendered template stays a fixed function of
the cluster's shape.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os
import threading
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from drivers.heat import labels as label_table
from drivers.heat.conf import CONF
from drivers.heat.profile import OsProfile
from magnum_common import crypto, exception, grammar
from magnum_common.drivers import settings
from magnum_common.drivers.base import ClusterResources, TrusteeCredentials
from magnum_common.drivers.view import ClusterRow, ClusterView, NodeGroupRow, TemplateRow

#: The API server's TLS port: every node component (kubelet, kube-proxy, add-ons) uses it.
API_TLS_PORT = 6443
#: The plain-HTTP port clients use when the cluster template disables TLS.
API_HTTP_PORT = 8080

#: sha256 of the linux-amd64 helm client tarball per helm_client_tag: the default release
#: is checked against a value fixed here, not one downloaded from the same place.
HELM_CLIENT_SHA256 = {
    "v3.16.3": "f5355c79190951eed23c5432a3b920e071f4c00a64f75e077de0dd4cb7b294ea",
}

DEFAULT_KEYSTONE_POLICY = [{
    "users": {"projects": ["$PROJECT_ID"], "roles": ["member"]},
    "resource_permissions": {"*/*": ["*"]},
    "nonresource_permissions": {"/healthz": ["get"], "/version": ["get"]},
}]


@dataclasses.dataclass(frozen=True)
class ServiceAccountKeys:
    """The API server's service-account signing keypair (base64 of PEM, single line)."""

    public: str
    private: str

    @classmethod
    def generate(cls) -> ServiceAccountKeys:
        key = _RESERVE.take()
        private = key.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.TraditionalOpenSSL,
                                    serialization.NoEncryption())
        public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
        return cls(base64.b64encode(public).decode(), base64.b64encode(private).decode())


def _new_rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class KeyReserve:
    """RSA keys made ahead of need on a background thread. Generating one costs 10 to
    170 ms (about 40 ms median on the 2-core machine), which otherwise sat on the path from
    the API's 202 to the stack create. Each key is handed out once and never leaves the
    process; a forked process starts with an empty reserve of its own."""

    def __init__(self, size: int = 2) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._keys: list[rsa.RSAPrivateKey] = []
        self._filling = False
        self._pid = os.getpid()

    def take(self) -> rsa.RSAPrivateKey:
        """A ready key when there is one (then the reserve refills), else a new one now."""
        with self._lock:
            if self._pid != os.getpid():
                self._pid, self._keys, self._filling = os.getpid(), [], False
            key = self._keys.pop() if self._keys else None
            if not self._filling:
                self._filling = True
                threading.Thread(target=self._fill, name="sa-key-reserve", daemon=True).start()
        return key if key is not None else _new_rsa_key()

    def ready(self) -> int:
        with self._lock:
            return len(self._keys)

    def _fill(self) -> None:
        try:
            while self.ready() < self.size:
                key = _new_rsa_key()
                with self._lock:
                    self._keys.append(key)
        finally:
            with self._lock:
                self._filling = False


_RESERVE = KeyReserve()


@dataclasses.dataclass(frozen=True)
class Features:
    """The shape of a stack: every input that changes the rendered template."""

    existing_network: bool = False
    master_lb: bool = False
    floating_ip: bool = False
    lb_floating_ip: bool = False
    etcd_volume: bool = False
    master_docker_volume: bool = False
    worker_docker_volume: bool = False
    boot_volume: bool = False
    #: The API load balancer then carries the clients' plain-HTTP port and the nodes' TLS port.
    tls_disabled: bool = False

    def key(self) -> tuple:
        return dataclasses.astuple(self)


def _first(*values: Any) -> Any:
    for v in values:
        if v is not None and v != "":
            return v
    return None


def cluster_labels(view: ClusterView) -> dict[str, str]:
    """Resolved labels of the cluster: defaults < template labels < cluster labels."""
    return label_table.resolve(view.labels)


def nodegroup_labels(view: ClusterView, nodegroup: NodeGroupRow) -> dict[str, str]:
    """Labels a node group's nodes see: its own labels, cluster-only labels from the cluster."""
    resolved = label_table.resolve(view.labels, nodegroup.labels)
    base = cluster_labels(view)
    for name in label_table.CLUSTER_ONLY:
        if name in base:
            resolved[name] = base[name]
        else:
            resolved.pop(name, None)
    return resolved


def _size(value: Any) -> int:
    try:
        return max(int(value or 0), 0)
    except (TypeError, ValueError):
        return 0


def features(view: ClusterView, nodegroup: NodeGroupRow | None = None) -> Features:
    """The template-shaping facts of a cluster (or of one extra node group's stack)."""
    cluster, template = view.cluster, view.template
    labels = cluster_labels(view)
    lb = bool(_first(cluster.master_lb_enabled, template.master_lb_enabled))
    fip = bool(_first(cluster.floating_ip_enabled, template.floating_ip_enabled))
    lb_fip = lb and label_table.parse_bool(labels.get("master_lb_floating_ip_enabled"), fip)
    existing = bool(_first(cluster.fixed_network, template.fixed_network))
    master = view.master
    worker = nodegroup if nodegroup is not None else view.worker
    return Features(
        existing_network=existing, master_lb=lb, floating_ip=fip, lb_floating_ip=lb_fip,
        etcd_volume=_size(labels.get("etcd_volume_size")) > 0,
        master_docker_volume=_size(_first(master.docker_volume_size,
                                          cluster.docker_volume_size)) > 0,
        worker_docker_volume=_size(_first(worker.docker_volume_size,
                                          cluster.docker_volume_size)) > 0,
        boot_volume=settings.boot_volume_size(labels) > 0,
        tls_disabled=bool(template.tls_disabled),
    )


def api_port(tls_disabled: bool) -> int:
    """The port ``api_address`` names: clients' plain HTTP when TLS is off, else TLS."""
    return API_HTTP_PORT if tls_disabled else API_TLS_PORT


def _auth_url(res: ClusterResources) -> str:
    url = (res.url_for("identity") or "").rstrip("/")
    return url if url.endswith("/v3") else url + "/v3"


def _magnum_url(res: ClusterResources) -> str:
    url = (res.url_for("container-infra") or res.url_for("container") or "").rstrip("/")
    return url if url.endswith("/v1") else url + "/v1"


def _glance_url(res: ClusterResources) -> str:
    return (res.url_for("image") or "").rstrip("/")


def _pods_cidr(template: TemplateRow, labels: dict[str, str]) -> str:
    if (template.network_driver or "flannel") == "calico":
        return labels["calico_ipv4pool"]
    return labels["flannel_network_cidr"]


def _cloud_provider_enabled(template: TemplateRow, labels: dict[str, str],
                            trust_id: str | None) -> bool:
    enabled = label_table.parse_bool(labels.get("cloud_provider_enabled"), bool(trust_id))
    if enabled and not trust_id:
        raise exception.InvalidParameterValue(
            err="cloud_provider_enabled=true needs a cluster trust ([trust] cluster_user_trust).")
    if not enabled and (template.volume_driver or "") == "cinder":
        raise exception.InvalidParameterValue(
            err="volume_driver cinder needs the cloud provider (cloud_provider_enabled=true).")
    return enabled


def _openstack_ca() -> str:
    path = CONF.drivers.openstack_ca_file
    if not path:
        return ""
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def _keystone_policy(project_id: str) -> str:
    try:
        with open(CONF.kubernetes.keystone_auth_default_policy) as f:
            text = f.read()
    except OSError:
        text = json.dumps(DEFAULT_KEYSTONE_POLICY)
    return base64.b64encode(text.replace("$PROJECT_ID", project_id or "").encode()).decode()


def _volume_type(label: str | None, default: str, size: int) -> str:
    return (label or default or "") if size > 0 else ""


def _no_proxy(template: TemplateRow, labels: dict[str, str]) -> str:
    if not template.no_proxy:
        return ""
    return f"{template.no_proxy},{labels['fixed_subnet_cidr']}"


def _allowed_cidrs(labels: dict[str, str]) -> list[str]:
    given = [c.strip() for c in labels.get("master_lb_allowed_cidrs", "").split(",") if c.strip()]
    return given + [labels["fixed_subnet_cidr"]] if given else []


def _scaling_bounds(nodegroup: NodeGroupRow, labels: dict[str, str]) -> tuple[Any, Any]:
    """A node group's autoscaling range: its own min/max, else the labels, else 0..count+1."""
    return (_first(nodegroup.min_node_count, labels.get("min_node_count"), 0),
            _first(nodegroup.max_node_count, labels.get("max_node_count"),
                   int(nodegroup.node_count or 0) + 1))


def _helm_client_sha256(labels: dict[str, str]) -> str:
    """The label's checksum; the pinned one for a known tag fetched from get.helm.sh."""
    if labels.get("helm_client_sha256") or labels.get("helm_client_url"):
        return labels.get("helm_client_sha256", "")
    return HELM_CLIENT_SHA256.get(labels.get("helm_client_tag", ""), "")


def _kube_tag(labels: dict[str, str], cluster: ClusterRow) -> str:
    return labels.get("kube_tag") or cluster.coe_version or label_table.LABELS["kube_tag"].default


def _checked(field: str, value: str, check: grammar.Check) -> str:
    """``value`` once its grammar accepts it (the API checked it; rows of older releases
    are checked here before they reach a node)."""
    reason = check(value) if value else None
    if reason:
        raise grammar.invalid(field, value, reason)
    return value


def _node_labels(nodegroup: NodeGroupRow) -> str:
    """The group's Kubernetes node labels as kubelet's ``--node-labels`` list."""
    labels = nodegroup.node_labels or {}
    _checked("node_labels", labels, grammar.node_labels)
    return ",".join(f"{key}={'' if value is None else value}"
                    for key, value in sorted(labels.items()))


def _node_taints(nodegroup: NodeGroupRow) -> str:
    """The group's taints as kubelet's ``--register-with-taints`` list."""
    taints = nodegroup.node_taints or []
    _checked("node_taints", taints, grammar.node_taints)
    return ",".join(f"{t['key']}={t.get('value') or ''}:{t['effect']}" for t in taints)


def _digest(node_labels: str, node_taints: str) -> str:
    return hashlib.sha256(json.dumps([node_labels, node_taints]).encode()).hexdigest()[:16]


def node_labels_digest(nodegroup: NodeGroupRow) -> str:
    """A digest of what the kubelet registers the group's nodes with (labels, taints): a
    stack parameter, so a change of either is seen and rolled out."""
    return _digest(_node_labels(nodegroup), _node_taints(nodegroup))


#: The digest of a group without node labels or taints (stacks older than the parameter).
NO_NODE_LABELS_DIGEST = _digest("", "")


def _exported_labels(labels: dict[str, str]) -> dict[str, str]:
    """The labels the node scripts read, re-checked, as environment entries."""
    label_table.validate(labels)
    return {name.upper(): str(value) for name, value in labels.items()
            if name in label_table.NODE_ENV}


#: What nodes get of the trustee with ``[trust] cluster_user_trust = false``: nothing.
_NO_TRUSTEE = TrusteeCredentials(user_id=None, username=None, password=None, domain_id=None,
                                 trust_id=None)


def nodes_trustee(res: ClusterResources) -> TrusteeCredentials:
    """The trustee credentials the nodes hold: the cluster's, or none."""
    return res.trustee() if CONF.trust.cluster_user_trust else _NO_TRUSTEE


def node_env(res: ClusterResources, profile: OsProfile, view: ClusterView,
             nodegroup: NodeGroupRow, labels: dict[str, str]) -> dict[str, str]:
    """The settings one node group's nodes boot with (keys upper-case): the labels of
    :data:`labels.NODE_ENV` and what the driver derives; nothing else a tenant sent."""
    cluster, template = view.cluster, view.template
    trustee = nodes_trustee(res)
    cluster_lbls = cluster_labels(view)
    is_master = settings.is_master(nodegroup)
    env = _exported_labels(labels)
    tls_disabled = bool(template.tls_disabled)
    cert_api = label_table.parse_bool(cluster_lbls.get("cert_manager_api"))
    ca_key = (res.ca_private_key() or "") if (cert_api and is_master) else ""
    ingress = cluster_lbls.get("ingress_controller", "")
    octavia = res.url_for("load-balancer") is not None
    if ingress == "octavia" and not octavia:
        raise exception.InvalidParameterValue(
            err="ingress_controller=octavia needs Octavia in the service catalog.")
    worker = view.worker
    worker_min, worker_max = _scaling_bounds(worker, nodegroup_labels(view, worker))
    env.update({
        "KUBE_TAG": _checked("kube_tag", _kube_tag(labels, cluster), grammar.version),
        "CLUSTER_UUID": cluster.uuid,
        "MAGNUM_URL": _magnum_url(res),
        "AUTH_URL": _auth_url(res),
        "REGION_NAME": CONF.drivers.region_name,
        "VERIFY_CA": str(CONF.drivers.verify_ca).lower(),
        "OPENSTACK_CA": _openstack_ca(),
        "TRUSTEE_USER_ID": trustee.user_id or "",
        "TRUSTEE_PASSWORD": trustee.password or "",
        "TRUST_ID": trustee.trust_id or "",
        # Without the trust, the nodes' only credential: it opens this cluster's certificate
        # routes and nothing else (magnum_common.crypto.node_token).
        "NODE_TOKEN": "" if CONF.trust.cluster_user_trust else crypto.node_token(cluster.uuid),
        "CONTAINERD_SOURCE": profile.containerd_source,
        "LOGIN_USER": profile.login_user,
        "SELINUX_MANAGED": str(profile.selinux).lower(),
        "NODEGROUP_NAME": _checked("name", nodegroup.name, grammar.k8s_name),
        "NODEGROUP_ROLE": _checked("role", nodegroup.role or settings.WORKER, grammar.k8s_name),
        "NODE_LABELS": _node_labels(nodegroup),
        "NODE_TAINTS": _node_taints(nodegroup),
        "IS_MASTER": str(is_master).lower(),
        # The first master runs the cluster autoscaler, which scales the default workers.
        "AUTOSCALER_NODES": f"{worker_min}:{worker_max}:"
                            f"{_checked('name', worker.name, grammar.k8s_name)}",
        "HELM_CLIENT_SHA256": _helm_client_sha256(labels),
        "TLS_DISABLED": str(tls_disabled).lower(),
        "NETWORK_DRIVER": template.network_driver or "flannel",
        "VOLUME_DRIVER": template.volume_driver or "",
        "PODS_NETWORK_CIDR": _pods_cidr(template, cluster_lbls),
        "PORTAL_NETWORK_CIDR": cluster_lbls["service_cluster_ip_range"],
        "HTTP_PROXY": _checked("http_proxy", template.http_proxy or "", grammar.proxy_url),
        "HTTPS_PROXY": _checked("https_proxy", template.https_proxy or "", grammar.proxy_url),
        "NO_PROXY": _checked("no_proxy", _no_proxy(template, cluster_lbls), grammar.no_proxy),
        "INSECURE_REGISTRY_URL": _checked("insecure_registry", template.insecure_registry or "",
                                          grammar.registry_host),
        "EXTERNAL_NETWORK_ID": _checked("external_network_id",
                                        template.external_network_id or "",
                                        grammar.openstack_ref),
        "CLOUD_PROVIDER_ENABLED": str(
            _cloud_provider_enabled(template, cluster_lbls, trustee.trust_id)).lower(),
        "OCTAVIA_ENABLED": str(octavia).lower(),
        "KEYSTONE_AUTH_DEFAULT_POLICY": (
            _keystone_policy(cluster.project_id)
            if label_table.parse_bool(cluster_lbls.get("keystone_auth_enabled"), True)
            and is_master else ""),
        "POST_INSTALL_MANIFEST_URL": CONF.kubernetes.post_install_manifest_url,
        "CA_KEY": base64.b64encode(ca_key.encode()).decode() if ca_key else "",
        # Nova keeps a key uploaded with its file's trailing newline; the line itself is the key.
        "SSH_PUBLIC_KEY": (res.keypair_public_key(cluster.keypair) or "").strip(),
        # Where a lone master hands its etcd snapshot over (drivers/heat/etcd_handover.py).
        "GLANCE_URL": _glance_url(res) if is_master else "",
    })
    return env


def encode_env(env: dict[str, str]) -> str:
    """``KEY=value`` lines, base64-encoded onto one line.

    The node reads the file as data (``load_settings`` in magnum-bootstrap.sh: never
    sourced), so a value needs no quoting; what it must not hold is a line break, or any
    other control character, and no name may be one an interpreter reads.
    """
    lines = []
    for key, value in sorted(env.items()):
        reason = grammar.env_key(key) or grammar.printable(1 << 20)(value)
        if reason:
            raise exception.InvalidParameterValue(
                err=f"Node setting {key!r} cannot be written: {reason}.")
        lines.append(f"{key}={value}\n")
    return base64.b64encode("".join(lines).encode()).decode()


def decode_env(blob: str) -> dict[str, str]:
    """The inverse of ``encode_env`` (for tests and diagnostics)."""
    env = {}
    for line in base64.b64decode(blob).decode().splitlines():
        key, _, value = line.partition("=")
        env[key] = value
    return env


def _common(res: ClusterResources, view: ClusterView, labels: dict[str, str]) -> dict[str, Any]:
    cluster, template = view.cluster, view.template
    return {
        "cluster_uuid": cluster.uuid,
        "ssh_key_name": cluster.keypair or template.keypair_id or "",
        "external_network": template.external_network_id or "",
        "kube_tag": _kube_tag(labels, cluster),
        "nodes_affinity_policy": CONF.cluster.nodes_affinity_policy,
        "boot_volume_size": settings.boot_volume_size(labels),
        "boot_volume_type": _volume_type(labels.get("boot_volume_type"),
                                         CONF.cinder.default_boot_volume_type,
                                         settings.boot_volume_size(labels)),
        "availability_zone": labels.get("availability_zone", ""),
        "wait_condition_timeout": 6000,
        "update_max_batch_size": 1,
        "trustee_user_id": nodes_trustee(res).user_id or "",
    }


def cluster_parameters(res: ClusterResources, profile: OsProfile, view: ClusterView,
                       service_account: ServiceAccountKeys | None,
                       master_restore: dict[str, str] | None = None) -> dict[str, Any]:
    """Parameters of the cluster stack (network, API endpoint, masters, default workers);
    ``master_restore``: the etcd snapshot a replaced lone master restores from."""
    cluster, template = view.cluster, view.template
    labels = cluster_labels(view)
    master, worker = view.master, view.worker
    tls_disabled = bool(template.tls_disabled)
    etcd_size = _size(labels.get("etcd_volume_size"))
    master_docker = _size(_first(master.docker_volume_size, cluster.docker_volume_size))
    worker_docker = _size(_first(worker.docker_volume_size, cluster.docker_volume_size))
    params = _common(res, view, labels)
    params.update({
        "dns_nameserver": template.dns_nameserver or "8.8.8.8",
        "fixed_subnet_cidr": labels["fixed_subnet_cidr"],
        "fixed_network": cluster.fixed_network or template.fixed_network or "",
        "fixed_network_name": cluster.fixed_network or template.fixed_network or cluster.name,
        "fixed_subnet": cluster.fixed_subnet or template.fixed_subnet or "",
        "number_of_masters": int(master.node_count or 1),
        "master_flavor": master.flavor_id or cluster.master_flavor_id
        or template.master_flavor_id,
        "master_image": master.image_id or template.image_id,
        "master_nodegroup_name": master.name,
        "number_of_minions": int(worker.node_count or 0),
        "minion_flavor": worker.flavor_id or cluster.flavor_id or template.flavor_id,
        "minion_image": worker.image_id or template.image_id,
        "worker_nodegroup_name": worker.name,
        "minions_to_remove": [],
        "kube_version": _kube_tag(labels, cluster),
        "master_kube_tag": _kube_tag(labels, cluster),
        "minion_kube_tag": _kube_tag(nodegroup_labels(view, worker), cluster),
        "etcd_volume_size": etcd_size,
        "etcd_volume_type": _volume_type(labels.get("etcd_volume_type"),
                                         CONF.cinder.default_etcd_volume_type, etcd_size),
        "master_docker_volume_size": master_docker,
        "docker_volume_size": worker_docker,
        "docker_volume_type": _volume_type(labels.get("docker_volume_type"),
                                           CONF.cinder.default_docker_volume_type,
                                           max(master_docker, worker_docker)),
        "kubernetes_port": api_port(tls_disabled),
        "loadbalancing_protocol": "HTTP" if tls_disabled else "TCP",
        "master_lb_allowed_cidrs": _allowed_cidrs(labels),
        "octavia_provider": labels["octavia_provider"],
        "octavia_lb_algorithm": labels["octavia_lb_algorithm"],
        "octavia_lb_healthcheck": label_table.parse_bool(labels["octavia_lb_healthcheck"]),
        "pods_network_cidr": _pods_cidr(template, labels),
        "master_generation": 0,
        "worker_generation": 0,
        "master_bootstrap_env": encode_env({
            **node_env(res, profile, view, master, labels),
            **(master_restore or {})}),
        "worker_bootstrap_env": encode_env(
            node_env(res, profile, view, worker, nodegroup_labels(view, worker))),
        "worker_node_labels_digest": node_labels_digest(worker),
    })
    if service_account is not None:
        params["kube_service_account_key"] = service_account.public
        params["kube_service_account_private_key"] = service_account.private
    return params


def nodegroup_parameters(res: ClusterResources, profile: OsProfile, view: ClusterView,
                         nodegroup: NodeGroupRow,
                         cluster_outputs: dict[str, Any]) -> dict[str, Any]:
    """Parameters of an extra node group's own stack, wired to the cluster stack's outputs."""
    cluster, template = view.cluster, view.template
    labels = nodegroup_labels(view, nodegroup)
    docker = _size(_first(nodegroup.docker_volume_size, cluster.docker_volume_size))
    params = _common(res, view, labels)
    params.update({
        "nodegroup_name": nodegroup.name,
        "number_of_minions": int(nodegroup.node_count or 0),
        "minion_flavor": nodegroup.flavor_id or cluster.flavor_id or template.flavor_id,
        "minion_image": nodegroup.image_id or template.image_id,
        "minions_to_remove": [],
        "docker_volume_size": docker,
        "docker_volume_type": _volume_type(labels.get("docker_volume_type"),
                                           CONF.cinder.default_docker_volume_type, docker),
        "fixed_network": cluster_outputs.get("fixed_network") or "",
        "fixed_subnet": cluster_outputs.get("fixed_subnet") or "",
        "security_group": cluster_outputs.get("worker_security_group") or "",
        "api_private_address": cluster_outputs.get("api_private_address") or "",
        "pods_network_cidr": _pods_cidr(template, cluster_labels(view)),
        "generation": 0,
        "bootstrap_env": encode_env(
            node_env(res, profile, view, nodegroup, labels)),
        "node_labels_digest": node_labels_digest(nodegroup),
    })
    return params
