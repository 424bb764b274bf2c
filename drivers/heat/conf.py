"""Every option the Heat drivers declare, registered when this module is imported.

Modules read them through ``from drivers.heat.conf import CONF``; ``list_opts()`` is the
``magnum.drivers`` namespace of oslo-config-generator (setup.cfg). Group names are
upstream's where upstream has the option; ``[conductor] heat_*`` keep the group they had
when the conductor itself retried Heat calls.
"""

from __future__ import annotations

from oslo_config import cfg

CONF = cfg.CONF

heat_client_opts = [
    cfg.StrOpt("region_name", help="Region of the Heat endpoint in the catalog."),
    cfg.StrOpt("endpoint_type", default="publicURL",
               help="Catalog interface of the Heat endpoint (publicURL, internalURL, "
               "adminURL or public / internal / admin)."),
    cfg.StrOpt("api_version", default="1", help="Heat API version."),
    cfg.StrOpt("ca_file", help="CA bundle verifying Heat's TLS certificate."),
    cfg.StrOpt("cert_file", help="Client certificate for Heat."),
    cfg.StrOpt("key_file", help="Client certificate key for Heat."),
    cfg.BoolOpt("insecure", default=False, help="Do not verify Heat's TLS certificate."),
    cfg.FloatOpt("timeout", default=60.0, min=1,
                 help="Seconds before a Heat request times out (then it is retried)."),
]

retry_opts = [
    cfg.IntOpt("heat_attempts", default=4, min=1,
               help="Attempts of a Heat request that fails with a 5xx, a connection error "
               "or a timeout before the operation is marked failed."),
    cfg.FloatOpt("heat_backoff", default=1.0, min=0,
                 help="First back-off in seconds between Heat attempts; doubles each time."),
    cfg.FloatOpt("heat_backoff_max", default=20.0, min=0,
                 help="Longest back-off in seconds between two Heat attempts."),
]

drivers_opts = [
    cfg.BoolOpt("verify_ca", default=True,
                help="Whether nodes verify the TLS certificates of OpenStack endpoints."),
    cfg.StrOpt("openstack_ca_file", default="",
               help="CA bundle (PEM file) the nodes trust for OpenStack endpoints."),
    cfg.StrOpt("region_name", default="RegionOne",
               help="Region the nodes' cloud provider and CSI plugin talk to."),
    cfg.IntOpt("nodegroup_stack_delete_timeout", default=600, min=0,
               help="Seconds a cluster delete waits for its extra node groups' stacks to "
               "go before deleting the cluster stack (their ports use its network)."),
    cfg.IntOpt("etcd_handover_timeout", default=300, min=10,
               help="Seconds an upgrade or CA rotation of a cluster with one master and no "
               "etcd volume waits for that master to hand over its etcd snapshot (its timer "
               "looks every 15 s) before failing with nothing replaced."),
]

cluster_opts = [
    cfg.StrOpt("nodes_affinity_policy", default="soft-anti-affinity",
               choices=["affinity", "anti-affinity", "soft-affinity", "soft-anti-affinity"],
               help="Nova server-group policy for the nodes of one node group."),
]

#: ``[cinder] default_boot_volume_size`` is magnum_common's (the API checks flavors by it).
cinder_opts = [
    cfg.StrOpt("default_docker_volume_type", default="",
               help="Cinder volume type of container-storage volumes when the label "
               "docker_volume_type is unset ('' = Cinder's default type)."),
    cfg.StrOpt("default_etcd_volume_type", default="",
               help="Cinder volume type of etcd volumes when the label etcd_volume_type is "
               "unset ('' = Cinder's default type)."),
    cfg.StrOpt("default_boot_volume_type", default="",
               help="Cinder volume type of boot volumes when the label boot_volume_type is "
               "unset ('' = Cinder's default type)."),
]

kubernetes_opts = [
    cfg.StrOpt("keystone_auth_default_policy",
               default="/etc/magnum/keystone_auth_default_policy.json",
               help="k8s-keystone-auth policy (JSON) installed when keystone_auth_enabled; "
               "$PROJECT_ID is replaced by the cluster's project. A built-in policy is used "
               "when the file is absent."),
    cfg.StrOpt("post_install_manifest_url", default="",
               help="A manifest every new cluster applies once it is up."),
    cfg.IntOpt("health_check_timeout", default=10, min=1,
               help="Seconds one Kubernetes API request of the health monitor may take."),
]

docker_registry_opts = [
    cfg.StrOpt("swift_region", help="Swift region of the in-cluster registry's storage."),
    cfg.StrOpt("swift_registry_container", default="docker_registry",
               help="Swift container of the in-cluster registry's storage."),
]

_GROUPS: list[tuple[str, list[cfg.Opt]]] = [
    ("cinder", cinder_opts),
    ("cluster", cluster_opts),
    ("conductor", retry_opts),
    ("docker_registry", docker_registry_opts),
    ("drivers", drivers_opts),
    ("heat_client", heat_client_opts),
    ("kubernetes", kubernetes_opts),
]

for _group, _opts in _GROUPS:
    CONF.register_opts(_opts, group=_group)


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    return list(_GROUPS)
