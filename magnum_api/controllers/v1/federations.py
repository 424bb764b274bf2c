"""``/v1/federations``: stored and served by the API (no driver implements federation)."""

from __future__ import annotations

from magnum_api import policy
from magnum_api.controllers import base
from magnum_api.schemas import misc, types
from magnum_api.schemas import patch as jsonpatch_schema
from magnum_common import exception, states, utils
from magnum_common.db.clusters import clusters
from magnum_common.db.federations import federations

TAG = "federations"
ACCEPTED = base.Response("Accepted: the federation's UUID.", types.UUID_BODY)
_CHANGEABLE = frozenset({"member_ids", "properties"})


class FederationsController(base.RestController):
    _custom_actions = {"detail": ["GET"]}

    def _collection(self, rule: str, path: str, detailed: bool):
        page, ctx = base.listing(rule, widen=False)
        rows = federations.list(ctx, **page.bounds)
        url = base.base_url()
        return base.respond(page.collection(
            "federations", [misc.federation_view(row, url, detailed) for row in rows], path,
            rows[-1].uuid if rows else None))

    @base.operation("GET", "/v1/federations", "List federations", TAG,
                    query=base.page_params(), responses={200: base.Response(
                        "A page of federations.", types.collection(
                            "federations", misc.FEDERATION_SUMMARY_VIEW))},
                    policy=("federation:get_all",))
    def get_all(self, **_):
        return self._collection("federation:get_all", "federations", False)

    @base.operation("GET", "/v1/federations/detail", "List federations with details", TAG,
                    query=base.page_params(), responses={200: base.Response(
                        "A page of federations.", types.collection(
                            "federations", misc.FEDERATION_DETAIL))},
                    policy=("federation:detail",))
    def detail(self, *remainder, **_):
        if remainder:
            raise exception.FederationNotFound(federation="detail")
        return self._collection("federation:detail", "federations/detail", True)

    @base.operation("GET", "/v1/federations/{ident}", "Show a federation", TAG,
                    responses={200: base.Response("The federation.", misc.FEDERATION_DETAIL)},
                    policy=("federation:get",))
    def get_one(self, ident, **_):
        ctx = base.context()
        row = federations.get(ctx, ident)
        policy.authorize(ctx, "federation:get", row.as_dict())
        return base.respond(misc.federation_view(row, base.base_url(), True))

    @base.operation("POST", "/v1/federations", "Create a federation", TAG,
                    body=misc.FederationPost, responses={202: ACCEPTED}, errors=(404, 409),
                    policy=("federation:create",))
    def post(self, *remainder, **_):
        body = base.body()
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

    @base.operation("PATCH", "/v1/federations/{ident}", "Update a federation", TAG,
                    body=jsonpatch_schema.Patch,
                    query={"rollback": types.boolean(description="Ignored.")},
                    description="add / remove /member_ids (value: a cluster UUID), replace "
                    "/properties.", responses={202: ACCEPTED}, errors=(409,),
                    policy=("federation:update",))
    def patch(self, ident, **_):
        ops = jsonpatch_schema.check_ops(base.body(), misc.FEDERATION_INTERNAL, ())
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
        members = misc.FederationPost.validate_one("member_ids", members)
        doc = {k: getattr(row, k) for k in ("name", "hostcluster_id", "status",
                                             "status_reason", "properties")}
        doc["member_ids"] = members
        patched = jsonpatch_schema.apply(doc, generic, misc.FEDERATION_LITERAL_PATHS)
        patched = jsonpatch_schema.revalidate(misc.FederationPost, doc, patched)
        refused = [k for k in jsonpatch_schema.changed(doc, patched) if k not in _CHANGEABLE]
        if refused:
            raise exception.Invalid(
                f"cannot change federation property(ies) {', '.join(refused)}.")
        values = {"member_ids": members, "properties": patched.get("properties") or {},
                  "status": states.UPDATE_COMPLETE}
        federations.update(ctx, row.uuid, values)
        return base.respond({"uuid": row.uuid}, status=202)

    @base.operation("DELETE", "/v1/federations/{ident}", "Delete a federation", TAG,
                    responses={204: base.Response("Deleted.")},
                    policy=("federation:delete",))
    def delete(self, ident, **_):
        ctx = base.context()
        row = federations.get(ctx, ident)
        policy.authorize(ctx, "federation:delete", row.as_dict())
        federations.destroy(ctx, row.uuid)
        return base.no_content()
