"""The operation model at the API: every accepted request moves its target before the 202,
names an operation record that exists, and the records are readable (an extension)."""

from __future__ import annotations

import pytest

from magnum_api.controllers.base import OPERATION_HEADER
from magnum_common import states
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations
from tests.functional.api import support
from tests.functional.api.conftest import OTHER_PROJECT, headers
from tests.functional.api.test_api_clusters import complete, create, template


def _cluster(api, recorder):
    uuid = create(api, template(api)).json["uuid"]
    recorder.wait_for("cluster_create")
    complete(uuid)
    return uuid


def _record(api, uuid, resp):
    """The record the 202 names, as the API shows it."""
    record = resp.headers[OPERATION_HEADER]
    return api.get(f"/v1/clusters/{uuid}/operations/{record}", headers=headers()).json


def _status(api, uuid):
    return api.get(f"/v1/clusters/{uuid}", headers=headers()).json["status"]


def _ng(api, uuid, name):
    return api.get(f"/v1/clusters/{uuid}/nodegroups/{name}", headers=headers()).json


def test_first_read_after_each_202_shows_the_new_status(api, recorder):
    """terraform polls right after the 202: it must see the operation, not the old state."""
    uuid = create(api, template(api)).json["uuid"]
    assert _status(api, uuid) == states.CREATE_IN_PROGRESS
    recorder.wait_for("cluster_create")
    complete(uuid)
    cases = [
        ("cluster_update", lambda: api.patch_json(
            f"/v1/clusters/{uuid}", [{"op": "replace", "path": "/node_count", "value": 0}],
            headers=headers(), status=202), states.UPDATE_IN_PROGRESS,
         ("default-worker", states.UPDATE_IN_PROGRESS, 0)),
        ("cluster_resize", lambda: api.post_json(
            f"/v1/clusters/{uuid}/actions/resize", {"node_count": 4}, headers=headers(),
            status=202), states.UPDATE_IN_PROGRESS,
         ("default-worker", states.UPDATE_IN_PROGRESS, 4)),
        ("nodegroup_create", lambda: api.post_json(
            f"/v1/clusters/{uuid}/nodegroups", {"name": "ng1"}, headers=headers(),
            status=202), states.UPDATE_IN_PROGRESS, ("ng1", states.CREATE_IN_PROGRESS, 1)),
        ("nodegroup_update", lambda: api.patch_json(
            f"/v1/clusters/{uuid}/nodegroups/ng1",
            [{"op": "add", "path": "/node_labels/a", "value": "b"}], headers=headers(),
            status=202), states.UPDATE_IN_PROGRESS, ("ng1", states.UPDATE_IN_PROGRESS, 1)),
        ("nodegroup_delete", lambda: api.delete(
            f"/v1/clusters/{uuid}/nodegroups/ng1", headers=headers(), status=204),
         states.UPDATE_IN_PROGRESS, ("ng1", states.DELETE_IN_PROGRESS, 1)),
        ("rotate_ca_certificate", lambda: api.patch_json(
            f"/v1/certificates/{uuid}", None, headers=headers(), status=202),
         states.UPDATE_IN_PROGRESS, None),
        ("cluster_upgrade", lambda: api.post_json(
            f"/v1/clusters/{uuid}/actions/upgrade",
            {"cluster_template": clusters.get_by_uuid(None, uuid).cluster_template_id},
            headers=headers(), status=202), states.UPDATE_IN_PROGRESS,
         ("default-worker", states.UPDATE_IN_PROGRESS, None)),
        ("cluster_delete", lambda: api.delete(f"/v1/clusters/{uuid}", headers=headers(),
                                              status=204), states.DELETE_IN_PROGRESS,
         ("default-master", states.DELETE_IN_PROGRESS, 1)),
    ]
    for kind, send, status, group in cases:
        resp = send()
        assert _status(api, uuid) == status, kind
        if group is not None:
            name, ng_status, count = group
            ng = _ng(api, uuid, name)
            assert ng["status"] == ng_status, kind
            if count is not None:
                assert ng["node_count"] == count, kind
        record = _record(api, uuid, resp)
        assert record["kind"] == kind  # pending, or done already by the recorder
        assert record["state"] in (states.OPERATION_PENDING, states.OPERATION_SUCCEEDED)
        assert record["user_id"] == "user-a" and record["accepted_at"]
        assert not {"context", "credentials"} & set(record["arguments"])
        recorder.wait_for(kind)
        if kind == "nodegroup_create":
            nodegroups.update(None, nodegroups.get_in_cluster(None, uuid, "ng1").uuid,
                              {"status": states.CREATE_COMPLETE})
        complete(uuid)


