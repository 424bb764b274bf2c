"""Which requests pass keystonemiddleware without a Keystone token: node-token requests to the
two node routes only (the certificates controller then checks the token)."""

from __future__ import annotations

import pytest

from magnum_api.middleware import auth_token


def _env(method: str, path: str, **headers: str) -> dict:
    return {"REQUEST_METHOD": method, "PATH_INFO": path, **headers}


@pytest.mark.parametrize(("method", "path", "headers", "node"), [
    ("GET", "/v1/certificates/c-1", {"HTTP_X_MAGNUM_NODE_TOKEN": "t"}, True),
    ("POST", "/v1/certificates", {"HTTP_X_MAGNUM_NODE_TOKEN": "t"}, True),
    ("GET", "/v1/certificates/c-1", {}, False),
    ("GET", "/v1/certificates/c-1",
     {"HTTP_X_MAGNUM_NODE_TOKEN": "t", "HTTP_X_AUTH_TOKEN": "k"}, False),
    ("PATCH", "/v1/certificates/c-1", {"HTTP_X_MAGNUM_NODE_TOKEN": "t"}, False),
    ("GET", "/v1/clusters/c-1", {"HTTP_X_MAGNUM_NODE_TOKEN": "t"}, False),
    ("GET", "/v1/certificates/c-1/x", {"HTTP_X_MAGNUM_NODE_TOKEN": "t"}, False),
    ("DELETE", "/v1/certificates", {"HTTP_X_MAGNUM_NODE_TOKEN": "t"}, False),
])
def test_only_node_routes_skip_keystone_for_a_node_token(method, path, headers, node):
    assert auth_token.is_node_request(_env(method, path, **headers)) is node
