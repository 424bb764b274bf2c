"""The harness's tiny REST client against a real HTTP server on 127.0.0.1: JSON in and
out, the token header, errors with their body, and catalog lookups."""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from localcloud import rest

SEEN: list[dict] = []


class _Keystoneish(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        SEEN.append({"path": self.path, "token": self.headers.get("X-Auth-Token"),
                     "type": self.headers.get("Content-Type"),
                     "body": json.loads(self.rfile.read(length) or b"null")})
        if self.path == "/v3/auth/tokens":
            self._send(201, {"token": {"catalog": []}}, {"X-Subject-Token": "tok-1"})
        else:
            self._send(409, {"error": {"message": "already exists"}})

    def do_GET(self):
        self._send(200, "plain text")

    def _send(self, code, body, headers=None):
        data = (json.dumps(body) if not isinstance(body, str) else body).encode()
        self.send_response(code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    SEEN.clear()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Keystoneish)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_password_login_scoped_to_a_project(server):
    token, body = rest.password_token(server + "/v3/", "admin", "pw", project="admin")
    assert (token, body) == ("tok-1", {"catalog": []})
    sent = SEEN[0]["body"]["auth"]
    assert sent["scope"] == {"project": {"name": "admin", "domain": {"name": "Default"}}}
    assert sent["identity"]["password"]["user"]["password"] == "pw"


def test_errors_carry_their_code_and_body_and_text_stays_text(server):
    with pytest.raises(rest.HTTPError) as raised:
        rest.request("POST", server + "/v3/projects", token="tok-1", body={"a": 1})
    assert raised.value.code == 409 and "already exists" in raised.value.body
    assert SEEN[-1]["token"] == "tok-1" and SEEN[-1]["type"] == "application/json"
    assert rest.request("GET", server + "/")[2] == "plain text"


def test_catalog_lookup_by_type_interface_and_region():
    body = {"catalog": [
        {"type": "identity", "endpoints": [
            {"interface": "public", "region_id": "RegionOne", "url": "http://127.0.0.1:5000"}]},
        {"type": "orchestration", "endpoints": [
            {"interface": "internal", "region_id": "RegionOne", "url": "http://127.0.0.2"},
            {"interface": "public", "region_id": "RegionTwo", "url": "http://127.0.0.3"}]}]}
    assert rest.catalog_url(body, "orchestration") == "http://127.0.0.3"
    assert rest.catalog_url(body, "orchestration", "internal") == "http://127.0.0.2"
    assert rest.catalog_url(body, "orchestration", region="RegionOne") is None
    assert rest.catalog_url(body, "image") is None
