"""Turns every error response the handlers did not render into the JSON error envelope.

Handler errors are rendered by the pecan error hook; what reaches this middleware unrendered
comes from routing (404, 405 with its ``Allow`` header, set to the methods the path
declares) or from a crash outside the handlers, and gets the empty envelope of the API
reference, section 4.3.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable

from magnum_api import errors
from magnum_api.schemas import operation

LOG = logging.getLogger(__name__)
_DROP = frozenset({"content-type", "content-length"})


class ParsableErrorMiddleware:
    def __init__(self, app: Callable) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        captured: dict = {}

        def replace_start_response(status: str, headers: list, exc_info=None):
            code = int(status.split(" ", 1)[0])
            if code < 400 or environ.get(errors.RENDERED):
                return start_response(status, headers, exc_info)
            captured["status"] = status
            captured["code"] = code
            captured["headers"] = [(k, v) for k, v in headers if k.lower() not in _DROP]
            if code == 405:  # pecan lists its controller's methods, not the path's
                allowed = operation.allowed_methods(environ.get("PATH_INFO", ""))
                if allowed:
                    captured["headers"] = [(k, v) for k, v in captured["headers"]
                                           if k.lower() != "allow"]
                    captured["headers"].append(("Allow", ", ".join(allowed)))
            return lambda data: None

        try:
            app_iter = self.app(environ, replace_start_response)
        except Exception:
            LOG.exception("Unhandled error serving %s %s", environ.get("REQUEST_METHOD"),
                          environ.get("PATH_INFO"))
            captured = {"status": "500 Internal Server Error", "code": 500, "headers": []}
            app_iter = []
        if "status" not in captured:
            return app_iter
        if hasattr(app_iter, "close"):
            app_iter.close()
        body = json.dumps(errors.envelope(captured["code"])).encode()
        start_response(captured["status"], captured["headers"] + [
            ("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]
