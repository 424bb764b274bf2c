"""Server-owned fields are read-only on every create and every PATCH (issue 11, point 6):
400 naming the field, as upstream's read-only attributes, and nothing recorded or sent.

``is_default`` is the one the issue found: a group created with it could never be deleted
and cluster delete skipped its stack. The lists below are every attribute the API itself
sets, per resource.
"""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import headers
from tests.functional.api.test_api_bad_input import make_world, snapshot
from tests.functional.api.test_api_clusters import complete

UUID = "0d6e4e8c-1f4e-4b8a-9a57-111111111111"
FED_PROPS = {"properties": {"dns-zone": "z."}}
STAMP = "2026-01-01T00:00:00+00:00"
COMMON = {"uuid": UUID, "created_at": STAMP, "updated_at": STAMP,
          "links": [{"href": "http://x/", "rel": "self"}]}
#: resource -> server-owned attributes (with a plausible value) its create body refuses.
CREATE = {
    "template": {**COMMON, "project_id": "project-b", "user_id": "u"},
    "cluster": {**COMMON, "status": "CREATE_COMPLETE", "status_reason": "r",
                "health_status": "HEALTHY", "health_status_reason": {"a": "b"},
                "coe_version": "v1", "container_version": "1", "stack_id": "s",
                "cluster_id": "s", "api_address": "https://127.10.0.9:6443",
                "master_addresses": ["127.10.0.9"], "node_addresses": ["127.10.0.8"],
                "project_id": "project-b", "user_id": "u", "labels_overridden": {},
                "labels_added": {}, "labels_skipped": {}, "faults": {}},
    "nodegroup": {**COMMON, "id": 7, "cluster_id": UUID, "project_id": "project-b",
                  "is_default": True, "status": "CREATE_COMPLETE", "status_reason": "r",
                  "stack_id": "s", "version": "1", "node_addresses": ["127.10.0.8"],
                  "labels_overridden": {}, "labels_added": {}, "labels_skipped": {}},
    "federation": {**COMMON, "status": "CREATE_COMPLETE", "status_reason": "r",
                   "project_id": "project-b"},
    "quota": {"id": 7, "created_at": STAMP, "updated_at": STAMP},
    "certificate": {"pem": "-----BEGIN CERTIFICATE-----", "links": COMMON["links"],
                    "created_at": STAMP, "updated_at": STAMP},
}
#: resource -> attributes a JSON patch may not touch (health_status is the cluster's
#: patchable exception, as upstream).
PATCH = {
    "template": ("uuid", "id", "project_id", "user_id", "created_at", "updated_at", "links"),
    "cluster": ("uuid", "id", "status", "status_reason", "coe_version", "container_version",
                "stack_id", "cluster_id", "api_address", "master_addresses",
                "node_addresses", "project_id", "user_id", "created_at", "updated_at",
                "links", "ca_cert_ref", "magnum_cert_ref", "etcd_ca_cert_ref",
                "front_proxy_ca_cert_ref"),
    "nodegroup": ("uuid", "id", "cluster_id", "project_id", "is_default", "status",
                  "status_reason", "stack_id", "version", "node_addresses", "node_count",
                  "role", "name", "created_at", "updated_at", "links"),
    "federation": ("uuid", "id", "status", "status_reason", "project_id", "created_at",
                   "updated_at", "links"),
}


@pytest.fixture
def world(api, recorder):
    return make_world(api, recorder)


def _create(w, resource: str, extra: dict):
    bodies = {
        "template": ("/v1/clustertemplates", {"coe": "kubernetes",
                                              "image_id": "fedora-coreos-40"}),
        "cluster": ("/v1/clusters", {"cluster_template_id": w["tpl"]}),
        "nodegroup": (f"/v1/clusters/{w['cluster']}/nodegroups", {"name": "ng2"}),
        "federation": ("/v1/federations", {"hostcluster_id": w["cluster"], **FED_PROPS}),
        "quota": ("/v1/quotas", {"project_id": "project-a", "hard_limit": 3}),
        "certificate": ("/v1/certificates", {"cluster_uuid": w["cluster"], "csr": "CSR"}),
    }
    path, body = bodies[resource]
    return w["api"].post_json(path, {**body, **extra}, headers=headers("admin"),
                              expect_errors=True)


def _refused_quietly(w, before, resp, field: str | None = None) -> None:
    assert resp.status_int == 400, resp.text
    if field:
        assert resp.json["errors"][0]["detail"].startswith(
            f"Invalid input for field/attribute {field}. Value: "), resp.text
        assert resp.json["errors"][0]["detail"].endswith("Cannot set read only field.")
    assert snapshot() == before and w["recorder"].calls == []


@pytest.mark.parametrize("resource", sorted(CREATE))
def test_create_refuses_every_server_owned_field(world, resource):
    before = snapshot()
    for field, value in CREATE[resource].items():
        _refused_quietly(world, before, _create(world, resource, {field: value}), field)
        # null is no way around it: a read-only attribute may not be sent at all
        _refused_quietly(world, before, _create(world, resource, {field: None}), field)


def _item(w, resource: str) -> str:
    return {"template": f"/v1/clustertemplates/{w['tpl']}",
            "cluster": f"/v1/clusters/{w['cluster']}",
            "nodegroup": f"/v1/clusters/{w['cluster']}/nodegroups/ng1",
            "federation": f"/v1/federations/{w['fed']}"}[resource]


@pytest.mark.parametrize("resource", sorted(PATCH))
def test_patch_refuses_every_server_owned_field(world, resource):
    before = snapshot()
    for field in PATCH[resource]:
        for op in ({"op": "replace", "path": f"/{field}", "value": "x"},
                   {"op": "add", "path": f"/{field}", "value": "x"},
                   {"op": "remove", "path": f"/{field}"}):
            resp = world["api"].patch_json(_item(world, resource), [op],
                                           headers=headers("admin"), expect_errors=True)
            _refused_quietly(world, before, resp)
            assert field in resp.json["errors"][0]["detail"], resp.text


def test_quota_patch_keeps_its_owned_fields(world):
    """A quota PATCH is a plain object: the URL names the row, server fields are refused."""
    world["api"].post_json("/v1/quotas", {"project_id": "project-a", "hard_limit": 3},
                           headers=headers("admin"), status=201)
    before = snapshot()
    for field, value in CREATE["quota"].items():
        resp = world["api"].patch_json("/v1/quotas/project-a/Cluster",
                                       {"project_id": "project-a", "resource": "Cluster",
                                        "hard_limit": 4, field: value},
                                       headers=headers("admin"), expect_errors=True)
        _refused_quietly(world, before, resp, field)


def test_a_user_made_default_group_cannot_exist(world):
    """The issue's case: every group a user creates is deletable, never a default one."""
    api = world["api"]
    ng = api.post_json(f"/v1/clusters/{world['cluster']}/nodegroups", {"name": "ng3"},
                       headers=headers(), status=202).json
    assert "is_default" not in ng  # the conductor-set fields are absent from the 202
    world["recorder"].wait_for("nodegroup_create")
    complete(world["cluster"])
    shown = api.get(f"/v1/clusters/{world['cluster']}/nodegroups/ng3", headers=headers()).json
    assert shown["is_default"] is False
    api.delete(f"/v1/clusters/{world['cluster']}/nodegroups/ng3", headers=headers(),
               status=204)
