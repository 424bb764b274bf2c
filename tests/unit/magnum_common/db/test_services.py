"""The service repository: heartbeats and whether a service is up."""

from __future__ import annotations

import datetime

from magnum_common.db import api
from magnum_common.db.services import is_up, magnum_services


def test_service_heartbeat_counts_and_expires(db_any):
    first = magnum_services.heartbeat("host-a", "magnum-conductor")
    second = magnum_services.heartbeat("host-a", "magnum-conductor")
    assert (first.report_count, second.report_count) == (1, 2)
    assert is_up(second)
    assert not is_up(second, now=api.now() + datetime.timedelta(seconds=3600))


def test_a_forced_down_or_removed_service_is_not_up(db_any):
    row = magnum_services.heartbeat("host-b", "magnum-conductor")
    magnum_services.heartbeat("host-c", "magnum-conductor")
    assert magnum_services.get_by_host_and_binary("host-b", "magnum-api") is None
    row.forced_down = True
    assert not is_up(row)
    magnum_services.destroy_by_id(row.id)
    assert [s.host for s in magnum_services.list_all()] == ["host-c"]
