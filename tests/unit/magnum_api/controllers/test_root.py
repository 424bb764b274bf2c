"""``GET /``: the versions; a path without ``/v1`` is served as under it."""

from __future__ import annotations

from magnum_api import microversion
from tests.unit.magnum_api.controllers.support import who


def test_versions_and_the_v1_prefix_is_optional(api):
    root = api.get("/").json
    assert root["versions"][0]["max_version"] == str(microversion.MAX_VERSION)
    assert root["versions"][0]["links"][0]["href"] == "http://localhost/v1/"
    assert api.get("/stats", headers=who()).json == api.get("/v1/stats", headers=who()).json
