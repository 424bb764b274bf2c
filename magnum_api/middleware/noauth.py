"""Development authentication: identity taken from request headers, no token checked.

Selected with ``[DEFAULT] auth_strategy = noauth``. ``X-User-Id``, ``X-Project-Id`` and
``X-Roles`` are trusted as sent. A request without them has no identity and the policy
refuses it (403), as upstream. A development setup whose clients can only send a token
(python-magnumclient, ``openstack coe`` with ``--os-auth-type none``) may name the identity
such requests get with the ``[noauth]`` options.
"""

from __future__ import annotations

from magnum_api.conf import CONF


class NoAuthMiddleware:
    def __init__(self, app) -> None:
        self.app = app

    def __call__(self, environ, start_response):
        if CONF.noauth.user_id:
            environ.setdefault("HTTP_X_USER_ID", CONF.noauth.user_id)
        if CONF.noauth.project_id:
            environ.setdefault("HTTP_X_PROJECT_ID", CONF.noauth.project_id)
        if CONF.noauth.roles:
            environ.setdefault("HTTP_X_ROLES", ",".join(CONF.noauth.roles))
        environ.setdefault("HTTP_X_IDENTITY_STATUS", "Confirmed")
        return self.app(environ, start_response)

    @classmethod
    def factory(cls, global_config, **local_conf):
        return cls
