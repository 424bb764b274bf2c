"""``/v1/federations``: stored and served by the API (no driver implements federation)."""

from __future__ import annotations

from wsme import exc as wsme_exc

from magnum_api import policy
from magnum_api.controllers import base
from magnum_api.schemas import misc
from magnum_api.schemas import patch as jsonpatch_schema
from magnum_common import exception, states, utils
from magnum_common.db.clusters import clusters
from magnum_common.db.federations import federations

PAGE_PARAMS = ("limit", "marker", "sort_key", "sort_dir")
_CHANGEABLE = frozenset({"member_ids", "properties"})


class FederationsController(base.RestController):
    _custom_actions = {"detail": ["GET"]}

    def _collection(self, rule: str, path: str, detailed: bool):
        page = base.Page(base.check_query(PAGE_PARAMS))
        ctx = base.context()
        policy.authorize(ctx, rule)
        rows = federations.list(ctx, limit=page.limit, marker=page.marker,
                                sort_key=page.sort_key, sort_dir=page.sort_dir)
        url = base.base_url()
        return base.respond(page.collection(
            "federations", [misc.federation_view(row, url, detailed) for row in rows], path,
            rows[-1].uuid if rows else None))

    @base.expose()
    def get_all(self, **_):
        return self._collection("federation:get_all", "federations", False)

    @base.expose()
    def detail(self, *remainder, **_):
        if remainder:
            raise exception.FederationNotFound(federation="detail")
        return self._collection("federation:detail", "federations/detail", True)

    @base.expose()
    def get_one(self, ident, **_):
        base.check_query()
        ctx = base.context()
        row = federations.get(ctx, ident)
        policy.authorize(ctx, "federation:get", row.as_dict())
        return base.respond(misc.federation_view(row, base.base_url(), True))

    @base.expose()
    def post(self, *remainder, **_):
        base.check_query()
        _, body = base.parse_object(misc.FederationPost, "federation")
        ctx = base.context()
        policy.authorize(ctx, "federation:create")
        if not body.get("hostcluster_id"):
            raise exception.InvalidParameterValue(
                err="No hostcluster specified. Please specify a hostcluster_id.")
        clusters.get(ctx, body["hostcluster_id"])
        properties = body.get("properties")
        if not properties:
            raise exception.InvalidParameterValue(
                err="Please specify a `properties` dict for the federation.")
        if "dns-zone" not in properties:
            raise exception.InvalidParameterValue(
                err="No DNS zone specified. Please specify a `dns-zone`.")
        row = federations.create(ctx, {
            "uuid": utils.generate_uuid(), "name": body.get("name")
            or utils.generate_name("federation"), "project_id": ctx.project_id,
            "hostcluster_id": body["hostcluster_id"],
            "member_ids": list(body.get("member_ids") or []), "properties": properties,
            "status": states.CREATE_COMPLETE})
        return base.respond({"uuid": row.uuid}, status=202)

    @base.expose()
    def patch(self, ident, **_):
        base.check_query(("rollback",))
        ops = jsonpatch_schema.check_ops(
            base.parse_body(jsonpatch_schema.PATCH, "patch"), misc.FEDERATION_INTERNAL, ())
        ctx = base.context()
        row = federations.get(ctx, ident)
        policy.authorize(ctx, "federation:update", row.as_dict())
        members = list(row.member_ids or [])
        generic = []
        for op in ops:
            if op["path"] == "/member_ids" and op["op"] == "add":
                if op["value"] in members:
                    raise exception.MemberAlreadyExists(uuid=op["value"],
                                                        federation_name=row.name)
                members.append(str(op["value"]))
            elif op["path"] == "/member_ids" and op["op"] == "remove" and "value" in op:
                if op["value"] not in members:
                    raise exception.ClusterNotFound(cluster=op["value"])
                members.remove(op["value"])
            else:
                generic.append(op)
        doc = {k: getattr(row, k) for k in ("name", "hostcluster_id", "status",
                                             "status_reason", "properties")}
        doc["member_ids"] = members
        patched = jsonpatch_schema.apply(doc, generic, misc.FEDERATION_LITERAL_PATHS)
        changed = {k for k in doc if patched.get(k) != doc[k]}
        refused = sorted(changed - _CHANGEABLE)
        if refused:
            raise wsme_exc.ClientSideError(
                f"cannot change federation property(ies) {', '.join(refused)}.")
        values = {"member_ids": members, "properties": patched.get("properties") or {},
                  "status": states.UPDATE_COMPLETE}
        federations.update(ctx, row.uuid, values)
        return base.respond({"uuid": row.uuid}, status=202)

    @base.expose()
    def delete(self, ident, **_):
        base.check_query()
        ctx = base.context()
        row = federations.get(ctx, ident)
        policy.authorize(ctx, "federation:delete", row.as_dict())
        federations.destroy(ctx, row.uuid)
        return base.no_content()
