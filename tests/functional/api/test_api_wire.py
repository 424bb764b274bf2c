"""Wire details clients may depend on, as upstream answers them (issue 14, point 5):
identity-less noauth requests, ``Accept`` negotiation, node-group list items and
``health_status_reason``."""

from __future__ import annotations

import pytest

from magnum_common import states
from magnum_common.db.clusters import clusters
from tests.functional.api.conftest import headers
from tests.functional.api.test_api_clusters import complete, create, template

PLAIN_406 = {"errors": [{"request_id": "", "code": "", "status": 406, "title": "",
                         "detail": "", "links": []}]}


def test_a_request_without_identity_is_refused(api):
    """noauth trusts identity headers; without them there is nobody, and policy says 403."""
    resp = api.get("/v1/clusters", status=403)
    assert resp.json["errors"][0]["detail"] == \
        "Policy doesn't allow cluster:get_all to be performed."
    api.get("/v1/mservices", headers={"OpenStack-API-Version": "container-infra latest"},
            status=403)
    # version discovery stays public
    assert api.get("/").json["versions"][0]["id"] == "v1"
    assert api.get("/v1").json["id"] == "v1"


@pytest.mark.parametrize("accept", [
    "application/json", "*/*", "application/*", "", "application/json; charset=UTF-8",
    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
])
def test_accept_headers_that_allow_json(api, accept):
    resp = api.get("/v1/clustertemplates", headers={**headers(), "Accept": accept})
    assert resp.content_type == "application/json"


@pytest.mark.parametrize("accept", ["text/html", "text/plain", "application/xml"])
def test_accept_headers_that_rule_json_out_are_406(api, accept):
    resp = api.get("/v1/clustertemplates", headers={**headers(), "Accept": accept},
                   status=406)
    assert resp.json == PLAIN_406 and resp.content_type == "application/json"
    assert "OpenStack-API-Version" not in resp.headers
    api.get("/", headers={"Accept": accept}, status=406)


def test_nodegroup_list_items_as_upstream(api, recorder):
    uuid = create(api, template(api), name="c1", node_count=2).json["uuid"]
    complete(uuid)
    url = f"/v1/clusters/{uuid}/nodegroups"
    api.post_json(url, {"name": "ng-b", "node_count": 1, "max_node_count": 4},
                  headers=headers(), status=202)
    complete(uuid, states.UPDATE_COMPLETE)
    api.post_json(url, {"name": "ng-a", "node_count": 1}, headers=headers(), status=202)
    listed = api.get(url, headers=headers()).json["nodegroups"]
    assert [ng["name"] for ng in listed] == ["default-master", "default-worker", "ng-b",
                                             "ng-a"]
    for item in listed:
        assert set(item) == {"uuid", "name", "flavor_id", "image_id", "node_count", "role",
                             "is_default", "status", "stack_id", "merge_labels",
                             "min_node_count", "max_node_count"}
    assert listed[2]["max_node_count"] == 4 and listed[2]["is_default"] is False


def test_health_status_reason_is_null_until_something_reports(api, recorder):
    uuid = create(api, template(api), name="c1").json["uuid"]
    complete(uuid)
    show = api.get(f"/v1/clusters/{uuid}", headers=headers()).json
    assert show["health_status"] is None and show["health_status_reason"] is None
    detail = api.get("/v1/clusters/detail", headers=headers()).json["clusters"][0]
    assert detail["health_status_reason"] is None
    clusters.update(None, uuid, {"health_status": "HEALTHY",
                                 "health_status_reason": {"api": "ok"}})
    show = api.get(f"/v1/clusters/{uuid}", headers=headers()).json
    assert show["health_status_reason"] == {"api": "ok"}
