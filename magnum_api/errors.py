"""Error bodies: the envelope every handler error is rendered into (API reference 4.1-4.3).

``title`` is the message up to its first period and ``detail`` the whole message, so the
python-magnumclient CLI shows the same text as with upstream. A request id is filled in
(upstream always sent an empty string, which clients ignore).
"""

from __future__ import annotations

import json

import webob

from magnum_api import microversion

#: Set in the WSGI environ once a response body is an envelope already.
RENDERED = "magnum.api.error_rendered"
MICROVERSION_HELP = "http://docs.openstack.org/api-guide/compute/microversions.html"


class RoutingError(Exception):
    """An error of the routing stage (e.g. a method below its microversion): empty envelope."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _strip_traceback(message: str) -> str:
    marker = message.find("Traceback (most recent call last):")
    return message[:marker].rstrip() if marker >= 0 else message


def envelope(status: int, message: str = "", request_id: str = "") -> dict:
    message = _strip_traceback(message)
    if message:
        code = "client" if status < 500 else "server"
    else:
        code = ""
    return {"errors": [{
        "request_id": request_id,
        "code": code,
        "status": status,
        "title": message.split(".", 1)[0] if message else "",
        "detail": message,
        "links": [],
    }]}


def unsupported_version_body() -> dict:
    return {"errors": [{
        "code": "magnum.microversion-unsupported",
        "title": "Requested microversion is unsupported",
        "min_version": str(microversion.MIN_VERSION),
        "max_version": str(microversion.MAX_VERSION),
        "links": [{"rel": "help", "href": MICROVERSION_HELP}],
    }]}


def json_response(status: int, body: dict, environ: dict | None = None,
                  headers: list[tuple[str, str]] | None = None) -> webob.Response:
    response = webob.Response(
        body=json.dumps(body).encode(), status=status, content_type="application/json",
        charset=None)
    for name, value in headers or ():
        response.headers[name] = value
    if environ is not None:
        environ[RENDERED] = True
    return response


def request_id(environ: dict) -> str:
    return environ.get("openstack.request_id", "") or ""
