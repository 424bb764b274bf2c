"""Federations (no driver acts on them): created on a visible host cluster with a DNS zone,
members added and removed by PATCH, listed, deleted."""

from __future__ import annotations

from tests.unit.magnum_api.controllers.support import who
from tests.unit.magnum_common.db.support import ALICE, make_cluster

MEMBER = "8e7a8f6e-0c7e-4c5d-9d9e-8f1d0a3c1b2a"


def test_the_life_of_a_federation(api):
    host = make_cluster(ALICE, "host")
    body = {"name": "fed", "hostcluster_id": host.uuid,
            "properties": {"dns-zone": "example.com."}}
    for bad, words in (({**body, "hostcluster_id": None}, "No hostcluster specified"),
                       ({**body, "properties": {"x": "y"}}, "No DNS zone specified")):
        refused = api.post_json("/v1/federations", bad, headers=who(), expect_errors=True)
        assert refused.status_int == 400 and words in refused.text
    other = api.post_json("/v1/federations", body, headers=who("member", "p2"),
                          expect_errors=True)
    assert other.status_int == 404  # another project's host cluster is not visible
    uuid = api.post_json("/v1/federations", body, headers=who()).json["uuid"]
    add = [{"op": "add", "path": "/member_ids", "value": MEMBER}]
    assert api.patch_json(f"/v1/federations/{uuid}", add, headers=who()).status_int == 202
    again = api.patch_json(f"/v1/federations/{uuid}", add, headers=who(), expect_errors=True)
    assert again.status_int == 409
    shown = api.get("/v1/federations/fed", headers=who("reader")).json
    assert shown["member_ids"] == [MEMBER] and shown["status"] == "UPDATE_COMPLETE"
    rename = [{"op": "replace", "path": "/name", "value": "other"}]
    refused = api.patch_json(f"/v1/federations/{uuid}", rename, headers=who(),
                             expect_errors=True)
    assert refused.status_int == 400 and "cannot change federation property" in refused.text
    remove = [{"op": "remove", "path": "/member_ids", "value": MEMBER}]
    api.patch_json(f"/v1/federations/{uuid}", remove, headers=who())
    listed = api.get("/v1/federations/detail", headers=who("reader")).json["federations"]
    assert [(f["name"], f["member_ids"]) for f in listed] == [("fed", [])]
    assert api.delete(f"/v1/federations/{uuid}", headers=who()).status_int == 204
    assert api.get("/v1/federations", headers=who()).json["federations"] == []