def test_health_report_applies_at_once(api, recorder):
    """The auto-healer's report needs no stack work: visible on the next read, the status
    left alone, and a finished record."""
    uuid = _cluster(api, recorder)
    resp = api.patch_json(f"/v1/clusters/{uuid}", [
        {"op": "replace", "path": "/health_status", "value": "UNHEALTHY"},
        {"op": "replace", "path": "/health_status_reason", "value": "{'api': 'down'}"},
    ], headers=headers(), status=202)
    show = api.get(f"/v1/clusters/{uuid}", headers=headers()).json
    assert (show["status"], show["health_status"], show["health_status_reason"]) == (
        states.CREATE_COMPLETE, "UNHEALTHY", {"api": "down"})
    record = _record(api, uuid, resp)
    assert record["state"] == states.OPERATION_SUCCEEDED and record["finished_at"]
    recorder.wait_for("cluster_create")
    assert not [c for c in recorder.calls if c["method"] == "cluster_update"]


def test_refused_request_changes_nothing_and_records_nothing(api, recorder):
    uuid = _cluster(api, recorder)
    clusters.update(None, uuid, {"status": states.DELETE_FAILED})
    before = clusters.get_by_uuid(None, uuid)
    resp = api.post_json(f"/v1/clusters/{uuid}/actions/resize", {"node_count": 3},
                         headers=headers(), status=400)
    assert OPERATION_HEADER not in resp.headers
    after = clusters.get_by_uuid(None, uuid)
    assert (after.status, after.updated_at, after.operation) == (
        before.status, before.updated_at, None)
    assert [r.kind for r in operations.list_in_cluster(None, uuid)] == [states.OP_CREATE]


def test_history_newest_first_paginated_and_scoped(api, recorder):
    uuid = _cluster(api, recorder)
    for status in ("HEALTHY", "UNHEALTHY", "HEALTHY"):
        api.patch_json(f"/v1/clusters/{uuid}", [
            {"op": "replace", "path": "/health_status", "value": status}],
            headers=headers(), status=202)
    url = f"/v1/clusters/{uuid}/operations"
    listed = api.get(url, headers=headers("reader")).json["operations"]
    assert [r["kind"] for r in listed] == [states.OP_UPDATE] * 3 + [states.OP_CREATE]
    assert [r["arguments"].get("health_status") for r in listed[:3]] == [
        "HEALTHY", "UNHEALTHY", "HEALTHY"]
    assert listed[0]["links"][0]["href"].endswith(f"{url}/{listed[0]['uuid']}")
    page = api.get(url + "?limit=2", headers=headers()).json
    assert [r["uuid"] for r in page["operations"]] == [r["uuid"] for r in listed[:2]]
    assert "sort_dir=desc" in page["next"]
    rest = api.get("/v1" + page["next"].split("/v1", 1)[1], headers=headers()).json
    assert [r["uuid"] for r in rest["operations"]] == [r["uuid"] for r in listed[2:]]
    oldest = api.get(url + "?sort_dir=asc&limit=1", headers=headers()).json["operations"]
    assert oldest[0]["kind"] == states.OP_CREATE
    assert not {"context", "credentials"} & set(oldest[0]["arguments"])
    assert oldest[0]["arguments"]["node_count"]
    api.get(url, headers=headers(project=OTHER_PROJECT), status=404)
    api.get(f"{url}/{listed[0]['uuid']}", headers=headers(project=OTHER_PROJECT),
            status=404)
    api.get(url, headers=headers("admin", project=OTHER_PROJECT), status=200)
    api.get(f"{url}/{support.IMAGE_ID}", headers=headers(), status=404)
    api.get(url + "?marker=" + support.IMAGE_ID, headers=headers(), status=404)


@pytest.mark.parametrize("path", ["/operations", "/operations/x"])
def test_history_needs_a_project_role(api, recorder, path):
    uuid = _cluster(api, recorder)
    roles = {**headers(), "X-Roles": "observer"}
    api.get(f"/v1/clusters/{uuid}{path}", headers=roles, status=403)


