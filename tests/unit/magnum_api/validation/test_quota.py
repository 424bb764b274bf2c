"""The clusters-per-project quota: the project's row, else the configured default."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from magnum_api.validation import quota
from magnum_common import exception
from magnum_common.context import RequestContext
from magnum_common.db.quotas import quotas
from tests.unit.magnum_common.db.support import make_cluster

CONF = cfg.CONF
ALICE = RequestContext(user_id="alice", project_id="p1")


def test_the_default_limit_applies_until_the_project_has_a_quota(db):
    CONF.set_override("max_clusters_per_project", 1, "quotas")
    assert quota.hard_limit(None, "p1") == 1
    quota.check_cluster_quota(ALICE)
    make_cluster(ALICE)
    with pytest.raises(exception.ResourceLimitExceeded, match="maximum clusters per "
                       "project, 1"):
        quota.check_cluster_quota(ALICE)
    quota.check_cluster_quota(RequestContext(user_id="bob", project_id="p2"))
    quotas.create(None, {"project_id": "p1", "resource": quota.RESOURCE, "hard_limit": 2})
    assert quota.hard_limit(None, "p1") == 2
    quota.check_cluster_quota(ALICE)
    make_cluster(ALICE, "c2")
    with pytest.raises(exception.ResourceLimitExceeded) as raised:
        quota.check_cluster_quota(ALICE)
    assert raised.value.code == 403
