"""Clusters over the real pipeline, with the conductor side recorded on RabbitMQ."""

from __future__ import annotations

import time

import pytest

from magnum_api.controllers.base import OPERATION_HEADER
from magnum_common import exception, rpc, states
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations
from magnum_common.db.quotas import quotas
from tests.functional.api import support
from tests.functional.api.conftest import OTHER_PROJECT, PROJECT, headers


def template(api, project=PROJECT, **fields):
    body = {"coe": "kubernetes", "image_id": support.IMAGE_ID, "flavor_id": "m1.small",
            "master_flavor_id": "m1.medium", "keypair_id": "kp",
            "external_network_id": "public", "labels": {"kube_tag": "v1", "x": "y"},
            **fields}
    role = "admin" if fields.get("public") or fields.get("hidden") else "member"
    return api.post_json("/v1/clustertemplates", body, headers=headers(role, project)).json


def create(api, tpl, expect=202, version="latest", project=PROJECT, role="member", **fields):
    body = {"cluster_template_id": tpl["uuid"], **fields}
    return api.post_json("/v1/clusters", body, headers=headers(role, project, version=version),
                         status=expect)


def complete(uuid, status=states.CREATE_COMPLETE):
    """What a conductor would have done by now (after the recorder took the cast): the
    operation ran and its record is finished."""
    deadline = time.monotonic() + 10
    while clusters.get_by_uuid(None, uuid).operation and time.monotonic() < deadline:
        time.sleep(0.02)
    for record in operations.open_of(uuid):
        operations.finish(record.uuid, states.OPERATION_SUCCEEDED)
    clusters.update(None, uuid, {"status": status, "stack_id": "stack-" + uuid[:8],
                                 "api_address": "https://127.0.0.5:6443"})


def test_create_is_durable_before_the_cast(api, recorder):
    tpl = template(api)
    resp = create(api, tpl, name="c1", node_count=2, labels={"x": "override", "z": 1},
                  merge_labels=True)
    uuid = resp.json["uuid"]
    assert set(resp.json) == {"uuid"}
    [call] = recorder.wait_for("cluster_create")
    assert call["kwargs"] == {"cluster_uuid": uuid}
    assert call["operation"] == states.OP_CREATE
    assert call["operation_args"]["node_count"] == 2
    assert call["operation_args"]["context"]["project_id"] == PROJECT
    row = clusters.get_by_uuid(None, uuid)
    assert row.status == states.CREATE_IN_PROGRESS
    assert row.labels == {"kube_tag": "v1", "x": "override", "z": "1"}
    assert (row.keypair, row.flavor_id, row.master_flavor_id) == ("kp", "m1.small",
                                                                  "m1.medium")
    ngs = {ng.name: ng for ng in clusters.nodegroups_of(None, [uuid])[uuid]}
    assert ngs["default-master"].role == "master" and ngs["default-master"].node_count == 1
    assert ngs["default-worker"].node_count == 2
    assert all(ng.status == states.CREATE_IN_PROGRESS for ng in ngs.values())


def test_show_list_and_detail_views(api, recorder):
    tpl = template(api)
    uuid = create(api, tpl, name="c1", node_count=2,
                  labels={"kube_tag": "v1", "x": "override", "z": "1"}).json["uuid"]
    complete(uuid)
    show = api.get(f"/v1/clusters/{uuid}", headers=headers()).json
    assert show["cluster_id"] == "stack-" + uuid[:8] and "stack_id" not in show
    assert show["node_count"] == 2 and show["master_count"] == 1
    assert show["labels_overridden"] == {"x": "y"} and show["labels_added"] == {"z": "1"}
    assert show["labels_skipped"] == {} and show["merge_labels"] is False
    assert show["api_address"] == "https://127.0.0.5:6443"
    assert "faults" not in show
    old = api.get(f"/v1/clusters/{uuid}", headers=headers(version="1.12")).json
    assert old["stack_id"] == "stack-" + uuid[:8] and "cluster_id" not in old
    listed = api.get("/v1/clusters", headers=headers()).json["clusters"]
    assert set(listed[0]) == {
        "uuid", "name", "cluster_template_id", "keypair", "docker_volume_size", "labels",
        "node_count", "master_count", "status", "health_status", "master_flavor_id",
        "flavor_id", "create_timeout", "cluster_id", "links", "merge_labels"}
    detail = api.get("/v1/clusters/detail", headers=headers()).json["clusters"]
    assert detail[0]["labels_added"] == {"z": "1"} and "faults" not in detail[0]
    assert api.get("/v1/clusters/c1", headers=headers()).json["uuid"] == uuid
    api.get(f"/v1/clusters/{uuid}", headers=headers(project=OTHER_PROJECT), status=404)
    api.get(f"/v1/clusters/{uuid}", headers=headers("admin", OTHER_PROJECT), status=200)
    api.get(f"/v1/clusters/{uuid}/detail", headers=headers(), status=404)


