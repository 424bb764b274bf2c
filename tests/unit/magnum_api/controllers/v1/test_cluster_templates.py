"""Cluster templates through their controller (the real drivers, the local HTTP stand-in
of Glance, Nova and Neutron, SQLite): create, visibility, PATCH, and a template in use."""

from __future__ import annotations

from magnum_common.db.clusters import clusters
from tests.unit.magnum_api.controllers.support import BODY, who
from tests.unit.magnum_common.db.support import ALICE, make_cluster


def test_the_life_of_a_template(api, cloud):
    created = api.post_json("/v1/clustertemplates", BODY, headers=who())
    assert created.status_int == 201
    tpl = created.json
    assert tpl["driver"] == "k8s_fedora_coreos_v1" and tpl["cluster_distro"] == "fedora-coreos"
    assert api.get("/v1/clustertemplates/k8s", headers=who("reader")).json["uuid"] == \
        tpl["uuid"]
    hidden = api.get(f"/v1/clustertemplates/{tpl['uuid']}", headers=who("member", "p2"),
                     expect_errors=True)
    assert hidden.status_int == 404
    publish = [{"op": "replace", "path": "/public", "value": True}]
    assert api.patch_json(f"/v1/clustertemplates/{tpl['uuid']}", publish, headers=who(),
                          expect_errors=True).status_int == 403
    renamed = api.patch_json(f"/v1/clustertemplates/{tpl['uuid']}",
                             [{"op": "replace", "path": "/name", "value": "k8s-2"}],
                             headers=who())
    assert renamed.json["name"] == "k8s-2"
    listed = api.get("/v1/clustertemplates/detail", headers=who()).json["clustertemplates"]
    assert [t["name"] for t in listed] == ["k8s-2"]


def test_a_template_in_use_keeps_its_settings_and_stays(api, cloud):
    tpl = api.post_json("/v1/clustertemplates", BODY, headers=who()).json
    row = make_cluster(ALICE)
    clusters.update(None, row.uuid, {"cluster_template_id": tpl["uuid"]})
    change = [{"op": "replace", "path": "/flavor_id", "value": "m1.medium"}]
    refused = api.patch_json(f"/v1/clustertemplates/{tpl['uuid']}", change, headers=who(),
                             expect_errors=True)
    assert refused.status_int == 400 and tpl["uuid"] in refused.text
    assert api.delete(f"/v1/clustertemplates/{tpl['uuid']}", headers=who(),
                      expect_errors=True).status_int == 400
    clusters.destroy(None, row.uuid)
    assert api.delete(f"/v1/clustertemplates/{tpl['uuid']}", headers=who()).status_int == 204
