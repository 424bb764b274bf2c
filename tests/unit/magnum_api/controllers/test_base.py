"""JSON responses: the same documents the standard json module produced."""

from __future__ import annotations

import json

from magnum_api import microversion
from magnum_api.controllers import base


def test_respond_encodes_what_json_encodes():
    body = {"version": microversion.MAX_VERSION, 3: "three", "name": "caf\u00e9",
            "items": ({"a": None, "b": True, "c": 1.5},), "links": []}
    response = base.respond(body, status=202, headers={"Location": "http://x/v1/y"})
    assert response.status_int == 202
    assert response.headers["Location"] == "http://x/v1/y"
    assert response.content_type == "application/json"
    assert json.loads(response.body) == json.loads(json.dumps(body))


def test_respond_refuses_what_json_refuses():
    try:
        base.respond({"x": {1, 2}})
    except TypeError as exc:
        assert "set" in str(exc)
    else:
        raise AssertionError("a set was encoded")