def test_faults_on_failed_cluster(api, recorder):
    uuid = create(api, template(api)).json["uuid"]
    complete(uuid, states.CREATE_FAILED)
    worker = [ng for ng in clusters.nodegroups_of(None, [uuid])[uuid] if ng.role == "worker"][0]
    nodegroups.update(None, worker.uuid, {"status": states.CREATE_FAILED,
                                          "status_reason": "boom"})
    assert api.get(f"/v1/clusters/{uuid}", headers=headers()).json["faults"] == {
        "default-worker": "boom"}


@pytest.mark.parametrize("fields, version, status, detail", [
    ({"master_count": 2}, "latest", 400,
     "master nodegroup size of 2 is invalid, size cannot be an even number."),
    ({"master_count": 3}, "latest", 400,
     "master_count must be 1 when master_lb_enabled is False"),
    ({"master_count": 0}, "latest", 400, "Invalid input for field/attribute master_count. "
     "Value: '0'. Value should be greater or equal to 1"),
    ({"node_count": 0}, "1.9", 400,
     "Resizing a nodegroup to zero is not supported in the provided microversion."),
    ({"name": "1abc"}, "latest", 400, "Invalid input for field/attribute name. Value: "
     "'1abc'. Value should match the pattern ^[a-zA-Z][a-zA-Z0-9_.-]*$"),
    ({"keypair": "nokp"}, "latest", 404, "Unable to find keypair nokp."),
    ({"flavor_id": "m9.huge"}, "latest", 400, "Unable to find flavor m9.huge."),
    ({"cluster_template_id": "nope"}, "1.9", 400, "ClusterTemplate nope could not be found."),
    ({"cluster_template_id": "nope"}, "1.10", 404, "ClusterTemplate nope could not be found."),
    ({"labels": {"container_runtime": "docker"}}, "latest", 400,
     "container_runtime must be containerd"),
])
def test_create_rejections_change_nothing(api, recorder, fields, version, status, detail):
    tpl = template(api)
    resp = create(api, tpl, expect=status, version=version, **fields)
    assert resp.json["errors"][0]["detail"] == detail
    assert clusters.list(None) == [] and nodegroups.list(None) == []
    assert recorder.calls == []


def test_create_zero_nodes_from_1_10_and_hidden_template(api, recorder):
    tpl = template(api)
    create(api, tpl, node_count=0, version="1.10")
    hidden = template(api, public=True, hidden=True)
    resp = create(api, hidden, expect=403)
    assert resp.json["errors"][0]["detail"] == "Not authorized."
    create(api, hidden, role="admin")


def test_quota_enforced(api, recorder):
    tpl = template(api)
    quotas.create(None, {"project_id": PROJECT, "resource": "Cluster", "hard_limit": 1})
    create(api, tpl)
    resp = create(api, tpl, expect=403)
    assert resp.json["errors"][0]["detail"] == (
        "Resource limit exceeded: You have reached the maximum clusters per project, 1. You "
        "may delete a cluster to make room for a new one.")


