"""The access log: one oslo.log line per request with its identity, never a header."""

from __future__ import annotations

import io
import logging

import pytest
import webtest
from oslo_config import cfg
from oslo_log import formatters
from oslo_middleware import request_id

from magnum_api.middleware import access_log

CONF = cfg.CONF
TOKEN = "gAAAAABsecret-token-value"


@pytest.fixture
def lines():
    """The access logger's output, formatted by oslo.log's default context formatter."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatters.ContextFormatter(config=CONF, project="magnum"))
    logger = logging.getLogger("magnum_api.access")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield lambda: stream.getvalue().splitlines()
    logger.removeHandler(handler)


def _identity_app(environ, start_response):
    """Stands for authtoken + pecan: sets the identity headers, answers in two chunks."""
    environ["HTTP_X_USER_ID"] = "user-1"
    environ["HTTP_X_PROJECT_ID"] = "project-1"
    status = "404 Not Found" if environ["PATH_INFO"] == "/missing" else "200 OK"
    start_response(status, [("Content-Type", "application/json"),
                            ("OpenStack-API-Version", "container-infra 1.9")])
    return [b'{"a":', b' 1}']


def _app():
    return webtest.TestApp(access_log.wrap(request_id.RequestId(_identity_app)))


def test_one_line_per_request_with_identity_and_size(lines):
    response = _app().get("/v1/clusters?limit=50", headers={"X-Auth-Token": TOKEN})
    _app().get("/missing", status=404)
    first, second = lines()
    rid = response.headers["X-OpenStack-Request-Id"]
    assert f"{rid} user-1 project-1" in first
    assert ' "GET /v1/clusters?limit=50 HTTP/1.0" status: 200 len: 8 microversion: 1.9 ' \
        'time: ' in first
    assert " INFO magnum_api.access " in first
    assert '"GET /missing HTTP/1.0" status: 404' in second
    assert TOKEN not in "\n".join(lines())


def test_a_crashing_application_is_logged_as_500(lines):
    def crash(environ, start_response):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        webtest.TestApp(access_log.wrap(crash)).get("/v1/clusters")
    assert '"GET /v1/clusters HTTP/1.0" status: 500 len: 0' in lines()[0]


def test_a_client_cannot_forge_lines(lines):
    environ = {"REQUEST_METHOD": "GET", "RAW_URI": '/v1/x\n2026 INFO forged "quote" \\',
               "SERVER_PROTOCOL": "HTTP/1.1", "PATH_INFO": "/v1/x"}
    body = access_log.wrap(_identity_app)(environ, lambda *a: None)
    list(body)
    body.close()
    (line,) = lines()
    assert '/v1/x\\x0a2026 INFO forged \\"quote\\" \\\\ HTTP/1.1' in line


def test_a_long_target_is_cut():
    assert access_log.printable("x" * 5000) == "x" * access_log.MAX_TARGET + "..."


def test_the_option_turns_it_off(lines):
    CONF.set_override("access_log", False, "api")
    assert access_log.wrap(_identity_app) is _identity_app
