"""magnum-api as operators run it (gunicorn, preloaded, several threads): a clean start,
the access log, and keep-alive connections that never lose a polling client's request.

Each test starts the real ``magnum-api`` command on a migrated SQLite database and talks
HTTP to it from here.
"""

from __future__ import annotations

import contextlib
import http.client
import pathlib
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest
import requests

from magnum_common import crypto

MAGNUM_API = pathlib.Path(sys.executable).parent / "magnum-api"
HEADERS = {"X-User-Id": "poller", "X-Project-Id": "project-p", "X-Roles": "member,reader",
           "OpenStack-API-Version": "container-infra latest"}
#: What no clean start prints (oslo.log levels, Python warnings, tracebacks).
NOISE = ("WARNING", "ERROR", "CRITICAL", "Traceback", "Warning:")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def magnum_api(tmp_path: pathlib.Path, db: str, extra: str = "", auth: str = "noauth"):
    """``(base_url, log_path)`` of a running magnum-api; stopped (SIGTERM) on exit."""
    port = _free_port()
    conf = tmp_path / f"magnum-{port}.conf"
    conf.write_text(f"""[DEFAULT]
auth_strategy = {auth}
transport_url = rabbit://guest:guest@127.0.0.1:5672/
[crypto]
encryption_key = {crypto.generate_key()}
[database]
connection = {db}
[api]
host = 127.0.0.1
port = {port}
workers = 1
{extra}
""")
    log = tmp_path / f"magnum-api-{port}.log"
    with open(log, "w") as stream:
        process = subprocess.Popen([str(MAGNUM_API), "--config-file", str(conf)],
                                   stdout=stream, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text()[-3000:]
            try:
                if requests.get(base + "/v1", timeout=5).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)
        yield base, log
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


KEYSTONE = """[keystone_authtoken]
www_authenticate_uri = http://127.0.0.1:5000/v3
auth_url = http://127.0.0.1:5000/v3
auth_type = password
username = magnum
password = secret
project_name = service
user_domain_name = Default
project_domain_name = Default
"""


@pytest.mark.parametrize("auth", ["keystone", "noauth"])
def test_a_clean_start_prints_no_warning(db, tmp_path, auth):
    """No EventletDeprecationWarning, no keystonemiddleware complaint about
    acl_public_routes, no unknown option; gunicorn's lines come through oslo.log too."""
    with magnum_api(tmp_path, db, auth=auth,
                    extra=KEYSTONE if auth == "keystone" else "") as (base, log):
        assert requests.get(base + "/", timeout=5).status_code == 200
    text = log.read_text()
    noisy = [line for line in text.splitlines() if any(word in line for word in NOISE)]
    assert noisy == [], text
    assert "eventlet" not in text.lower()
    assert " INFO gunicorn.error [-] Booting worker with pid" in text


def test_every_request_is_logged_without_its_token(db, tmp_path):
    with magnum_api(tmp_path, db) as (base, log):
        answer = requests.get(base + "/v1/clusters?limit=5",
                              headers={**HEADERS, "X-Auth-Token": "secret-token-abc"},
                              timeout=5)
        missing = requests.get(base + "/v1/clusters/no-such", headers=HEADERS, timeout=5)
        assert (answer.status_code, missing.status_code) == (200, 404)
        deadline = time.monotonic() + 10
        while log.read_text().count("magnum_api.access") < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
    lines = [line for line in log.read_text().splitlines() if "magnum_api.access" in line]
    first = next(line for line in lines if "/v1/clusters?limit=5" in line)
    rid = answer.headers["X-OpenStack-Request-Id"]
    assert f"{rid} poller project-p" in first
    assert (f'127.0.0.1 "GET /v1/clusters?limit=5 HTTP/1.1" status: 200 '
            f'len: {len(answer.content)} microversion: ') in first
    assert any('"GET /v1/clusters/no-such HTTP/1.1" status: 404' in line for line in lines)
    assert "secret-token-abc" not in log.read_text()


def test_the_access_log_can_be_turned_off(db, tmp_path):
    with magnum_api(tmp_path, db, extra="access_log = false") as (base, log):
        assert requests.get(base + "/v1/clusters", headers=HEADERS, timeout=5).ok
    assert "magnum_api.access" not in log.read_text()


KEEPALIVE = 1
POLLERS = 30
POLL_FOR = 60.0


def test_polling_every_keepalive_seconds_loses_nothing(db, tmp_path):
    """Python's requests (no retries) polls at exactly the server's keep-alive interval,
    the instant a plain expiry closes the connection, from many sessions at once, for a
    minute. Every request gets its answer, and idle connections are still closed."""
    with magnum_api(tmp_path, db, extra=f"keepalive = {KEEPALIVE}\nthreads = 8") as (base, _):
        answered, lost = [], []

        def poll(phase: float) -> None:
            session = requests.Session()
            time.sleep(phase)
            end = time.monotonic() + POLL_FOR
            while time.monotonic() < end:
                try:
                    response = session.get(base + "/v1/clusters", headers=HEADERS, timeout=10)
                    (answered if response.status_code == 200 else lost).append(response)
                except requests.ConnectionError as exc:
                    lost.append(exc)
                time.sleep(KEEPALIVE)

        threads = [threading.Thread(target=poll, args=(i * KEEPALIVE / POLLERS,))
                   for i in range(POLLERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert lost == []
        assert len(answered) >= POLLERS * POLL_FOR / (KEEPALIVE + 0.5)

        # Keep-alive still works, and an idle connection is closed a little after it.
        conn = http.client.HTTPConnection("127.0.0.1", int(base.rsplit(":", 1)[1]), timeout=5)
        conn.request("GET", "/v1/clusters", headers=HEADERS)
        conn.getresponse().read()
        sock = conn.sock
        conn.request("GET", "/v1/clusters", headers=HEADERS)
        conn.getresponse().read()
        assert conn.sock is sock
        time.sleep(KEEPALIVE + 2)
        assert sock.recv(1, socket.MSG_DONTWAIT) == b""
        conn.close()
