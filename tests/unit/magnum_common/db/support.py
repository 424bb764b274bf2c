"""Rows the repository tests share: two tenants and a cluster with its default node groups."""

from __future__ import annotations

from magnum_common import states
from magnum_common.context import RequestContext
from magnum_common.db import models
from magnum_common.db.clusters import clusters

ALICE = RequestContext(user_id="alice", project_id="p1")
BOB = RequestContext(user_id="bob", project_id="p2")


def make_cluster(ctx: RequestContext, name: str = "c1", workers: int = 2) -> models.Cluster:
    """A cluster being created, with a master and a worker group (``workers`` nodes)."""
    return clusters.create_with_nodegroups(
        ctx,
        {"name": name, "project_id": ctx.project_id, "user_id": ctx.user_id,
         "status": states.CREATE_IN_PROGRESS},
        [{"name": "default-master", "project_id": ctx.project_id, "role": "master",
          "node_count": 1, "is_default": True},
         {"name": "default-worker", "project_id": ctx.project_id, "role": "worker",
          "node_count": workers, "is_default": True}],
    )
