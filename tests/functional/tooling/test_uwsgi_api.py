"""The shipped uWSGI configuration serves the real API application.

Runs uWSGI with etc/magnum-api-uwsgi.ini (only the listening address, the process count and
the configuration path changed) against a migrated SQLite database, the shipped
api-paste.ini and the noauth pipeline, and talks HTTP to it.
"""

from __future__ import annotations

import json
import pathlib
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from magnum_common import crypto

REPO = pathlib.Path(__file__).resolve().parents[3]
UWSGI = pathlib.Path(sys.executable).parent / "uwsgi"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.fixture
def uwsgi_api(db, tmp_path):
    conf = tmp_path / "magnum.conf"
    conf.write_text(f"[DEFAULT]\nauth_strategy = noauth\n"
                    f"[crypto]\nencryption_key = {crypto.generate_key()}\n"
                    f"[database]\nconnection = {db}\n"
                    f"[api]\napi_paste_config = {REPO / 'etc' / 'api-paste.ini'}\n")
    port = _free_port()
    replaced = {"http-socket": f"127.0.0.1:{port}", "processes": "1",
                "env": f"MAGNUM_CONFIG_FILES={conf}"}
    lines = []
    for line in (REPO / "etc" / "magnum-api-uwsgi.ini").read_text().splitlines():
        key = re.match(r"^([a-z-]+)\s*=", line)
        lines.append(f"{key.group(1)} = {replaced[key.group(1)]}"
                     if key and key.group(1) in replaced else line)
    ini = tmp_path / "uwsgi.ini"
    ini.write_text("\n".join(lines) + "\n")
    log = tmp_path / "uwsgi.log"

    with open(log, "w") as stream:
        process = subprocess.Popen([str(UWSGI), "--ini", str(ini)], cwd=tmp_path,
                                   stdout=stream, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text()[-3000:]
            try:
                _get(base + "/healthcheck")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError(log.read_text()[-3000:]) from None
                time.sleep(0.2)
        yield base
    finally:
        process.send_signal(signal.SIGTERM)  # die-on-term: a clean, quick stop
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_uwsgi_serves_versions_collections_and_healthcheck(uwsgi_api):
    status, body = _get(uwsgi_api + "/")
    assert status == 200
    assert [version["id"] for version in json.loads(body)["versions"]] == ["v1"]

    status, body = _get(uwsgi_api + "/v1/clusters",
                        {"OpenStack-API-Version": "container-infra latest",
                         "X-User-Id": "u", "X-Project-Id": "p", "X-Roles": "reader"})
    assert status == 200
    assert json.loads(body)["clusters"] == []

    status, _ = _get(uwsgi_api + "/healthcheck")
    assert status == 200


def test_uwsgi_lets_the_application_judge_odd_requests(uwsgi_api):
    """A lower-case method, a 5 KB query and a 20 KB header reach the application, which
    answers with its envelope (uWSGI's buffer-size bounds a request's head at 64 KiB)."""
    from tests.functional.tooling.test_api_server_errors import raw, request

    status, headers, body = raw(uwsgi_api, request(b"get", b"/v1/clusters"))
    assert (status, headers["allow"]) == (405, "GET, POST")
    status, _, body = raw(uwsgi_api, request(b"GET", b"/v1/clusters?" + b"a" * 5000 + b"=1"))
    assert status == 400 and json.loads(body)["errors"][0]["detail"].startswith(
        'Unknown argument: "aaa')
    status, _, body = raw(uwsgi_api, request(b"GET", b"/v1/clusters",
                                             b"X-Big: " + b"a" * 20000 + b"\r\n"))
    assert status == 200 and json.loads(body) == {"clusters": []}
