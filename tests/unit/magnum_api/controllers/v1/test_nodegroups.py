"""Node groups through their controller: created on a cluster with an API (the cluster's
labels inherited, the flavor's disk checked on the stand-in Nova), queued for the conductor
on RabbitMQ; masters and duplicates refused; the default groups listed by role."""

from __future__ import annotations

from magnum_common import states
from magnum_common.db.clusters import clusters
from tests.unit.magnum_api.controllers.support import BODY, who


def _cluster(api) -> str:
    tpl = api.post_json("/v1/clustertemplates", BODY, headers=who()).json
    uuid = api.post_json("/v1/clusters", {"name": "c1", "cluster_template_id": tpl["uuid"],
                                          "labels": {"kube_tag": "v1.30.4"}},
                         headers=who()).json["uuid"]
    clusters.update(None, uuid, {"status": states.CREATE_COMPLETE,
                                 "api_address": "https://127.0.0.1:6443"})
    return uuid


def test_create_list_and_refusals(api, cloud, conductor):
    uuid = _cluster(api)
    url = f"/v1/clusters/{uuid}/nodegroups"
    workers = api.get(url + "?role=worker", headers=who("reader")).json["nodegroups"]
    assert [ng["name"] for ng in workers] == ["default-worker"]
    created = api.post_json(url, {"name": "gpu", "node_count": 2, "flavor_id": "m1.medium"},
                            headers=who())
    assert created.status_int == 202 and created.json["labels"] == {"kube_tag": "v1.30.4"}
    (cast,) = conductor.wait_for("nodegroup_create")
    assert cast["kwargs"] == {"cluster_uuid": uuid}
    assert cast["operation"] == states.OP_NODEGROUP_CREATE
    assert cast["operation_args"]["nodegroup_uuid"] == created.json["uuid"]
    for body, code, words in (({"name": "gpu"}, 409, "already exists"),
                              ({"name": "m2", "role": "master"}, 400, "master"),
                              ({"name": "tiny", "flavor_id": "m1.nodisk"}, 400, "")):
        refused = api.post_json(url, body, headers=who(), expect_errors=True)
        assert refused.status_int == code, refused.text
        assert words in refused.text
    old = api.get(url, headers=who(version="1.8"), expect_errors=True)
    assert old.status_int == 406
