"""The quota repository: one row per project and resource."""

from __future__ import annotations

import pytest

from magnum_common import exception
from magnum_common.db.quotas import quotas


def test_quota_is_one_per_project_and_resource(db_any):
    quota = quotas.create(None, {"project_id": "p1", "resource": "Cluster", "hard_limit": 3})
    with pytest.raises(exception.QuotaAlreadyExists):
        quotas.create(None, {"project_id": "p1", "resource": "Cluster", "hard_limit": 4})
    assert quotas.update_for(None, "p1", "Cluster", 7).hard_limit == 7
    assert [q.id for q in quotas.list(None, marker=None)] == [quota.id]


def test_quota_lookups_pages_and_deletes_by_project_and_resource(db_any):
    first = quotas.create(None, {"project_id": "p1", "resource": "Cluster", "hard_limit": 3})
    second = quotas.create(None, {"project_id": "p2", "resource": "Cluster", "hard_limit": 5})
    assert quotas.get_for(None, "p2", "Cluster").hard_limit == 5
    # Quotas page by their integer id, not by a UUID.
    assert [q.id for q in quotas.list(None, marker=str(first.id))] == [second.id]
    with pytest.raises(exception.QuotaNotFound):
        quotas.list(None, marker=str(second.id + 100))
    quotas.delete_for(None, "p1", "Cluster")
    with pytest.raises(exception.QuotaNotFound):
        quotas.get_for(None, "p1", "Cluster")
    with pytest.raises(exception.QuotaNotFound):
        quotas.delete_for(None, "p1", "Cluster")
    with pytest.raises(exception.QuotaNotFound):
        quotas.update_for(None, "p1", "Cluster", 1)
    assert [q.project_id for q in quotas.list(None, filters={"project_id": "p2"})] == ["p2"]
