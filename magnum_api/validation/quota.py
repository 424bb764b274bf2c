"""The clusters-per-project quota checked on cluster create."""

from __future__ import annotations

from oslo_config import cfg

from magnum_common import exception
from magnum_common.context import RequestContext
from magnum_common.db.clusters import clusters
from magnum_common.db.quotas import quotas

CONF = cfg.CONF
RESOURCE = "Cluster"

quota_opts = [
    cfg.IntOpt("max_clusters_per_project", default=20, min=0,
               help="Clusters a project may have when no quota row says otherwise."),
]
CONF.register_opts(quota_opts, group="quotas")


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


def list_opts():
    return [("quotas", quota_opts)]
