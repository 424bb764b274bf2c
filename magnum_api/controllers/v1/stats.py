"""``GET /v1/stats``: cluster and node counts of a project (or of all, for admins)."""

from __future__ import annotations

from wsme import exc as wsme_exc

from magnum_api import policy
from magnum_api.controllers import base
from magnum_common import exception
from magnum_common.db.clusters import clusters


class StatsController(base.RestController):

    @base.expose()
    def get_all(self, **_):
        params = base.check_query(("project_id", "type"))
        ctx = base.context()
        policy.authorize(ctx, "stats:get_all")
        if params.get("type", "cluster").lower() != "cluster":
            raise wsme_exc.ClientSideError("Invalid stats type. Allowed values are 'cluster'")
        project_id = params.get("project_id")
        if not ctx.is_admin:
            if project_id not in (None, ctx.project_id):
                raise exception.NotAuthorized()
            project_id = ctx.project_id
        count, nodes = clusters.stats(None, project_id)
        return base.respond({"clusters": count, "nodes": nodes})
