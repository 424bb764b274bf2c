"""``cluster:*``: readers read, members change, only admins reach other projects."""

from __future__ import annotations

from magnum_api.policies import cluster
from tests.unit.magnum_api.policies import support


def test_who_passes_each_cluster_rule():
    seen = support.check_rules(cluster.list_rules())
    assert seen["cluster:create"] == {"admin", "member"}
    assert seen["cluster:get"] == {"admin", "member", "reader"}
    assert seen["cluster:delete_all_projects"] == {"admin"}
    assert all(seen[name] == {"admin"} for name in seen if name.endswith("_all_projects"))
