"""``magnum-api``: the production WSGI server (gunicorn's application API, in-process).

A pre-forking server: the master loads the paste pipeline once, forks ``[api] workers``
workers (threads inside each keep HTTP connections alive) and replaces any that die. The
database engine and the RPC transport are created lazily, after the fork, in each worker
(:mod:`magnum_api.wsgi_server` holds the worker, the logger and the fork hooks).
"""

from __future__ import annotations

import multiprocessing
import sys
from typing import Any

from gunicorn.app.base import BaseApplication
from oslo_config import cfg

from magnum_api import wsgi_server

CONF = cfg.CONF

server_opts = [
    cfg.HostAddressOpt("host", default="127.0.0.1", help="Address the API listens on."),
    cfg.PortOpt("port", default=9511, help="Port the API listens on."),
    cfg.IntOpt("workers", min=1,
               help="Worker processes of the API server; default: the number of CPUs."),
    cfg.IntOpt("threads", default=4, min=1,
               help="Threads per worker (each serves one connection at a time)."),
    cfg.IntOpt("keepalive", default=75, min=0,
               help="Seconds an idle HTTP keep-alive connection is kept open. Longer than "
               "clients poll (terraform: every 10-20 s) and than the idle timeout of a load "
               "balancer in front (typically 60 s), so that the client side closes first; "
               "a request that reaches a connection as it expires is still served."),
    cfg.IntOpt("worker_timeout", default=120, min=1,
               help="Seconds a worker may spend on one request before it is restarted."),
    cfg.BoolOpt("enabled_ssl", default=False, help="Serve HTTPS."),
    cfg.StrOpt("ssl_cert_file", help="Certificate (PEM) for HTTPS."),
    cfg.StrOpt("ssl_key_file", help="Private key (PEM) for HTTPS."),
]
CONF.register_opts(server_opts, group="api")


class APIServer(BaseApplication):
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self):
        from magnum_api import app

        application = app.load_app()
        wsgi_server.preload()
        return application


def server_options() -> dict[str, Any]:
    options: dict[str, Any] = {
        "bind": f"{CONF.api.host}:{CONF.api.port}",
        "workers": CONF.api.workers or multiprocessing.cpu_count(),
        "worker_class": "magnum_api.wsgi_server.ThreadWorker",
        "threads": CONF.api.threads,
        "keepalive": CONF.api.keepalive,
        "timeout": CONF.api.worker_timeout,
        "preload_app": True,
        "pre_fork": wsgi_server.pre_fork,
        "post_fork": wsgi_server.post_fork,
        "proc_name": "magnum-api",
        "logger_class": wsgi_server.OsloLogger,
        "loglevel": "info",
        "control_socket_disable": True,
        **wsgi_server.LIMITS,
    }
    if CONF.api.enabled_ssl:
        options.update(certfile=CONF.api.ssl_cert_file, keyfile=CONF.api.ssl_key_file)
    return options


def main(argv: list[str] | None = None) -> None:
    from magnum_common import config

    config.prepare_service(sys.argv[1:] if argv is None else argv)
    APIServer(server_options()).run()


def list_opts():
    return [("api", server_opts)]


if __name__ == "__main__":
    main()