def _ng_post(api, uuid, name, status=202):
    return api.post_json(f"/v1/clusters/{uuid}/nodegroups", {"name": name},
                         headers=headers(), status=status)


def test_requests_queue_behind_the_open_one(api, recorder):
    """terraform's parallel node-group creates, and a resize right after a node-group
    PATCH: all accepted, each target moved at once, started one after the other."""
    uuid = _cluster(api, recorder)
    recorder.clear_operations = False  # the first one is still being started
    records = [_ng_post(api, uuid, f"ng{i}").headers[OPERATION_HEADER] for i in range(3)]
    assert [_ng(api, uuid, f"ng{i}")["status"] for i in range(3)] == [
        states.CREATE_IN_PROGRESS] * 3
    row = clusters.get_by_uuid(None, uuid)
    assert (row.operation, row.operation_args["operation_id"]) == (
        states.OP_NODEGROUP_CREATE, records[0])
    assert [r.uuid for r in operations.open_of(uuid)] == records
    recorder.wait_for("nodegroup_create")
    assert len([c for c in recorder.calls if c["method"] == "nodegroup_create"]) == 1
    # the first ends (what the status sync does when its stack completes): the next starts
    clusters.clear_operation(uuid, states.OP_NODEGROUP_CREATE)
    operations.finish(records[0], states.OPERATION_SUCCEEDED)
    assert operations.promote(uuid).uuid == records[1]
    assert clusters.get_by_uuid(None, uuid).operation_args["operation_id"] == records[1]

    patch = api.patch_json(f"/v1/clusters/{uuid}/nodegroups/default-worker",
                           [{"op": "add", "path": "/node_labels/a", "value": "b"}],
                           headers=headers(), status=202)
    resize = api.post_json(f"/v1/clusters/{uuid}/actions/resize",
                           {"node_count": 3, "nodegroup": "default-worker"},
                           headers=headers(), status=202)
    worker = _ng(api, uuid, "default-worker")
    assert (worker["status"], worker["node_count"], worker["node_labels"]) == (
        states.UPDATE_IN_PROGRESS, 3, {"a": "b"})
    assert [r.uuid for r in operations.open_of(uuid)][-2:] == [
        patch.headers[OPERATION_HEADER], resize.headers[OPERATION_HEADER]]


def test_contradicting_requests_are_409_and_change_nothing(api, recorder):
    uuid = _cluster(api, recorder)
    _ng_post(api, uuid, "ng1")
    recorder.wait_for("nodegroup_create")
    complete(uuid, states.UPDATE_COMPLETE)
    recorder.clear_operations = False  # the delete is still being started
    delete = api.delete(f"/v1/clusters/{uuid}/nodegroups/ng1", headers=headers(),
                        status=204).headers[OPERATION_HEADER]
    before = _ng(api, uuid, "ng1")
    resp = api.patch_json(f"/v1/clusters/{uuid}/nodegroups/ng1",
                          [{"op": "add", "path": "/node_labels/a", "value": "b"}],
                          headers=headers(), status=409)
    assert f"operation {delete} (nodegroup_delete, pending)" in \
        resp.json["errors"][0]["detail"]
    assert _ng(api, uuid, "ng1") == before
    assert len(operations.open_of(uuid)) == 1


