"""``PATCH /v1/credentials/{cluster}`` (1.12+): rotate the cluster's credentials."""

from __future__ import annotations

from magnum_api import microversion, policy
from magnum_api.controllers import base
from magnum_common import conductor_api
from magnum_common.db.clusters import clusters


class CredentialsController(base.RestController):

    @base.expose()
    def patch(self, cluster_ident, **_):
        base.require_version(microversion.CREDENTIALS)
        base.check_query()
        ctx = base.context()
        policy.authorize(ctx, "credential:rotate")
        cluster = clusters.get(ctx, cluster_ident)
        conductor_api.ConductorAPI().credential_rotate(ctx, cluster.uuid)
        return base.respond({"uuid": cluster.uuid}, status=202)
