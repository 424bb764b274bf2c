"""``PATCH /v1/credentials/{cluster}`` (1.12+): rotate the cluster's credentials."""

from __future__ import annotations

from magnum_api import microversion, policy
from magnum_api.controllers import base
from magnum_api.schemas import types
from magnum_common import conductor_api
from magnum_common.db.clusters import clusters


class CredentialsController(base.RestController):

    @base.operation("PATCH", "/v1/credentials/{cluster_ident}",
                    "Rotate a cluster's credentials", "credentials",
                    min_version=microversion.CREDENTIALS, description="No body.",
                    responses={202: base.Response("Rotated: the cluster's UUID.",
                                                  types.UUID_BODY)},
                    errors=(409, 503), policy=("credential:rotate",))
    def patch(self, cluster_ident, **_):
        ctx = base.context()
        policy.authorize(ctx, "credential:rotate")
        cluster = clusters.get(ctx, cluster_ident)
        conductor_api.ConductorAPI().credential_rotate(ctx, cluster.uuid)
        return base.respond({"uuid": cluster.uuid}, status=202)
