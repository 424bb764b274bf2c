"""Every option magnum_conductor declares, registered when this module is imported.

Modules read them through ``from magnum_conductor.conf import CONF``, so an option is
registered before it is read whichever module a process imports first. ``list_opts()`` is
the ``magnum.conductor`` namespace of oslo-config-generator (setup.cfg). The Heat drivers'
options are drivers/heat/conf.py's; the RPC client's ``[conductor] topic`` is magnum_common's.
"""

from __future__ import annotations

from cryptography.x509.oid import ExtensionOID
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg, types

CONF = cfg.CONF

BINARY = "magnum-conductor"
AUTH_GROUP = "keystone_auth"
TRUST_GROUP = "trust"

#: ``[conductor]``: the engine itself (process count, intervals, lease).
conductor_opts = [
    cfg.IntOpt("workers", min=1,
               help="Conductor processes on this host; default: the number of CPUs. Every "
               "process serves RPC and takes its share of the periodic work."),
    cfg.IntOpt("report_interval", default=10, min=1,
               help="Seconds between two heartbeats of a conductor in magnum_service."),
    cfg.IntOpt("lease_seconds", default=60, min=2,
               help="Length of a conductor's lease on a cluster. The lease is renewed every "
               "third of this while the conductor works; when its conductor dies, another "
               "conductor takes the cluster over once the lease has expired."),
    cfg.IntOpt("lease_wait", default=10, min=0,
               help="Seconds an RPC request waits for a cluster's lease held by another "
               "conductor before it gives up (casts are then replayed by the reconciler)."),
    cfg.IntOpt("reconcile_interval", default=10, min=1,
               help="Seconds between two runs of the reconciler that replays recorded "
               "operations whose cast was lost or whose conductor died."),
    cfg.IntOpt("pending_grace", default=30, min=0,
               help="Age in seconds after which a recorded operation nobody holds is "
               "considered lost and replayed."),
    cfg.IntOpt("reconcile_workers", default=4, min=1,
               help="Threads the reconciler uses to replay operations."),
    cfg.IntOpt("sync_interval", default=10, min=1,
               help="Seconds between two Heat status syncs of the in-progress clusters."),
    cfg.IntOpt("operation_timeout", default=900, min=1,
               help="Longest a conductor works on one operation (trust, certificates, the "
               "request to Heat with its retries; Heat's own work is bounded by "
               "[cluster_heat] create_timeout / update_timeout). Past it the operation "
               "fails with a reason naming the service that did not answer, and the lease "
               "is released."),
    cfg.DictOpt("operation_timeouts",
                default={"cluster_delete": "1500", "nodegroup_delete": "1500",
                         "credential_rotate": "3900"},
                help="operation_timeout per operation kind (kind:seconds), e.g. "
                "cluster_create:1200. A delete waits for its node groups' stacks to go "
                "first ([drivers] nodegroup_stack_delete_timeout), a credential rotation "
                "for Heat to replace every node (up to [cluster_heat] update_timeout), "
                "hence their longer defaults."),
    cfg.IntOpt("cleanup_attempts", default=3, min=1,
               help="Attempts a cluster delete makes to remove each trust, trustee user "
               "and certificate bundle; what still fails is recorded as an orphan for the "
               "sweeper and the cluster row goes."),
    cfg.FloatOpt("cleanup_backoff", default=1.0, min=0.0,
                 help="Seconds before the second clean-up attempt, doubled for each "
                 "further one (also the sweeper's first back-off)."),
    cfg.IntOpt("stack_delete_attempts", default=3, min=1,
               help="Times a cluster delete asks Heat to delete the cluster's stacks when "
               "Heat reports a stack delete failed (DELETE_FAILED), before the cluster "
               "goes DELETE_FAILED. The cluster row stays until Heat confirms the stacks "
               "gone."),
    cfg.FloatOpt("stack_delete_backoff", default=30.0, min=0.0,
                 help="Seconds between Heat's report of a failed stack delete and the "
                 "next attempt, doubled for each further one."),
    cfg.IntOpt("orphan_sweep_interval", default=300, min=1,
               help="Seconds between two runs of the sweeper that retries the removal of "
               "orphans (backing off per orphan, up to an hour)."),
]

#: ``[cluster_heat]``: how long an operation may stay in progress (engine/handlers/cluster.py).
cluster_heat_opts = [
    cfg.IntOpt("create_timeout", default=60, min=0,
               help="Minutes a cluster stack may take to create when the cluster does not "
               "set create_timeout."),
    cfg.IntOpt("update_timeout", default=60, min=1,
               help="Minutes an update, resize, upgrade or delete may stay in progress "
               "before the conductor marks it failed."),
]

