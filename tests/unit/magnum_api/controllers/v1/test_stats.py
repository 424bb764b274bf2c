"""``GET /v1/stats``: a project's cluster and node counts; other projects' only for admins."""

from __future__ import annotations

from tests.unit.magnum_api.controllers.support import who
from tests.unit.magnum_common.db.support import ALICE, BOB, make_cluster


def test_counts_per_project_and_who_may_ask_for_which(api):
    make_cluster(ALICE, "a1", workers=2)
    make_cluster(ALICE, "a2", workers=1)
    make_cluster(BOB, "b1", workers=4)
    assert api.get("/v1/stats", headers=who("reader")).json == {"clusters": 2, "nodes": 5}
    assert api.get("/v1/stats?project_id=p2", headers=who("admin", "p9")).json == {
        "clusters": 1, "nodes": 5}
    assert api.get("/v1/stats", headers=who("admin", "p9")).json == {"clusters": 3,
                                                                     "nodes": 10}
    other = api.get("/v1/stats?project_id=p2", headers=who("member"), expect_errors=True)
    assert other.status_int == 403
    wrong = api.get("/v1/stats?type=node", headers=who(), expect_errors=True)
    assert wrong.status_int == 400 and "Allowed values are 'cluster'" in wrong.text
