"""Quotas: admins set them for projects Keystone knows; a project reads its own, the
default when it has none."""

from __future__ import annotations

from oslo_config import cfg

from tests.unit.magnum_api.controllers.support import who

CONF = cfg.CONF


def test_the_life_of_a_quota(api, cloud):
    cloud.projects.update({"p1"})
    CONF.set_override("max_clusters_per_project", 20, "quotas")
    assert api.get("/v1/quotas/p1/Cluster", headers=who("reader")).json == {
        "project_id": "p1", "resource": "Cluster", "hard_limit": 20}
    body = {"project_id": "p1", "resource": "Cluster", "hard_limit": 3}
    assert api.post_json("/v1/quotas", body, headers=who("member"),
                         expect_errors=True).status_int == 403
    created = api.post_json("/v1/quotas", body, headers=who("admin", "p9"))
    assert created.status_int == 201 and created.json["hard_limit"] == 3
    assert api.post_json("/v1/quotas", body, headers=who("admin", "p9"),
                         expect_errors=True).status_int == 409
    unknown = api.post_json("/v1/quotas", {**body, "project_id": "nobody"},
                            headers=who("admin", "p9"), expect_errors=True)
    assert unknown.status_int == 404
    patched = api.patch_json("/v1/quotas/p1/Cluster", {**body, "hard_limit": 5},
                             headers=who("admin", "p9"))
    assert patched.status_int == 202 and patched.json["hard_limit"] == 5
    assert api.get("/v1/quotas/p1/Cluster", headers=who("reader")).json["hard_limit"] == 5
    assert api.get("/v1/quotas/p1/Cluster", headers=who("reader", "p2"),
                   expect_errors=True).status_int == 403
    listed = api.get("/v1/quotas?all_tenants=true", headers=who("admin", "p9")).json
    assert [q["project_id"] for q in listed["quotas"]] == ["p1"]
    assert api.delete("/v1/quotas/p1/Cluster", headers=who("admin", "p9")).status_int == 204
    assert api.delete("/v1/quotas/p1/Cluster", headers=who("admin", "p9"),
                      expect_errors=True).status_int == 404
