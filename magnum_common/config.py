"""magnum_common's configuration: every option it declares, and the bootstrap of a process.

The options are registered when this module is imported; modules read them through
``from magnum_common.config import CONF``, so an option is registered before it is read
whichever module a process imports first. ``list_opts()`` is the ``magnum.common``
namespace of oslo-config-generator (setup.cfg). ``prepare_service()`` is the first thing
every command does: parse the command line and config files, set up logging.
"""

from __future__ import annotations

import os
import socket
import sys

from oslo_config import cfg
from oslo_db import options as db_options
from oslo_log import log as logging

CONF = cfg.CONF

path_opts = [
    cfg.StrOpt(
        "pybasedir",
        default=os.path.abspath(os.path.join(os.path.dirname(__file__), "..")),
        sample_default="<Path>",
        help="Directory where the magnum python modules are installed.",
    ),
    cfg.StrOpt("bindir", default="$pybasedir/bin",
               help="Directory where magnum binaries are installed."),
    cfg.StrOpt("state_path", default="$pybasedir",
               help="Top-level directory for maintaining magnum's state."),
]

service_opts = [
    cfg.HostAddressOpt(
        "host",
        default=socket.gethostname(),
        sample_default="localhost",
        help="Name of this node: the service identity in magnum_service rows and the "
        "publisher id of notifications.",
    ),
]

password_opts = [
    cfg.ListOpt(
        "password_symbols",
        default=["23456789", "ABCDEFGHJKLMNPQRSTUVWXYZ", "abcdefghijkmnopqrstuvwxyz"],
        help="Symbol groups used for generated passwords; every password holds at least "
        "one symbol of each group.",
    ),
]

service_down_opts = [
    cfg.IntOpt(
        "service_down_time",
        default=180,
        help="Seconds since a service's last heartbeat after which it is considered down.",
    ),
]

#: ``[conductor]`` as the RPC client sees it (the conductor adds its own options there).
conductor_client_opts = [
    cfg.StrOpt("topic", default="magnum-conductor",
               help="The queue the conductors listen on; the API sends every request there."),
    cfg.IntOpt("cast_retry", default=2, min=0,
               help="Connection retries for a cast before the API answers 503 and leaves "
               "the recorded operation to the conductors' recovery."),
    cfg.IntOpt("delete_takeover_after", default=60, min=0,
               help="Seconds a cluster delete whose conductor still holds the cluster's "
               "lease may go without recording progress (a step started) before another "
               "DELETE takes it over: the old conductor is fenced and the delete starts "
               "again at once. A DELETE sooner than this names the running delete and "
               "changes nothing; 0: every DELETE takes over a delete holding the lease."),
]

sqlite_opts = [
    cfg.FloatOpt(
        "sqlite_busy_timeout",
        default=30.0,
        min=0.0,
        help="Seconds a transaction on a SQLite file database waits for another process's "
        "or thread's write lock before it fails with 'database is locked'. A timeout "
        "query parameter in the connection URL takes precedence.",
    ),
]

#: ``[drivers]``: which drivers load and which one a new template gets (drivers/registry).
driver_opts = [
    cfg.StrOpt("default_driver",
               help="Driver stored on templates whose body and image name none; default: "
               "the first installed driver (by name) serving the template's type."),
    cfg.ListOpt("disabled_drivers", default=[],
                help="Drivers (entry-point names) that are not loaded."),
    cfg.ListOpt("enabled_beta_drivers", default=[],
                help="Beta drivers that may be used."),
]

#: The boot-volume default both the API's root-disk rule and the drivers' stacks follow.
cinder_opts = [
    cfg.IntOpt("default_boot_volume_size", default=0, min=0,
               help="Boot-from-volume size in GB when the label boot_volume_size is unset; "
               "0 boots from the image on the flavor's root disk."),
]

#: ``[crypto]``: the keys of magnum_common.crypto (API and conductors alike).
crypto_opts = [
    cfg.StrOpt(
        "encryption_key",
        secret=True,
        help="Key encrypting the secrets Magnum stores (trustee passwords, private keys of "
        "the x509keypair certificate backend, the requester's token recorded with an "
        "operation): 32 random bytes in url-safe base64, e.g. from `python -c 'from "
        "cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'`. Must "
        "be identical on every API and conductor host. Required as soon as a cluster is "
        "created.",
    ),
    cfg.ListOpt(
        "previous_encryption_keys",
        default=[],
        secret=True,
        help="Former values of encryption_key, still accepted for decryption while stored "
        "secrets are moved to the current key.",
    ),
]