def test_patch_node_count_health_and_refusals(api, recorder):
    uuid = create(api, template(api)).json["uuid"]
    recorder.wait_for("cluster_create")
    complete(uuid)
    url = f"/v1/clusters/{uuid}"
    resp = api.patch_json(url + "/?rollback=True", [
        {"op": "replace", "path": "/node_count", "value": 3},
        {"op": "replace", "path": "/health_status", "value": "HEALTHY"},
        {"op": "replace", "path": "/health_status_reason", "value": "{'api': 'ok'}"},
    ], headers=headers(), status=202)
    assert resp.json == {"uuid": uuid}
    [call] = recorder.wait_for("cluster_update")
    assert call["operation_args"]["node_count"] == 3
    assert call["operation_args"]["rollback"] is True
    assert call["operation_args"]["health_status_reason"] == {"api": "ok"}
    for ops, query, version, detail in [
        ([{"op": "replace", "path": "/name", "value": "x"}], "", "latest",
         "cannot change cluster property(ies) name."),
        ([{"op": "replace", "path": "/master_count", "value": 3}], "", "latest",
         "cannot change cluster property(ies) master_count."),
        ([], "?rollback=maybe", "latest", "Invalid input for field/attribute rollback. "
         "Value: 'maybe'. Unrecognized value 'maybe', acceptable values are: '0', '1', "
         "'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'"),
        ([], "?rollback=True", "1.2", 'Unknown argument: "rollback"'),
        ([{"op": "replace", "path": "/node_count", "value": 0}], "", "1.9",
         "Resizing a nodegroup to zero is not supported in the provided microversion."),
        ([{"op": "replace", "path": "/api_address", "value": "x"}], "", "latest",
         "'/api_address' is an internal attribute and can not be updated"),
    ]:
        resp = api.patch_json(url + query, ops, headers=headers(version=version), status=400)
        assert resp.json["errors"][0]["detail"] == detail
    api.patch_json(url, [], headers=headers("reader"), status=403)


def test_request_contradicting_an_open_operation_is_409(api, recorder):
    recorder.clear_operations = False
    resp = create(api, template(api))
    uuid, record = resp.json["uuid"], resp.headers[OPERATION_HEADER]
    recorder.wait_for("cluster_create")
    resp = api.post_json(f"/v1/clusters/{uuid}/actions/resize", {"node_count": 2},
                         headers=headers(), status=409)
    error = resp.json["errors"][0]
    assert error["code"] == "client" and error["status"] == 409
    assert f"contradicts operation {record} (cluster_create, pending)" in error["detail"]
    assert [r.uuid for r in operations.open_of(uuid)] == [record]


def test_delete(api, recorder):
    uuid = create(api, template(api)).json["uuid"]
    recorder.wait_for("cluster_create")
    api.delete(f"/v1/clusters/{uuid}", headers=headers("reader"), status=403)
    api.delete(f"/v1/clusters/{uuid}", headers=headers(project=OTHER_PROJECT), status=404)
    api.delete(f"/v1/clusters/{uuid}", headers=headers(), status=204)
    [call] = recorder.wait_for("cluster_delete")
    assert call["operation"] == states.OP_DELETE


def test_resize(api, recorder):
    uuid = create(api, template(api)).json["uuid"]
    recorder.wait_for("cluster_create")
    complete(uuid)
    url = f"/v1/clusters/{uuid}/actions/resize"
    api.post_json(url, {"node_count": 3}, headers=headers(version="1.6"), status=406)
    api.get(url, headers=headers(), status=405)
    resp = api.post_json(url, {"node_count": 3, "nodes_to_remove": None}, headers=headers(),
                         status=202)
    assert resp.json == {"uuid": uuid}
    [call] = recorder.wait_for("cluster_resize")
    worker = [ng for ng in nodegroups.list(None) if ng.name == "default-worker"][0]
    assert call["operation_args"]["nodegroup_uuid"] == worker.uuid
    assert call["operation_args"]["node_count"] == 3
    resp = api.post_json(url, {"node_count": 1, "nodegroup": "default-master"},
                         headers=headers(), status=400)
    assert resp.json["errors"][0]["detail"] == \
        "Resizing the master nodegroup is not supported by this driver."
    nodegroups.update(None, worker.uuid, {"max_node_count": 5})
    resp = api.post_json(url, {"node_count": 6}, headers=headers(), status=400)
    assert resp.json["errors"][0]["detail"] == ("Resizing default-worker outside the allowed "
                                                "range: min_node_count = 0, max_node_count = 5")
    api.post_json(url, {"node_count": 1, "nodegroup": "nope"}, headers=headers(), status=404)
    api.post_json(url, {}, headers=headers(), status=400)


