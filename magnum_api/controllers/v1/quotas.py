"""``/v1/quotas``: per-project cluster limits."""

from __future__ import annotations

from magnum_api import policy
from magnum_api.controllers import base
from magnum_api.schemas import misc, types
from magnum_api.validation import quota
from magnum_api.validation.openstack import Services
from magnum_common import exception
from magnum_common.db.quotas import quotas

TAG = "quotas"
ONE = base.Response("The quota.", misc.QUOTA_VIEW)


def _not_found(project_id: str, resource: str) -> exception.QuotaNotFound:
    return exception.QuotaNotFound(msg=f"project_id {project_id} resource {resource}.")


class QuotasController(base.RestController):

    @base.operation("GET", "/v1/quotas", "List quotas", TAG,
                    query=base.page_params(True, all_tenants=types.boolean(
                        description="Admins: every project's.")),
                    responses={200: base.Response("A page of quotas.", misc.QUOTAS_VIEW)},
                    policy=("quota:get_all",))
    def get_all(self, **_):
        page, ctx = base.listing("quota:get_all", widen=False)
        all_tenants = bool(base.query().get("all_tenants"))
        filters = None
        if ctx.is_admin and all_tenants:
            ctx.all_tenants = True
        else:
            filters = {"project_id": ctx.project_id}
        rows = quotas.list(ctx, filters, **page.bounds)
        return base.respond(page.collection(
            "quotas", [misc.quota_view(row) for row in rows], "quotas",
            rows[-1].id if rows else None, {"all_tenants": "True"} if all_tenants else None))

    @base.operation("GET", "/v1/quotas/{project_id}/{resource}", "Show a quota", TAG,
                    responses={200: ONE}, policy=("quota:get",))
    def get_one(self, project_id, resource, **_):
        ctx = base.context()
        policy.authorize(ctx, "quota:get", {"project_id": project_id,
                                            "user_id": ctx.user_id})
        if not ctx.is_admin and project_id != ctx.project_id:
            raise exception.NotAuthorized()
        try:
            return base.respond(misc.quota_view(quotas.get_for(None, project_id, resource)))
        except exception.QuotaNotFound:
            return base.respond({"project_id": project_id, "resource": resource,
                                 "hard_limit": quota.hard_limit(None, project_id)})

    @base.operation("POST", "/v1/quotas", "Create a quota", TAG, body=misc.QuotaPost,
                    responses={201: ONE}, errors=(404, 409), policy=("quota:create",))
    def post(self, *remainder, **_):
        body = base.body()
        ctx = base.context()
        Services(ctx).project(body["project_id"])
        policy.authorize(ctx, "quota:create")
        values = {"project_id": body["project_id"],
                  "resource": body.get("resource") or quota.RESOURCE,
                  "hard_limit": 1 if body.get("hard_limit") is None else body["hard_limit"]}
        row = quotas.create(ctx, values)
        return base.respond(misc.quota_view(row), status=201)

    @base.operation("PATCH", "/v1/quotas/{project_id}/{resource}", "Update a quota", TAG,
                    body=misc.QuotaPost, body_required=False,
                    description="A quota object (not a JSON patch); the URL names the "
                    "project and resource.", responses={202: ONE},
                    policy=("quota:update",))
    def patch(self, project_id, resource, **_):
        body = base.body()
        ctx = base.context()
        policy.authorize(ctx, "quota:update")
        try:
            if body.get("hard_limit") is None:
                row = quotas.get_for(None, project_id, resource)
            else:
                row = quotas.update_for(None, project_id, resource, body["hard_limit"])
        except exception.QuotaNotFound:
            raise _not_found(project_id, resource) from None
        return base.respond(misc.quota_view(row), status=202)

    @base.operation("DELETE", "/v1/quotas/{project_id}/{resource}", "Delete a quota", TAG,
                    responses={204: base.Response("Deleted.")}, policy=("quota:delete",))
    def delete(self, project_id, resource, **_):
        ctx = base.context()
        policy.authorize(ctx, "quota:delete")
        try:
            quotas.delete_for(None, project_id, resource)
        except exception.QuotaNotFound:
            raise _not_found(project_id, resource) from None
        return base.no_content()
