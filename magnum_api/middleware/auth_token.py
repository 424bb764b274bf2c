"""keystonemiddleware's auth_token, skipping token validation for the public routes."""

from __future__ import annotations

import re

from keystonemiddleware import auth_token
from oslo_config import cfg

CONF = cfg.CONF
#: ``GET /`` and ``GET /v1`` answer without a token (version discovery).
PUBLIC_ROUTES = ("/", "/v1")


class AuthTokenMiddleware(auth_token.AuthProtocol):
    def __init__(self, app, conf: dict, public_api_routes: tuple[str, ...] = PUBLIC_ROUTES):
        self.public_api_routes = [re.compile(rf"^{re.escape(route)}(\.json)?$")
                                  for route in public_api_routes]
        super().__init__(app, conf)

    def __call__(self, env, start_response):
        path = env.get("PATH_INFO", "/").rstrip("/") or "/"
        env["is_public_api"] = any(r.match(path) for r in self.public_api_routes)
        if env["is_public_api"]:
            return self._app(env, start_response)
        return super().__call__(env, start_response)

    @classmethod
    def factory(cls, global_config, **local_conf):
        def _factory(app):
            conf = {**global_config, **local_conf, "oslo_config_config": CONF}
            return cls(app, conf)
        return _factory
