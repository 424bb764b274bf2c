"""``PATCH /v1/credentials/{cluster}`` (1.12+): rotate the cluster's credentials."""

from __future__ import annotations

from magnum_api import microversion, policy
from magnum_api.controllers import base
from magnum_api.controllers.v1.clusters import check_driver_supports
from magnum_api.schemas import types
from magnum_common import conductor_api, exception, states
from magnum_common.db.cluster_templates import cluster_templates
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
        if cluster.status not in states.NODEGROUP_OPERABLE:
            raise exception.NotSupported(operation="Rotating the credentials of a cluster "
                                         f'when status is "{cluster.status}"')
        check_driver_supports(cluster_templates.get_by_uuid(None, cluster.cluster_template_id),
                              "rotate_credential",
                              "Credential rotation is not supported by driver.")
        conductor_api.ConductorAPI().credential_rotate(ctx, cluster.uuid)
        return base.respond({"uuid": cluster.uuid}, status=202)
