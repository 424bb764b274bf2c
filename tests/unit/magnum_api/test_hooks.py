"""The pecan hooks on the real application (no paste pipeline, SQLite): the context from
the identity headers, JSON only, errors in the envelope, the microversion headers."""

from __future__ import annotations

ADMIN = {"X-User-Id": "root", "X-Project-Id": "p", "X-Roles": "admin,member,reader",
         "OpenStack-API-Version": "container-infra 1.10"}


def test_the_identity_headers_are_the_context_and_its_policy(api):
    stats = api.get("/v1/stats", headers={**ADMIN, "X-Roles": "reader"})
    assert stats.json == {"clusters": 0, "nodes": 0}
    refused = api.get("/v1/mservices", headers={**ADMIN, "X-Roles": "reader"},
                      expect_errors=True)
    assert refused.status_int == 403
    assert "magnum-service:get_all" in refused.json["errors"][0]["detail"]
    assert api.get("/v1/mservices", headers=ADMIN).json == {"mservices": []}


def test_json_only_and_the_version_headers_on_answers(api):
    answer = api.get("/v1/stats", headers=ADMIN)
    assert answer.headers["OpenStack-API-Version"] == "container-infrastructure-management 1.10"
    assert answer.headers["OpenStack-API-Maximum-Version"].endswith(" 1.14")
    assert answer.content_type == "application/json"
    assert api.get("/v1/stats", headers={**ADMIN, "Accept": "text/html"},
                   expect_errors=True).status_int == 406
    json_q = {**ADMIN, "Accept": "application/json; q=1"}
    assert api.get("/v1/stats", headers=json_q).status_int == 200


def test_errors_are_enveloped_with_their_code(api):
    missing = api.get("/v1/clusters/nope", headers=ADMIN, expect_errors=True)
    assert missing.status_int == 404
    item = missing.json["errors"][0]
    assert (item["code"], item["status"]) == ("client", 404)
    assert item["detail"] == "Cluster nope could not be found."
    old = api.get("/v1/clusters/c/nodegroups", headers={**ADMIN, "OpenStack-API-Version":
                                                        "container-infra 1.8"},
                  expect_errors=True)
    assert old.status_int == 406 and "OpenStack-API-Version" not in old.headers
    unsupported = api.get("/v1/stats", headers={**ADMIN, "OpenStack-API-Version":
                                                "container-infra 1.99"}, expect_errors=True)
    assert unsupported.status_int == 406
    assert unsupported.json["errors"][0]["code"] == "magnum.microversion-unsupported"
