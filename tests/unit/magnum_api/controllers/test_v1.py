"""``GET /v1``: links to every resource; the OpenAPI document; microversion routing."""

from __future__ import annotations

from magnum_api import openapi
from tests.unit.magnum_api.controllers.support import who


def test_the_resources_links_and_the_document(api):
    body = api.get("/v1").json
    assert body["id"] == "v1"
    assert body["clusters"][0]["href"] == "http://localhost/v1/clusters/"
    assert body["nodegroups"][1]["href"] == "http://localhost/clusters/{cluster_id}/nodegroups"
    document = api.get("/v1/openapi.json")
    assert document.body == openapi.served() and document.json["openapi"].startswith("3.1")


def test_a_malformed_or_unknown_microversion_is_406(api):
    malformed = api.get("/v1/stats", headers={**who(), "OpenStack-API-Version": "nonsense"},
                        expect_errors=True)
    assert malformed.status_int == 406 and malformed.json["errors"][0]["status"] == 406
    newer = api.get("/v1/stats", headers=who(version="2.0"), expect_errors=True)
    assert newer.status_int == 406
    assert newer.json["errors"][0]["code"] == "magnum.microversion-unsupported"