def test_delete_is_accepted_in_every_state(api, recorder):
    """DELETE as upstream (204) during a create nobody has started yet, a queue, and
    another delete: it supersedes what is open (the records name it), the first read shows
    DELETE_IN_PROGRESS on the cluster and every node group, a second DELETE names the same
    record, and whatever the cluster's state, nothing else is accepted meanwhile."""
    recorder.clear_operations = False  # the operations stay open, as on a busy conductor
    resp = create(api, template(api))
    uuid, create_record = resp.json["uuid"], resp.headers[OPERATION_HEADER]
    recorder.wait_for("cluster_create")
    resp = api.delete(f"/v1/clusters/{uuid}", headers=headers(), status=204)
    delete = resp.headers[OPERATION_HEADER]
    assert resp.body == b""
    assert _status(api, uuid) == states.DELETE_IN_PROGRESS
    assert {ng["status"] for ng in api.get(f"/v1/clusters/{uuid}/nodegroups",
                                           headers=headers()).json["nodegroups"]} == {
        states.DELETE_IN_PROGRESS}
    superseded = api.get(f"/v1/clusters/{uuid}/operations/{create_record}",
                         headers=headers()).json
    assert superseded["state"] == states.OPERATION_SUPERSEDED
    assert delete in superseded["result_reason"]
    row = clusters.get_by_uuid(None, uuid)
    assert (row.operation, row.operation_args["operation_id"], row.lock_owner) == (
        states.OP_DELETE, delete, None)
    again = api.delete(f"/v1/clusters/{uuid}", headers=headers(), status=204)
    assert again.headers[OPERATION_HEADER] == delete
    assert [r.uuid for r in operations.open_of(uuid)] == [delete]
    resp = api.post_json(f"/v1/clusters/{uuid}/actions/resize", {"node_count": 2},
                         headers=headers(), status=409)
    error = resp.json["errors"][0]
    assert error["status"] == 409 and f"operation {delete} (cluster_delete" in error["detail"]
    assert [r.uuid for r in operations.open_of(uuid)] == [delete]


def test_delete_supersedes_a_queue_and_admins_delete_a_failed_cluster(api, recorder):
    uuid = _cluster(api, recorder)
    recorder.clear_operations = False
    queued = [_ng_post(api, uuid, f"ng{i}") for i in range(2)]
    resp = api.delete(f"/v1/clusters/{uuid}", headers=headers(), status=204)
    delete = resp.headers[OPERATION_HEADER]
    for record in queued:
        shown = _record(api, uuid, record)
        assert (shown["kind"], shown["state"]) == (states.OP_NODEGROUP_CREATE,
                                                   states.OPERATION_SUPERSEDED)
        assert delete in shown["result_reason"]
    # a node group's delete while the cluster's runs: accepted, naming the cluster's
    ng = api.delete(f"/v1/clusters/{uuid}/nodegroups/ng0", headers=headers(), status=204)
    assert ng.headers[OPERATION_HEADER] == delete
    # the delete failed (Heat refused): the project's member, and an admin of another
    # project, may retry it
    operations.finish(delete, states.OPERATION_FAILED, "Heat said no.")
    clusters.update(None, uuid, {"status": states.DELETE_FAILED, "operation": None,
                                 "operation_args": {}})
    recorder.clear_operations = True
    admin = headers("admin", project=OTHER_PROJECT, user="admin-b")
    api.delete(f"/v1/clusters/{uuid}", headers=headers(project=OTHER_PROJECT), status=404)
    retry = api.delete(f"/v1/clusters/{uuid}", headers=admin, status=204)
    assert retry.headers[OPERATION_HEADER] != delete
    shown = api.get(f"/v1/clusters/{uuid}/operations/{retry.headers[OPERATION_HEADER]}",
                    headers=admin).json
    assert (shown["kind"], shown["user_id"]) == (states.OP_DELETE, "admin-b")
    calls = recorder.wait_for("cluster_delete", count=2)
    assert calls[-1]["operation_args"]["operation_id"] == retry.headers[OPERATION_HEADER]


def test_delete_of_a_missing_cluster_is_a_404_in_the_envelope(api):
    resp = api.delete("/v1/clusters/no-such-cluster", headers=headers(), status=404)
    error = resp.json["errors"][0]
    assert (error["status"], error["code"]) == (404, "client")
    assert "no-such-cluster" in error["detail"]


def test_node_count_bounds_apply_at_once(api, recorder):
    """min/max_node_count need no stack work: visible on the next read, even while another
    operation runs, and recorded as done."""
    uuid = _cluster(api, recorder)
    _ng_post(api, uuid, "ng1")
    resp = api.patch_json(f"/v1/clusters/{uuid}/nodegroups/ng1",
                          [{"op": "replace", "path": "/max_node_count", "value": 4}],
                          headers=headers(), status=202)
    assert _record(api, uuid, resp)["state"] == states.OPERATION_SUCCEEDED
    ng = _ng(api, uuid, "ng1")
    assert (ng["max_node_count"], ng["status"]) == (4, states.CREATE_IN_PROGRESS)
    recorder.wait_for("nodegroup_create")
    assert not [c for c in recorder.calls if c["method"] == "nodegroup_update"]
