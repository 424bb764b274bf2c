"""The real magnum-api server (gunicorn) lets every request the application can judge reach
it, and answers what it must refuse itself in the same JSON error envelope, never HTML."""

from __future__ import annotations

import json
import re
import socket

import pytest

from tests.functional.tooling.test_api_server import magnum_api

IDENTITY = b"X-User-Id: u\r\nX-Project-Id: p\r\nX-Roles: admin,member,reader\r\n"


def raw(base: str, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``data`` as is; the status, headers and body of the answer."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(data)
        received = b""
        while True:
            chunk = sock.recv(65536)
            received += chunk
            head, sep, body = received.partition(b"\r\n\r\n")
            length = re.search(rb"(?im)^content-length: *(\d+)", head)
            if not chunk or (sep and length and len(body) >= int(length.group(1))):
                break
    lines = head.decode("latin1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def request(method: bytes, target: bytes, extra: bytes = b"", body: bytes = b"") -> bytes:
    length = b"Content-Length: %d\r\n" % len(body) if body else b""
    return (method + b" " + target + b" HTTP/1.1\r\nHost: h\r\nConnection: close\r\n" + extra
            + IDENTITY + length + b"\r\n" + body)


CASES = [
    # (request, status, who answers)
    (request(b"get", b"/v1/clusters"), 405, "app"),
    (request(b"GET", b"/v1/clusters?" + b"a" * 5000 + b"=1"), 400, "app"),
    (request(b"GET", b"/v1/clusters", b"X-Big: " + b"a" * 9000 + b"\r\n"), 200, "app"),
    (request(b"GET", b"/v1/clusters",
             b"".join(b"X-H%d: v\r\n" % i for i in range(150))), 200, "app"),
    (request(b"GET", b"/v1/clusters?" + b"a" * 9000 + b"=1"), 414, "server"),
    (request(b"GET", b"/v1/clusters", b"X-Big: " + b"a" * 40000 + b"\r\n"), 431, "server"),
    (request(b"POST", b"/v1/clustertemplates", b"Content-Type: application/json\r\n"
             b"Content-Type: text/plain\r\n", b"{}"), 400, "server"),
    (request(b"GET", b"/v1/clusters", b"Bad Header\r\n"), 400, "server"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from magnum_common.db import migration
    from tests.conftest import _use

    tmp = tmp_path_factory.mktemp("api")
    url = f"sqlite:///{tmp / 'magnum.sqlite'}"
    _use(url)
    migration.upgrade()
    with magnum_api(tmp, url) as (base, _):
        yield base


@pytest.mark.parametrize("data, status, who", CASES,
                         ids=[f"{i}-{c[1]}-{c[2]}" for i, c in enumerate(CASES)])
def test_answers_are_json_envelopes(server, data, status, who):
    got, headers, body = raw(server, data)
    assert got == status, body[:300]
    assert headers["content-type"] == "application/json"
    document = json.loads(body)
    if status >= 400:
        [error] = document["errors"]
        assert error["status"] == status and error["code"] in ("client", "")  # 4.3: ""
        # The application's answers carry the request id middleware's header; the server's
        # own come before any middleware.
        assert ("x-openstack-request-id" in headers) == (who == "app")
    if status == 405:
        assert headers["allow"] == "GET, POST"