#: ``[kubernetes]``: the health monitor (status/health.py).
health_opts = [
    cfg.IntOpt("health_polling_interval", default=60,
               help="Seconds between two health polls of the clusters; negative disables."),
]

#: ``[nova_client]``: the Nova endpoint of the resource checks (engine/resources.py).
nova_client_opts = [
    cfg.StrOpt("region_name", help="Region of the Nova endpoint in the catalog."),
    cfg.StrOpt("endpoint_type", default="publicURL",
               help="Catalog interface of the Nova endpoint."),
    cfg.StrOpt("api_version", default="2.1", help="Nova API microversion."),
    cfg.FloatOpt("timeout", default=30.0, min=0.1,
                 help="Seconds before a Nova request without an answer fails."),
]

#: Names accepted by ``[x509] allowed_key_usage`` and the KeyUsage fields they stand for.
KEY_USAGES = {
    "Digital Signature": "digital_signature",
    "Non Repudiation": "content_commitment",
    "Key Encipherment": "key_encipherment",
    "Data Encipherment": "data_encipherment",
    "Key Agreement": "key_agreement",
    "Certificate Sign": "key_cert_sign",
    "CRL Sign": "crl_sign",
    "Encipher Only": "encipher_only",
    "Decipher Only": "decipher_only",
}


#: Names accepted by ``[x509] allowed_extensions`` (a dotted OID is accepted too).
EXTENSION_NAMES = {
    ExtensionOID.KEY_USAGE: "keyUsage",
    ExtensionOID.EXTENDED_KEY_USAGE: "extendedKeyUsage",
    ExtensionOID.SUBJECT_ALTERNATIVE_NAME: "subjectAltName",
    ExtensionOID.BASIC_CONSTRAINTS: "basicConstraints",
    ExtensionOID.SUBJECT_KEY_IDENTIFIER: "subjectKeyIdentifier",
    ExtensionOID.AUTHORITY_KEY_IDENTIFIER: "authorityKeyIdentifier",
    ExtensionOID.ISSUER_ALTERNATIVE_NAME: "issuerAltName",
    ExtensionOID.NAME_CONSTRAINTS: "nameConstraints",
    ExtensionOID.CRL_DISTRIBUTION_POINTS: "cRLDistributionPoints",
    ExtensionOID.CERTIFICATE_POLICIES: "certificatePolicies",
    ExtensionOID.AUTHORITY_INFORMATION_ACCESS: "authorityInfoAccess",
    ExtensionOID.TLS_FEATURE: "TLSFeature",
}

#: ``[x509]``: the cluster CAs and the CSR signing policy (pki/x509.py).
x509_opts = [
    cfg.BoolOpt(
        "allow_ca", default=False,
        help="Whether CSRs may obtain CA certificates (basicConstraints CA=true, certificate "
        "and CRL signing key usages). When False those are stripped, or the CSR is refused "
        "when they are marked critical.",
    ),
    cfg.ListOpt(
        "allowed_extensions",
        default=["keyUsage", "extendedKeyUsage", "subjectAltName", "basicConstraints",
                 "subjectKeyIdentifier"],
        help="Extensions copied from a CSR into the signed certificate; others are dropped, "
        "or the CSR is refused when they are critical. Names as in RFC 5280 "
        f"({', '.join(EXTENSION_NAMES.values())}) or dotted OIDs.",
    ),
    cfg.ListOpt(
        "allowed_key_usage",
        item_type=types.String(choices=list(KEY_USAGES)),
        default=["Digital Signature", "Key Encipherment", "Non Repudiation"],
        help="Key usages kept from a CSR's keyUsage extension; others are dropped, or the "
        "CSR is refused when the extension is critical.",
    ),
    cfg.IntOpt("term_of_validity", default=365 * 5, min=1,
               help="Days a generated or signed certificate is valid."),
    cfg.StrOpt(
        "key_algorithm", default="ec", choices=[
            ("ec", "ECDSA on curve P-256: fast to generate, accepted by Kubernetes and etcd"),
            ("rsa", "RSA with [x509] rsa_key_size bits"),
        ],
        help="Key type of the cluster CAs and of Magnum's client certificate.",
    ),
    cfg.IntOpt("rsa_key_size", default=2048, min=2048,
               help="Size in bits of RSA keys, when key_algorithm is rsa."),
]


def _common_auth_opts() -> list[cfg.Opt]:
    """keystoneauth's auth_type / auth_section, with auth_type defaulting to password."""
    opts = ks_loading.get_auth_common_conf_options()
    for opt in opts:
        if opt.dest == "auth_type":
            opt.default = "password"
    return opts


