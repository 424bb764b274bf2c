"""Credential rotation through its controller: asked of the conductor on RabbitMQ for a
settled cluster, refused (nothing sent) while the cluster is busy and below 1.12."""

from __future__ import annotations

from magnum_common import states
from magnum_common.db.clusters import clusters
from tests.unit.magnum_api.controllers.support import BODY, who


def test_rotation_is_asked_of_the_conductor_only_when_possible(api, cloud, conductor):
    tpl = api.post_json("/v1/clustertemplates", BODY, headers=who()).json
    uuid = api.post_json("/v1/clusters", {"name": "c1", "cluster_template_id": tpl["uuid"]},
                         headers=who()).json["uuid"]
    conductor.wait_for("cluster_create")
    clusters.update(None, uuid, {"status": states.CREATE_IN_PROGRESS})
    busy = api.patch(f"/v1/credentials/{uuid}", headers=who(), expect_errors=True)
    assert busy.status_int == 400 and "CREATE_IN_PROGRESS" in busy.text
    old = api.patch(f"/v1/credentials/{uuid}", headers=who(version="1.11"),
                    expect_errors=True)
    assert old.status_int == 406
    assert [c["method"] for c in conductor.calls] == ["cluster_create"]
    clusters.update(None, uuid, {"status": states.CREATE_COMPLETE})
    accepted = api.patch(f"/v1/credentials/{uuid}", headers=who())
    assert accepted.status_int == 202 and accepted.json == {"uuid": uuid}
    assert conductor.wait_for("credential_rotate")[0]["kwargs"]["cluster_uuid"] == uuid
