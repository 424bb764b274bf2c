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

from magnum_api import wsgi_server
from magnum_api.conf import CONF


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


if __name__ == "__main__":
    main()