def _session_opts() -> list[cfg.Opt]:
    """keystoneauth's session options, with a timeout: keystoneauth waits forever by
    default, and a Keystone that accepts connections but never answers would hold an
    operation (and its lease) for good."""
    opts = ks_loading.get_session_conf_options()
    for opt in opts:
        if opt.dest == "timeout":
            opt.default = 30.0
            opt.help = ("Seconds before a request to Keystone (and to the services reached "
                        "with these credentials) without an answer fails.")
    return opts


#: ``[keystone_auth]``: Magnum's service identity (identity/keystone.py); the options of
#: the configured auth plugin are keystoneauth's, registered once the plugin is known.
auth_common_opts = _common_auth_opts()
session_opts = _session_opts()

#: ``[trust]``: the trustee domain and its admin (identity/keystone.py) ...
trustee_domain_opts = [
    cfg.StrOpt("trustee_domain_id",
               help="Id of the domain holding the clusters' trustee users."),
    cfg.StrOpt("trustee_domain_name",
               help="Name of the domain holding the clusters' trustee users."),
    cfg.StrOpt("trustee_domain_admin_id",
               help="Id of the user allowed to manage users in the trustee domain."),
    cfg.StrOpt("trustee_domain_admin_name",
               help="Name of the user allowed to manage users in the trustee domain."),
    cfg.StrOpt("trustee_domain_admin_domain_id",
               help="Domain of the trustee domain admin (default: the trustee domain)."),
    cfg.StrOpt("trustee_domain_admin_domain_name",
               help="Domain name of the trustee domain admin (default: the trustee domain)."),
    cfg.StrOpt("trustee_domain_admin_password", secret=True,
               help="Password of the trustee domain admin."),
]

#: ... and the endpoint the nodes use with the trustee (identity/trust.py;
#: ``cluster_user_trust`` and the delegated roles are magnum_common's: the API reads them too).
trust_opts = [
    cfg.StrOpt(
        "trustee_keystone_interface", default="public",
        choices=["public", "internal", "admin"],
        help="Keystone endpoint interface the cluster's nodes use with the trustee.",
    ),
    cfg.StrOpt("trustee_keystone_region_name",
               help="Region of the Keystone endpoint the cluster's nodes use."),
]

#: ``[certificates]``: the certificate store (pki/cert_manager).
cert_manager_opts = [
    cfg.StrOpt(
        "cert_manager_type", default="barbican",
        help="Where cluster certificates are stored: barbican, x509keypair (the database) "
        "or local (files; single host, testing only).",
    ),
    cfg.StrOpt("storage_path", default="/var/lib/magnum/certificates/",
               help="Directory of the local certificate backend."),
]

#: ``[barbican_client]``: the Barbican endpoint of that store (pki/cert_manager/barbican.py).
barbican_opts = [
    cfg.StrOpt("region_name", help="Region of the key-manager endpoint."),
    cfg.StrOpt("endpoint_type", default="publicURL",
               choices=["publicURL", "internalURL", "adminURL", "public", "internal", "admin"],
               help="Catalog interface of the key-manager endpoint."),
    cfg.FloatOpt("timeout", default=30.0, min=0.1,
                 help="Seconds before a Barbican request without an answer fails (then "
                 "the operation that needed it fails, naming Barbican)."),
]

_GROUPS: list[tuple[str, list[cfg.Opt]]] = [
    ("conductor", conductor_opts),
    ("cluster_heat", cluster_heat_opts),
    ("kubernetes", health_opts),
    ("nova_client", nova_client_opts),
    ("x509", x509_opts),
    (AUTH_GROUP, auth_common_opts),
    (TRUST_GROUP, trustee_domain_opts + trust_opts),
    ("certificates", cert_manager_opts),
    ("barbican_client", barbican_opts),
]

for _group, _opts in _GROUPS:
    CONF.register_opts(_opts, group=_group)
CONF.register_opts(session_opts, group=AUTH_GROUP)


def operation_timeout(kind: str | None) -> int:
    """Seconds operation ``kind`` may run under its lease (see ``operation_timeouts``)."""
    value = CONF.conductor.operation_timeouts.get(kind or "")
    try:
        return max(1, int(value)) if value is not None else CONF.conductor.operation_timeout
    except ValueError:
        return CONF.conductor.operation_timeout


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """The ``magnum.conductor`` namespace of oslo-config-generator.

    ``[keystone_auth]`` also lists keystoneauth's session options and the password plugin's
    options, so the sample shows what a deployment sets there.
    """
    auth_opts = (auth_common_opts + session_opts
                 + ks_loading.get_auth_plugin_conf_options("password"))
    unique = list({opt.dest: opt for opt in auth_opts}.values())
    return [(group, unique if group == AUTH_GROUP else opts) for group, opts in _GROUPS]
