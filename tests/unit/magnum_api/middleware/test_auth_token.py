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


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_request_without_a_token_gets_401_in_the_error_envelope():
    """keystonemiddleware refuses a request with no token before it asks Keystone anything
    (here nothing listens where Keystone would be): the answer is the Magnum envelope, with
    keystonemiddleware's message and its WWW-Authenticate header."""
    import json

    import webob

    keystone = f"http://127.0.0.1:{_closed_port()}/v3"
    reached = []

    def app(env, start_response):
        reached.append(env["PATH_INFO"])
        start_response("200 OK", [("Content-Type", "application/json")])
        return [b"{}"]

    middleware = auth_token.AuthTokenMiddleware.factory(
        {}, www_authenticate_uri=keystone, delay_auth_decision="false")(app)
    request = webob.Request.blank("/v1/clusters")
    request.environ["openstack.request_id"] = "req-1"
    response = request.get_response(middleware)
    assert response.status_code == 401 and reached == []
    assert response.content_type == "application/json"
    assert response.headers["WWW-Authenticate"] == f'Keystone uri="{keystone}"'
    assert json.loads(response.body) == {"errors": [{
        "request_id": "req-1", "code": "client", "status": 401,
        "title": "The request you have made requires authentication",
        "detail": "The request you have made requires authentication.", "links": []}]}
    public = webob.Request.blank("/v1").get_response(middleware)
    assert public.status_code == 200 and reached == ["/v1"]
