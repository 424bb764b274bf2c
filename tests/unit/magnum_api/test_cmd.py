"""magnum-api's gunicorn settings come from ``[api]``."""

from __future__ import annotations

import multiprocessing

from oslo_config import cfg

from magnum_api import cmd, wsgi_server

CONF = cfg.CONF


def test_server_options_follow_the_configuration():
    CONF.set_override("host", "127.0.0.2", "api")
    CONF.set_override("port", 19511, "api")
    CONF.set_override("workers", 3, "api")
    options = cmd.server_options()
    assert options["bind"] == "127.0.0.2:19511" and options["workers"] == 3
    assert options["worker_class"] == "magnum_api.wsgi_server.ThreadWorker"
    assert options["limit_request_line"] == wsgi_server.LIMITS["limit_request_line"]
    assert "certfile" not in options
    CONF.set_override("enabled_ssl", True, "api")
    CONF.set_override("ssl_cert_file", "/etc/magnum/api.crt", "api")
    CONF.set_override("ssl_key_file", "/etc/magnum/api.key", "api")
    tls = cmd.server_options()
    assert (tls["certfile"], tls["keyfile"]) == ("/etc/magnum/api.crt",
                                                 "/etc/magnum/api.key")
    CONF.clear_override("workers", "api")
    assert cmd.server_options()["workers"] == multiprocessing.cpu_count()