def test_upgrade(api, recorder):
    tpl = template(api)
    new = template(api, name="new")
    uuid = create(api, tpl).json["uuid"]
    recorder.wait_for("cluster_create")
    complete(uuid)
    url = f"/v1/clusters/{uuid}/actions/upgrade"
    body = {"cluster_template": new["uuid"], "max_batch_size": 1}
    resp = api.post_json(url, body, headers=headers(version="1.7"), status=400)
    assert resp.json["errors"][0]["detail"] == \
        "Cluster upgrade is not supported in the provided microversion."
    api.post_json(url, body, headers=headers(version="1.6"), status=406)
    assert api.post_json(url, body, headers=headers(), status=202).json == {"uuid": uuid}
    [call] = recorder.wait_for("cluster_upgrade")
    assert call["operation_args"]["cluster_template_uuid"] == new["uuid"]
    complete(uuid)
    recorder.fail["cluster_upgrade"] = exception.NotSupported(operation="Upgrading it")
    resp = api.post_json(url, body, headers=headers(), status=400)
    assert resp.json["errors"][0]["detail"] == "Upgrading it is not supported."
    api.post_json(url, {"cluster_template": "nope"}, headers=headers(), status=404)


def test_broker_unreachable_create_is_accepted_once(api, recorder, monkeypatch):
    """The row and its operation record exist: a 202 (a reconciler starts it), never a 503
    that makes a client retry into a second cluster."""
    tpl = template(api)
    monkeypatch.setattr(rpc, "_transport", support.unreachable_transport())
    from oslo_config import cfg

    cfg.CONF.set_override("cast_retry", 0, "conductor")
    resp = create(api, tpl)
    [row] = clusters.list(None)
    assert row.uuid == resp.json["uuid"] and row.operation == states.OP_CREATE
    record = operations.get_in_cluster(None, row.uuid, resp.headers[OPERATION_HEADER])
    assert (record.kind, record.state) == (states.OP_CREATE, states.OPERATION_PENDING)


def test_pagination_and_next_link(api_any, recorder):
    tpl = template(api_any)
    uuids = [create(api_any, tpl, name=f"c{i}").json["uuid"] for i in range(3)]
    page = api_any.get("/v1/clusters/?limit=2", headers=headers()).json
    assert [c["uuid"] for c in page["clusters"]] == uuids[:2]
    assert page["next"].endswith(f"/v1/clusters?sort_key=id&sort_dir=asc&limit=2&"
                                 f"marker={uuids[1]}")
    rest = api_any.get(page["next"].replace("http://localhost", ""), headers=headers()).json
    assert [c["uuid"] for c in rest["clusters"]] == uuids[2:]


def test_a_requester_without_the_trusts_roles_is_refused_before_anything_is_recorded(
        api, recorder):
    """The trust delegates [trust] roles plus what the enabled features need; Keystone would
    refuse a trust of roles its trustor lacks, so the API says so first (400 naming both)."""
    tpl = template(api, labels={"cloud_provider_enabled": "true"})
    resp = create(api, tpl, expect=400, name="lb")
    detail = resp.json["errors"][0]["detail"]
    assert "'load-balancer_member'" in detail
    assert "[trust] cloud_provider_roles" in detail
    create(api, tpl, name="no-lb", labels={"cloud_provider_enabled": "false"})
    from oslo_config import cfg

    cfg.CONF.set_override("roles", ["member", "heat_stack_owner"], "trust")
    try:
        resp = create(api, tpl, expect=400, name="o",
                      labels={"cloud_provider_enabled": "false"})
    finally:
        cfg.CONF.clear_override("roles", "trust")
    assert "'heat_stack_owner' ([trust] roles)" in resp.json["errors"][0]["detail"]
    names = {c.name for c in clusters.list(None, {"project_id": PROJECT})}
    assert names == {"no-lb"}
