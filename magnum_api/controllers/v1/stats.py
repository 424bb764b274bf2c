"""``GET /v1/stats``: cluster and node counts of a project (or of all, for admins)."""

from __future__ import annotations

from magnum_api import policy
from magnum_api.controllers import base
from magnum_api.schemas import misc, types
from magnum_common import exception
from magnum_common.db.clusters import clusters


class StatsController(base.RestController):

    @base.operation("GET", "/v1/stats", "Cluster and node counts", "stats",
                    query={"project_id": types.string(description="Default: the caller's."),
                           "type": types.string(description="cluster (the default).")},
                    responses={200: base.Response("The counts.", misc.STATS_VIEW)},
                    policy=("stats:get_all",))
    def get_all(self, **_):
        params = base.query()
        ctx = base.context()
        policy.authorize(ctx, "stats:get_all")
        if params.get("type", "cluster").lower() != "cluster":
            raise exception.Invalid("Invalid stats type. Allowed values are 'cluster'")
        project_id = params.get("project_id")
        if not ctx.is_admin:
            if project_id not in (None, ctx.project_id):
                raise exception.NotAuthorized()
            project_id = ctx.project_id
        count, nodes = clusters.stats(None, project_id)
        return base.respond({"clusters": count, "nodes": nodes})
