"""Development authentication: identity taken from request headers, no token checked.

Selected with ``[DEFAULT] auth_strategy = noauth``. ``X-User-Id``, ``X-Project-Id`` and
``X-Roles`` are trusted as sent; absent ones get fixed defaults so that clients which can
only send a token (python-magnumclient, ``openstack coe``) still act as one admin user.
"""

from __future__ import annotations

from oslo_config import cfg

CONF = cfg.CONF

noauth_opts = [
    cfg.StrOpt("user_id", default="noauth-user",
               help="User id of requests that carry no X-User-Id header (noauth only)."),
    cfg.StrOpt("project_id", default="noauth-project",
               help="Project id of requests that carry no X-Project-Id header (noauth only)."),
    cfg.ListOpt("roles", default=["admin", "member", "reader"],
                help="Roles of requests that carry no X-Roles header (noauth only)."),
]
CONF.register_opts(noauth_opts, group="noauth")


class NoAuthMiddleware:
    def __init__(self, app) -> None:
        self.app = app

    def __call__(self, environ, start_response):
        environ.setdefault("HTTP_X_USER_ID", CONF.noauth.user_id)
        environ.setdefault("HTTP_X_PROJECT_ID", CONF.noauth.project_id)
        environ.setdefault("HTTP_X_ROLES", ",".join(CONF.noauth.roles))
        environ.setdefault("HTTP_X_IDENTITY_STATUS", "Confirmed")
        return self.app(environ, start_response)

    @classmethod
    def factory(cls, global_config, **local_conf):
        return cls


def list_opts():
    return [("noauth", noauth_opts)]
