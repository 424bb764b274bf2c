"""The clusters-per-project quota checked on cluster create."""

from __future__ import annotations

from magnum_api.conf import CONF
from magnum_common import exception
from magnum_common.context import RequestContext
from magnum_common.db.clusters import clusters
from magnum_common.db.quotas import quotas

RESOURCE = "Cluster"


def hard_limit(context: RequestContext | None, project_id: str) -> int:
    try:
        return quotas.get_for(context, project_id, RESOURCE).hard_limit
    except exception.QuotaNotFound:
        return CONF.quotas.max_clusters_per_project


def check_cluster_quota(context: RequestContext) -> None:
    """403 when the caller's project already has as many clusters as its limit."""
    limit = hard_limit(None, context.project_id)
    current = clusters.count(None, {"project_id": context.project_id})
    if current >= limit:
        raise exception.ResourceLimitExceeded(
            msg=f"You have reached the maximum clusters per project, {limit}. You may delete "
            "a cluster to make room for a new one.")
