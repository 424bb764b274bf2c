"""Errors the handlers did not render become the envelope; 405 lists the path's methods;
a crash outside the handlers is a 500 envelope without its traceback."""

from __future__ import annotations

import json

import webob

from magnum_api import errors
from magnum_api.controllers import root  # noqa: F401 - declares the operations (405's Allow)
from magnum_api.middleware.errors import ParsableErrorMiddleware


def _app(status: str, body: bytes = b"<html>oops</html>", headers=(), rendered=False):
    def app(env, start_response):
        if rendered:
            env[errors.RENDERED] = True
        start_response(status, [("Content-Type", "text/html"), *headers])
        return [body]
    return ParsableErrorMiddleware(app)


def test_an_unrendered_error_becomes_the_empty_envelope():
    response = webob.Request.blank("/v1/nothing").get_response(_app("404 Not Found"))
    assert response.status_code == 404 and response.content_type == "application/json"
    assert json.loads(response.body) == {"errors": [{
        "request_id": "", "code": "", "status": 404, "title": "", "detail": "",
        "links": []}]}
    assert response.content_length == len(response.body)


def test_405_lists_the_methods_of_the_path_not_of_the_controller():
    response = webob.Request.blank("/v1/clusters", method="PUT").get_response(
        _app("405 Method Not Allowed", headers=[("Allow", "GET, POST, DELETE")]))
    assert response.status_code == 405
    assert response.headers["Allow"] == "GET, POST"
    assert json.loads(response.body)["errors"][0]["status"] == 405


def test_what_passes_unchanged_and_what_a_crash_becomes():
    ok = webob.Request.blank("/").get_response(_app("200 OK", b"fine"))
    assert (ok.status_code, ok.body) == (200, b"fine")
    rendered = webob.Request.blank("/").get_response(
        _app("400 Bad Request", b'{"errors": []}', rendered=True))
    assert rendered.body == b'{"errors": []}'

    def crash(env, start_response):
        raise RuntimeError("secret detail")

    broken = webob.Request.blank("/v1/clusters").get_response(ParsableErrorMiddleware(crash))
    assert broken.status_code == 500 and b"secret" not in broken.body
    assert json.loads(broken.body)["errors"][0]["status"] == 500
