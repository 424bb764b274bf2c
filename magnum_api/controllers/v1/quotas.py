"""``/v1/quotas``: per-project cluster limits."""

from __future__ import annotations

import pecan

from magnum_api import policy
from magnum_api.controllers import base
from magnum_api.schemas import misc
from magnum_api.validation import quota
from magnum_api.validation.openstack import Services
from magnum_common import exception
from magnum_common.db.quotas import quotas

PAGE_PARAMS = ("limit", "marker", "sort_key", "sort_dir", "all_tenants")


def _not_found(project_id: str, resource: str) -> exception.QuotaNotFound:
    return exception.QuotaNotFound(msg=f"project_id {project_id} resource {resource}.")


class QuotasController(base.RestController):

    @base.expose()
    def get_all(self, **_):
        params = base.check_query(PAGE_PARAMS)
        page = base.Page(params, integer_marker=True)
        all_tenants = base.query_bool(params, "all_tenants")
        ctx = base.context()
        policy.authorize(ctx, "quota:get_all")
        filters = None
        if ctx.is_admin and all_tenants:
            ctx.all_tenants = True
        else:
            filters = {"project_id": ctx.project_id}
        rows = quotas.list(ctx, filters, page.limit, page.marker, page.sort_key,
                           page.sort_dir)
        return base.respond(page.collection(
            "quotas", [misc.quota_view(row) for row in rows], "quotas",
            rows[-1].id if rows else None, {"all_tenants": "True"} if all_tenants else None))

    @base.expose()
    def get_one(self, project_id, resource, **_):
        base.check_query()
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

    @base.expose()
    def post(self, *remainder, **_):
        base.check_query()
        _, body = base.parse_object(misc.QuotaPost, "quota")
        ctx = base.context()
        Services(ctx).project(body["project_id"])
        policy.authorize(ctx, "quota:create")
        values = {"project_id": body["project_id"],
                  "resource": body.get("resource") or quota.RESOURCE,
                  "hard_limit": 1 if body.get("hard_limit") is None else body["hard_limit"]}
        row = quotas.create(ctx, values)
        return base.respond(misc.quota_view(row), status=201)

    @base.expose()
    def patch(self, project_id, resource, **_):
        base.check_query()
        _, body = base.parse_object(misc.QuotaPost, "quota") if pecan.request.body else (
            None, {})
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

    @base.expose()
    def delete(self, project_id, resource, **_):
        base.check_query()
        ctx = base.context()
        policy.authorize(ctx, "quota:delete")
        try:
            quotas.delete_for(None, project_id, resource)
        except exception.QuotaNotFound:
            raise _not_found(project_id, resource) from None
        return base.no_content()
