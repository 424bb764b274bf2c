"""noauth: identity as the headers say it, the ``[noauth]`` identity only where none is sent."""

from __future__ import annotations

import webob
from oslo_config import cfg

from magnum_api.middleware import noauth

CONF = cfg.CONF


def _seen(headers: dict[str, str]) -> dict:
    seen = {}

    def app(env, start_response):
        seen.update({k: v for k, v in env.items() if k.startswith("HTTP_X_")})
        start_response("204 No Content", [])
        return []

    request = webob.Request.blank("/v1/clusters", headers=headers)
    assert request.get_response(noauth.NoAuthMiddleware.factory({})(app)).status_code == 204
    return seen


def test_without_options_the_headers_are_the_identity():
    seen = _seen({"X-User-Id": "u", "X-Project-Id": "p", "X-Roles": "member"})
    assert (seen["HTTP_X_USER_ID"], seen["HTTP_X_PROJECT_ID"], seen["HTTP_X_ROLES"]) == (
        "u", "p", "member")
    assert seen["HTTP_X_IDENTITY_STATUS"] == "Confirmed"
    assert "HTTP_X_USER_ID" not in _seen({})


def test_the_configured_identity_fills_in_only_what_is_missing():
    CONF.set_override("user_id", "dev", "noauth")
    CONF.set_override("project_id", "devp", "noauth")
    CONF.set_override("roles", ["admin", "member"], "noauth")
    seen = _seen({})
    assert (seen["HTTP_X_USER_ID"], seen["HTTP_X_PROJECT_ID"], seen["HTTP_X_ROLES"]) == (
        "dev", "devp", "admin,member")
    assert _seen({"X-Project-Id": "other"})["HTTP_X_PROJECT_ID"] == "other"
