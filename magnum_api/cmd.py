"""``magnum-api``: the production WSGI server (gunicorn, in-process, pre-forked workers)."""

from __future__ import annotations

import multiprocessing

from oslo_config import cfg

CONF = cfg.CONF

server_opts = [
    cfg.HostAddressOpt("host", default="127.0.0.1", help="Address the API listens on."),
    cfg.PortOpt("port", default=9511, help="Port the API listens on."),
    cfg.IntOpt("workers", min=1,
               help="Worker processes of the API server; default: the number of CPUs."),
]
CONF.register_opts(server_opts, group="api")


def main() -> None:
    raise SystemExit(f"not implemented yet ({multiprocessing.cpu_count()})")


def list_opts():
    return [("api", server_opts)]
