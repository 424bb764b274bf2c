"""The error envelope: first sentence as title, no traceback, the request id filled in."""

from __future__ import annotations

from magnum_api import errors


def test_the_envelope_drops_a_traceback_and_titles_the_first_sentence():
    body = errors.envelope(409, "Cluster c1 is busy. Retry later.\nTraceback (most recent "
                           "call last):\n  File x", "req-1")
    item = body["errors"][0]
    assert (item["code"], item["title"], item["detail"], item["request_id"]) == (
        "client", "Cluster c1 is busy", "Cluster c1 is busy. Retry later.", "req-1")
    assert errors.envelope(503, "down")["errors"][0]["code"] == "server"
    assert errors.unsupported_version_body()["errors"][0]["max_version"] == "1.14"
    env: dict = {}
    response = errors.json_response(400, body, env, [("Allow", "GET")])
    assert env[errors.RENDERED] and response.headers["Allow"] == "GET"
    assert errors.request_id({"openstack.request_id": "req-2"}) == "req-2"
    assert errors.request_id({}) == ""
