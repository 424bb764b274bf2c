"""WSGI entry point for uWSGI / mod_wsgi: ``magnum_api.wsgi:application``.

Configuration comes from the default locations (``/etc/magnum/magnum.conf``...) or from
the files named in ``MAGNUM_CONFIG_FILES`` (comma-separated).
"""

from __future__ import annotations

import os

from magnum_api import app
from magnum_common import config


def _argv() -> list[str]:
    argv: list[str] = []
    for path in filter(None, os.environ.get("MAGNUM_CONFIG_FILES", "").split(",")):
        argv += ["--config-file", path]
    return argv


config.prepare_service(_argv())
application = app.load_app()
