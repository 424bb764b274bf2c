"""``magnum-service:*``, ``quota:*``, ``stats:*``: quotas are the admin's, a project reads
its own."""

from __future__ import annotations

from magnum_api.policies import service
from tests.unit.magnum_api.policies import support


def test_who_passes_each_service_quota_and_stats_rule():
    seen = support.check_rules(service.list_rules())
    assert seen["quota:update"] == seen["magnum-service:get_all"] == {"admin"}
    assert seen["quota:get"] == seen["stats:get_all"] == {"admin", "member", "reader"}