#: ``[trust]`` as the API, the drivers and the conductor read it (the conductor adds the
#: trustee domain options); the roles are read by magnum_common/trust_roles.py.
trust_opts = [
    cfg.BoolOpt(
        "cluster_user_trust", default=False,
        help="Give the cluster's nodes the trustee's password and the trust, letting them "
        "call OpenStack APIs as the cluster owner (the cloud provider, Cinder CSI, the "
        "autoscaler, the Octavia ingress controller and magnum-auto-healer need it; the API "
        "refuses them when this is false). When false, nodes hold no OpenStack credential: "
        "they obtain their certificates with a node token that only this cluster's "
        "certificate routes accept.",
    ),
    cfg.ListOpt(
        "roles", default=["member"],
        help="Roles every cluster's trust delegates to the cluster's trustee: what the "
        "conductor needs to manage the cluster's stacks after the requester's token expired "
        "(Heat, Nova key pairs, Glance) and the nodes need to reach Magnum. The requester "
        "must hold them (the API answers 400 naming the missing role otherwise). Empty "
        "delegates every role of the requester, as upstream Magnum does; then the feature "
        "options below are not used.",
    ),
    cfg.ListOpt(
        "cloud_provider_roles", default=["load-balancer_member"],
        help="Roles the trust adds when the cluster runs the OpenStack cloud provider "
        "(label cloud_provider_enabled, on by default when the nodes hold the trust): it "
        "creates Octavia load balancers for Services of type LoadBalancer, which Octavia's "
        "default policy grants to load-balancer_member. Set it empty where Octavia enforces "
        "its new defaults (member is enough).",
    ),
    cfg.ListOpt(
        "cinder_csi_roles", default=[],
        help="Roles the trust adds for Cinder CSI (label cinder_csi_enabled, or volume_driver "
        "cinder): creating and attaching volumes needs no more than [trust] roles' member.",
    ),
    cfg.ListOpt(
        "autoscaler_roles", default=[],
        help="Roles the trust adds for the cluster autoscaler (label auto_scaling_enabled): "
        "it resizes node groups through the Magnum API, which member may do.",
    ),
    cfg.ListOpt(
        "octavia_ingress_roles", default=["load-balancer_member"],
        help="Roles the trust adds for the Octavia ingress controller (label "
        "ingress_controller=octavia): load balancers, as for cloud_provider_roles.",
    ),
    cfg.ListOpt(
        "auto_healer_roles", default=[],
        help="Roles the trust adds for magnum-auto-healer (label auto_healing_controller="
        "magnum-auto-healer): it reads Nova servers and resizes node groups through Magnum, "
        "which member may do.",
    ),
]

_GROUPS: list[tuple[str | None, list[cfg.Opt]]] = [
    (None, path_opts + service_opts + password_opts + service_down_opts),
    ("cinder", cinder_opts),
    ("conductor", conductor_client_opts),
    ("crypto", crypto_opts),
    ("database", sqlite_opts),
    ("drivers", driver_opts),
    ("trust", trust_opts),
]

for _group, _opts in _GROUPS:
    CONF.register_opts(_opts, group=_group)


_DEFAULT_SQL_CONNECTION = "sqlite:///" + os.path.join("$state_path", "magnum.sqlite")
db_options.set_defaults(CONF, connection=_DEFAULT_SQL_CONNECTION)

logging.register_options(CONF)

_PROJECT = "magnum"
#: Magnum's exchange on the broker, as upstream's (oslo.messaging's own default: openstack).
CONTROL_EXCHANGE = "magnum"


def set_messaging_defaults() -> None:
    """oslo.messaging's defaults as Magnum runs with them: in every process that talks to
    the broker (rpc.py) and in the generated sample (``list_opts``). oslo.messaging is
    imported here only then: commands without a broker (magnum-db-manage) start without it."""
    import oslo_messaging

    oslo_messaging.set_transport_defaults(control_exchange=CONTROL_EXCHANGE)


def parse_args(argv: list[str] | None, default_config_files: list[str] | None = None) -> None:
    """Parse command line and config files into the global CONF."""
    CONF(
        argv if argv is not None else [],
        project=_PROJECT,
        version="0.1.0",
        default_config_files=default_config_files,
    )
    _validate_values()


def _validate_values() -> None:
    """Read every registered option once so a malformed value fails at start, not later."""
    def check(namespace) -> None:
        for name in list(namespace):
            try:
                value = getattr(namespace, name)
            except (cfg.ConfigFileValueError, cfg.NoSuchOptError, cfg.RequiredOptError) as exc:
                if isinstance(exc, cfg.ConfigFileValueError):
                    print(f"Error: {exc}", file=sys.stderr)
                    raise SystemExit(1) from exc
                continue
            if isinstance(value, cfg.ConfigOpts.GroupAttr):
                check(value)

    check(CONF)


def prepare_service(argv: list[str] | None = None) -> None:
    """Parse configuration and set up logging; the first thing every service does."""
    logging.set_defaults(
        default_log_levels=logging.get_default_log_levels()
        + ["stevedore=INFO", "keystoneauth=INFO", "kombu=INFO", "amqp=INFO",
           "pecan=WARN", "alembic=WARN"]
    )
    parse_args(sys.argv[1:] if argv is None else argv)
    logging.setup(CONF, _PROJECT)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    """The ``magnum.common`` namespace of oslo-config-generator."""
    set_messaging_defaults()
    return list(_GROUPS)
