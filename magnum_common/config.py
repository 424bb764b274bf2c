"""Process bootstrap shared by every command: options, config files, logging."""

from __future__ import annotations

import os
import socket

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

CONF.register_opts(path_opts)
CONF.register_opts(service_opts)

_DEFAULT_SQL_CONNECTION = "sqlite:///" + os.path.join("$state_path", "magnum.sqlite")
db_options.set_defaults(CONF, connection=_DEFAULT_SQL_CONNECTION)

logging.register_options(CONF)

_PROJECT = "magnum"


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
    import sys

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
    import sys

    logging.set_defaults(
        default_log_levels=logging.get_default_log_levels()
        + ["stevedore=INFO", "keystoneauth=INFO", "kombu=INFO", "amqp=INFO",
           "pecan=WARN", "alembic=WARN"]
    )
    parse_args(sys.argv[1:] if argv is None else argv)
    logging.setup(CONF, _PROJECT)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    return [(None, path_opts + service_opts)]
