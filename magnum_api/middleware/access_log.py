"""The access log: one INFO line per request, through oslo.log (logger ``magnum_api.access``).

The line is written when the server closes the response body, so the duration covers the
whole request (authentication, handler, sending the body) and the length is what was sent::

    ... INFO magnum_api.access [req-9c1... 4f2e...user 8d1b...project - - -] 127.0.0.1
    "GET /v1/clusters?limit=50 HTTP/1.1" status: 200 len: 9876 microversion: 1.14 time: 0.0123

The request id, user and project sit in oslo.log's context prefix, as in every other
OpenStack service. Only the request line is logged, never a header (so never a token); the
characters of the path a client chose are escaped so that it cannot forge log lines.
Wrapped around the whole paste pipeline (``magnum_api.app.load_app``), so an operator's own
``api-paste.ini`` gets it too; ``[api] access_log = false`` turns it off.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator

from oslo_context import context as oslo_context
from oslo_log import log as logging

from magnum_api.conf import CONF

LOG = logging.getLogger("magnum_api.access")


#: The longest request target logged; a longer one is cut and marked with "...".
MAX_TARGET = 2048
_ESCAPES = {c: f"\\x{c:02x}" for c in range(256) if c < 0x20 or c >= 0x7f}
_ESCAPES[ord('"')] = '\\"'
_ESCAPES[ord("\\")] = "\\\\"


def printable(text: str) -> str:
    """``text`` with every control, quote, backslash and non-ASCII character escaped."""
    if len(text) > MAX_TARGET:
        text = text[:MAX_TARGET] + "..."
    return text.translate(_ESCAPES)


def request_target(environ: dict) -> str:
    """The request target as the client sent it (``RAW_URI`` / ``REQUEST_URI`` of the
    server), else rebuilt from the WSGI path and query."""
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if raw:
        return raw
    target = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
    query = environ.get("QUERY_STRING")
    return f"{target}?{query}" if query else target


class _Request:
    __slots__ = ("environ", "line", "client", "started", "status", "microversion", "sent")

    def __init__(self, environ: dict) -> None:
        self.environ = environ
        self.line = printable(f"{environ.get('REQUEST_METHOD', '-')} "
                              f"{request_target(environ)} "
                              f"{environ.get('SERVER_PROTOCOL', 'HTTP/1.1')}")
        self.client = environ.get("REMOTE_ADDR") or "-"
        self.started = time.perf_counter()
        self.status = "-"
        self.microversion = "-"
        self.sent = 0

    def emit(self) -> None:
        environ = self.environ
        context = oslo_context.RequestContext(
            request_id=environ.get("openstack.request_id"),
            user_id=environ.get("HTTP_X_USER_ID"),
            project_id=environ.get("HTTP_X_PROJECT_ID"),
            overwrite=False)
        LOG.info('%s "%s" status: %s len: %d microversion: %s time: %.4f',
                 self.client, self.line, self.status, self.sent, self.microversion,
                 time.perf_counter() - self.started, context=context)


class _LoggedBody:
    """The response body, counted as the server sends it; logs the line on close()."""

    def __init__(self, body: Iterable[bytes], request: _Request) -> None:
        self._body = body
        self._request = request

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._body:
            self._request.sent += len(chunk)
            yield chunk

    def close(self) -> None:
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            self._request.emit()


class AccessLogMiddleware:
    def __init__(self, app: Callable) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        request = _Request(environ)

        def logging_start_response(status: str, headers: list, exc_info=None):
            request.status = status.split(" ", 1)[0]
            for name, value in headers:
                if name.lower() == "openstack-api-version":
                    request.microversion = value.rsplit(" ", 1)[-1]
            return start_response(status, headers, exc_info)

        try:
            body = self.app(environ, logging_start_response)
        except BaseException:
            request.status = "500"
            request.emit()
            raise
        return _LoggedBody(body, request)


def wrap(app: Callable) -> Callable:
    """``app`` behind the access log, unless ``[api] access_log`` is off."""
    return AccessLogMiddleware(app) if CONF.api.access_log else app
