"""keystonemiddleware's auth_token, skipping token validation for the public routes and for
node-token requests to the node routes (checked by the certificates controller); its 401
(no token, or one Keystone does not accept) is answered in the Magnum error envelope."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable

from keystonemiddleware import auth_token
from oslo_config import cfg

from magnum_api import errors

CONF = cfg.CONF
#: ``GET /`` and ``GET /v1`` answer without a token (version discovery), and so does the
#: API's description, ``GET /v1/openapi.json``.
PUBLIC_ROUTES = ("/", "/v1", "/v1/openapi")
#: Identity headers only keystonemiddleware may set; a client's own are dropped on the
#: public routes too (elsewhere keystonemiddleware drops them), so neither a handler nor
#: the access log ever sees a claimed identity.
_IDENTITY_HEADERS = ("HTTP_X_USER", "HTTP_X_PROJECT", "HTTP_X_TENANT", "HTTP_X_DOMAIN",
                     "HTTP_X_SERVICE_", "HTTP_X_ROLE", "HTTP_X_IDENTITY_STATUS",
                     "HTTP_X_IS_ADMIN_PROJECT", "HTTP_X_SYSTEM_SCOPE", "HTTP_X_TRUST")


#: Where a node holding no trust authenticates with its cluster's node token instead of a
#: Keystone token (``[trust] cluster_user_trust = false``): the CA and CSR signing, nothing
#: else. The certificates controller checks the token against the cluster.
NODE_TOKEN_HEADER = "X-Magnum-Node-Token"
_NODE_ROUTES = (("GET", re.compile(r"^/v1/certificates/[^/]+/?$")),
                ("POST", re.compile(r"^/v1/certificates/?$")))


def is_node_request(env: dict) -> bool:
    """A node-token request to a node route, carrying no Keystone token."""
    if "HTTP_X_MAGNUM_NODE_TOKEN" not in env or "HTTP_X_AUTH_TOKEN" in env:
        return False
    method, path = env.get("REQUEST_METHOD"), env.get("PATH_INFO", "")
    return any(method == m and r.match(path) for m, r in _NODE_ROUTES)


def _message(body: bytes) -> str:
    """The message of keystonemiddleware's 401 body."""
    try:
        message = json.loads(body)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = None
    return message if isinstance(message, str) and message else \
        "The request you have made requires authentication."


def route_patterns(routes: tuple[str, ...]) -> list[re.Pattern]:
    """A route matches itself with or without a ``.json`` suffix (upstream's rule)."""
    return [re.compile(rf"^{re.escape(route)}(\.json)?$") for route in routes]


def is_public(path: str, patterns: list[re.Pattern]) -> bool:
    return any(r.match(path.rstrip("/") or "/") for r in patterns)


class AuthTokenMiddleware(auth_token.AuthProtocol):
    def __init__(self, app, conf: dict, public_api_routes: tuple[str, ...] = PUBLIC_ROUTES):
        self.public_api_routes = route_patterns(public_api_routes)
        super().__init__(app, conf)

    def __call__(self, env, start_response):
        env["is_public_api"] = is_public(env.get("PATH_INFO", "/"), self.public_api_routes)
        if env["is_public_api"] or is_node_request(env):
            for key in [k for k in env if k.startswith(_IDENTITY_HEADERS)]:
                del env[key]
            return self._app(env, start_response)
        return self._enveloped(env, start_response)

    def _enveloped(self, env: dict, start_response: Callable) -> Iterable[bytes]:
        """keystonemiddleware's own 401 (``{"error": {...}}``) as the envelope every other
        error comes in, its message and ``WWW-Authenticate`` kept; the API's answers pass."""
        refused: dict = {}

        def start(status: str, headers: list, exc_info=None):
            if not status.startswith("401") or env.get(errors.RENDERED):
                return start_response(status, headers, exc_info)
            refused["status"] = status
            refused["headers"] = [(k, v) for k, v in headers
                                  if k.lower() not in ("content-type", "content-length")]
            return lambda data: None

        body = super().__call__(env, start)
        if not refused:
            return body
        data = b"".join(body)
        if hasattr(body, "close"):
            body.close()
        envelope = errors.envelope(401, _message(data), errors.request_id(env))
        data = json.dumps(envelope).encode()
        start_response(refused["status"], refused["headers"] + [
            ("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
        return [data]

    @classmethod
    def factory(cls, global_config, **local_conf):
        """``acl_public_routes`` (comma-separated, in the paste section) is ours: it is taken
        out before keystonemiddleware sees the rest, which warns about options it does not
        know."""
        local_conf = dict(local_conf)
        routes = local_conf.pop("acl_public_routes", None)
        public = (tuple(r.strip().rstrip("/") or "/" for r in routes.split(",") if r.strip())
                  if routes is not None else PUBLIC_ROUTES)

        def _factory(app):
            conf = {**global_config, **local_conf, "oslo_config_config": CONF}
            return cls(app, conf, public)
        return _factory
