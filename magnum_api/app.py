"""The WSGI application: the pecan app, and the paste pipeline that wraps it."""

from __future__ import annotations

import os
import sys

import pecan
import webob.multidict
from oslo_config import cfg
from paste import deploy

from magnum_api import hooks
from magnum_api.conf import CONF
from magnum_api.middleware import access_log
from magnum_api.middleware.errors import ParsableErrorMiddleware
from magnum_common import crypto

# Where the shipped paste file lives: the source tree, or <prefix>/etc/magnum when installed.
_SHIPPED_PASTE = (
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                 "etc", "api-paste.ini"),
    os.path.join(sys.prefix, "etc", "magnum", "api-paste.ini"),
)


class Request(pecan.Request):
    """pecan's request, minus the body parsing pecan does on its own: handlers' bodies are
    read once, bounded and validated, by their declared schema (magnum_api/schemas)."""

    @property
    def json(self):
        raise TypeError("request bodies are decoded by the schemas")

    json_body = json

    @property
    def POST(self):
        return webob.multidict.NoVars()


def setup_app() -> ParsableErrorMiddleware:
    """The pecan application wrapped in the error-envelope middleware."""
    from magnum_api import routing_cache
    from magnum_api.controllers.root import RootController

    routing_cache.install()
    app = pecan.make_app(
        RootController(),
        hooks=[hooks.ContextHook(), hooks.ValidationHook(), hooks.ErrorHook(),
               hooks.MicroversionHook()],
        request_cls=Request,
        force_canonical=False,
        guess_content_type_from_ext=False,
        logging=False,
        debug=False,
    )
    return ParsableErrorMiddleware(app)


def app_factory(global_config, **local_conf):
    """paste.app_factory for the innermost application."""
    return setup_app()


def pipeline_factory(loader, global_conf, **local_conf):
    """Picks the ``keystone`` or ``noauth`` pipeline from ``[DEFAULT] auth_strategy``.

    The API seals every requester's token it records (``RequestContext.record``), so it
    refuses to start without usable ``[crypto]`` keys rather than fail each request.
    """
    crypto.check_configured()
    names = local_conf[CONF.auth_strategy].split()
    filters = [loader.get_filter(name) for name in names[:-1]]
    app = loader.get_app(names[-1])
    for wrap in reversed(filters):
        app = wrap(app)
    return app


def paste_config_path() -> str:
    try:
        found = CONF.find_file(CONF.api.api_paste_config)
    except cfg.NotInitializedError:  # configuration not parsed (embedded use, tests)
        found = None
    if found:
        return os.path.abspath(found)
    if os.path.isabs(CONF.api.api_paste_config) and os.path.exists(CONF.api.api_paste_config):
        return CONF.api.api_paste_config
    for path in _SHIPPED_PASTE:
        if os.path.exists(path):
            return path
    raise cfg.ConfigFilesNotFoundError([CONF.api.api_paste_config])


def load_app():
    """The whole pipeline (``main`` in the paste file) behind the access log, as served by
    magnum-api / uWSGI."""
    return access_log.wrap(deploy.loadapp(f"config:{paste_config_path()}", name="main"))
