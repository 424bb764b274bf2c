"""Clusters through their controller (the real drivers, the local stand-in of Glance, Nova
and Neutron, a recording conductor on RabbitMQ, SQLite): a create is recorded before its
cast, a resize names its node group, a delete is accepted in any state."""

from __future__ import annotations

from magnum_common import states
from magnum_common.db.clusters import clusters
from tests.unit.magnum_api.controllers.support import BODY, who


def test_create_resize_and_delete(api, cloud, conductor):
    tpl = api.post_json("/v1/clustertemplates", BODY, headers=who()).json
    accepted = api.post_json("/v1/clusters", {"name": "c1", "cluster_template_id": tpl["uuid"],
                                              "node_count": 2}, headers=who())
    assert accepted.status_int == 202 and accepted.headers["OpenStack-Magnum-Operation"]
    uuid = accepted.json["uuid"]
    (cast,) = conductor.wait_for("cluster_create")
    assert cast["kwargs"] == {"cluster_uuid": uuid}
    assert cast["operation"] == states.OP_CREATE  # recorded before the cast
    shown = api.get("/v1/clusters/c1", headers=who("reader")).json
    assert (shown["node_count"], shown["master_count"]) == (2, 1)
    clusters.update(None, uuid, {"status": states.CREATE_COMPLETE})
    resize = api.post_json(f"/v1/clusters/{uuid}/actions/resize", {"node_count": 3},
                           headers=who())
    assert resize.status_int == 202
    (resized,) = conductor.wait_for("cluster_resize")
    assert resized["operation_args"]["node_count"] == 3
    assert resized["operation_args"]["nodegroup_uuid"]
    other = api.delete(f"/v1/clusters/{uuid}", headers=who("member", "p2"),
                       expect_errors=True)
    assert other.status_int == 404
    assert api.delete(f"/v1/clusters/{uuid}", headers=who()).status_int == 204
    assert conductor.wait_for("cluster_delete")[0]["kwargs"] == {"cluster_uuid": uuid}
