"""A cluster's operation records: newest first, paged, only for its project (and admins)."""

from __future__ import annotations

from magnum_common import states
from magnum_common.db.clusters import clusters
from magnum_common.db.operations import operations
from tests.unit.magnum_api.controllers.support import who
from tests.unit.magnum_common.db.support import ALICE, make_cluster


def test_records_newest_first_paged_and_scoped(api):
    row = make_cluster(ALICE, "c1")
    create = row.operation_args["operation_id"]
    operations.finish(create, states.OPERATION_SUCCEEDED)
    clusters.clear_operation(row.uuid, states.OP_CREATE)
    resize = operations.add(ALICE, row.uuid, states.OP_RESIZE, {"node_count": 3})
    listed = api.get("/v1/clusters/c1/operations", headers=who("reader")).json["operations"]
    assert [r["uuid"] for r in listed] == [resize.uuid, create]
    assert listed[0]["arguments"] == {"node_count": 3}
    page = api.get("/v1/clusters/c1/operations?limit=1", headers=who()).json
    assert len(page["operations"]) == 1 and "marker=" in page["next"]
    one = api.get(f"/v1/clusters/{row.uuid}/operations/{create}", headers=who()).json
    assert one["state"] == states.OPERATION_SUCCEEDED
    hidden = api.get("/v1/clusters/c1/operations", headers=who("member", "p2"),
                     expect_errors=True)
    assert hidden.status_int == 404
    assert len(api.get(f"/v1/clusters/{row.uuid}/operations",
                       headers=who("admin", "p9")).json["operations"]) == 2
