"""``PATCH /v1/credentials/{cluster}`` (1.12+): rotate the cluster's credentials."""

from __future__ import annotations

from magnum_api import microversion, policy
from magnum_api.controllers import base
from magnum_api.controllers.v1.clusters import check_driver_supports, driver_of
from magnum_api.schemas import types
from magnum_common import conductor_api, exception, states, trust_roles
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_common.drivers.view import TemplateRow


class CredentialsController(base.RestController):

    @base.operation("PATCH", "/v1/credentials/{cluster_ident}",
                    "Rotate a cluster's credentials", "credentials",
                    min_version=microversion.CREDENTIALS,
                    description="No body. A new trustee and a trust from the requester "
                    "replace the cluster's; with [trust] cluster_user_trust the nodes get "
                    "them through a stack update that replaces them batch by batch, and the "
                    "old pair is deleted once it completes. Queued behind the cluster's "
                    "open operations. 400 when the requester lacks a role the trust "
                    "delegates.",
                    responses={202: base.accepted_response(
                        "Accepted: the cluster's UUID; a new trustee and trust replace the "
                        "old ones, which are deleted once the nodes hold the new.",
                        types.UUID_BODY)},
                    errors=(409, 503), policy=("credential:rotate",))
    def patch(self, cluster_ident, **_):
        ctx = base.context()
        policy.authorize(ctx, "credential:rotate")
        cluster = clusters.get(ctx, cluster_ident)
        if cluster.status not in states.NODEGROUP_OPERABLE:
            raise exception.NotSupported(operation="Rotating the credentials of a cluster "
                                         f'when status is "{cluster.status}"')
        template = cluster_templates.get_by_uuid(None, cluster.cluster_template_id)
        check_driver_supports(template, "rotate_credential",
                              "Credential rotation is not supported by driver.")
        trust_roles.check(ctx.roles, driver_of(template).trust_features(
            cluster.labels, TemplateRow.of(template)))
        record = conductor_api.ConductorAPI().credential_rotate(ctx, cluster.uuid)
        return base.accepted({"uuid": cluster.uuid}, record)
