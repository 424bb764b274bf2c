"""``/v1/clusters/{cluster}/nodegroups`` (1.9+): node groups of one cluster."""

from __future__ import annotations

from magnum_api import microversion, policy
from magnum_api.controllers import base
from magnum_api.schemas import nodegroup as schema
from magnum_api.schemas import patch as jsonpatch_schema
from magnum_api.schemas import types
from magnum_api.validation import nodegroup as rules
from magnum_api.validation.openstack import Services
from magnum_common import conductor_api, exception, grammar, utils
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.drivers import registry, settings

TAG = "nodegroups"
FULL = base.Response("The node group.", schema.FULL)


class NodeGroupController(base.RestController):

    @base.operation("GET", "/v1/clusters/{cluster_ident}/nodegroups", "List node groups",
                    TAG, min_version=microversion.NODEGROUPS,
                    query=base.page_params(role=types.string(description="Exact role.")),
                    responses={200: base.Response("A page of node groups.", types.collection(
                        "nodegroups", schema.SUMMARY))}, policy=("nodegroup:get_all",))
    def get_all(self, cluster_ident, **_):
        params = base.query()
        page, ctx = base.listing("nodegroup:get_all")
        cluster = clusters.get(ctx, cluster_ident)
        filters = {"role": params["role"]} if "role" in params else None
        rows = nodegroups.list_in_cluster(ctx, cluster.uuid, filters, **page.bounds)
        return base.respond(page.collection(
            "nodegroups", [schema.summary(row) for row in rows],
            f"clusters/{cluster.uuid}/nodegroups", rows[-1].uuid if rows else None,
            {"role": params["role"]} if "role" in params else None))

    @base.operation("GET", "/v1/clusters/{cluster_ident}/nodegroups/{ident}",
                    "Show a node group", TAG, min_version=microversion.NODEGROUPS,
                    responses={200: FULL}, policy=("nodegroup:get",))
    def get_one(self, cluster_ident, ident, **_):
        ctx = base.context()
        policy.authorize(ctx, "nodegroup:get")
        policy.widen_for_admin(ctx, "nodegroup:get_one_all_projects")
        cluster = clusters.get(ctx, cluster_ident)
        row = nodegroups.get_in_cluster(ctx, cluster.uuid, ident)
        return base.respond(schema.full(schema.row_values(row), cluster.labels,
                                        base.base_url()))

    @base.operation("POST", "/v1/clusters/{cluster_ident}/nodegroups", "Create a node group",
                    TAG, min_version=microversion.NODEGROUPS, body=schema.NodeGroupPost,
                    responses={202: base.accepted_response("Accepted.", schema.ACCEPTED)},
                    errors=(409, 503), policy=("nodegroup:create",))
    def post(self, cluster_ident, *remainder, **_):
        body = base.body()
        ctx = base.context()
        policy.authorize(ctx, "nodegroup:create")
        cluster = clusters.get(ctx, cluster_ident)
        if not cluster.api_address:
            raise exception.ClusterAPIAddressUnavailable()
        name = body["name"]
        existing = {ng.name for ng in clusters.nodegroups_of(None, [cluster.uuid])[cluster.uuid]}
        if name in existing:
            raise exception.NodeGroupAlreadyExists(name=name, cluster_id=cluster.name)
        node_count = body.get("node_count")
        node_count = 1 if node_count is None else node_count
        min_count = body.get("min_node_count") or 0
        max_count = body.get("max_node_count")
        rules.check_counts(name, node_count, min_count, max_count)
        node_labels = rules.normalize_node_labels(name, body.get("node_labels"))
        node_taints = rules.normalize_node_taints(name, body.get("node_taints"))
        role = body.get("role") or "worker"
        rules.check_master(name, role, node_labels, node_taints)
        if role == "master":
            raise exception.CreateMasterNodeGroup()
        template = cluster_templates.get_by_uuid(None, cluster.cluster_template_id)
        cluster_labels = cluster.labels or {}
        labels = types.stringify_labels(body.get("labels"))
        if labels is None:
            labels = dict(cluster_labels)
        elif body.get("merge_labels"):
            labels = {**cluster_labels, **labels}
        types.check_stored("labels", labels)
        values = {
            "uuid": utils.generate_uuid(), "name": name, "cluster_id": cluster.uuid,
            "project_id": ctx.project_id, "flavor_id": body.get("flavor_id")
            or cluster.flavor_id, "image_id": body.get("image_id") or template.image_id,
            "node_count": node_count, "min_node_count": min_count,
            "max_node_count": max_count, "role": role, "labels": labels,
            "node_labels": node_labels, "node_taints": node_taints,
        }
        if body.get("docker_volume_size") is not None:
            values["docker_volume_size"] = body["docker_volume_size"]
        grammar.check(grammar.NODEGROUP, values)  # labels inherited from the cluster too
        grammar.check(grammar.NODE_LABELLING, values)
        registry.get_driver_for_template(template).validate_labels(labels)
        Services(ctx).check_root_disk(values["flavor_id"],
                                      settings.boot_volume_size(cluster_labels))
        record = conductor_api.ConductorAPI().nodegroup_create(ctx, cluster.uuid, values)
        return base.accepted(schema.full(values, cluster_labels, base.base_url()), record)

    @base.operation("PATCH", "/v1/clusters/{cluster_ident}/nodegroups/{ident}",
                    "Update a node group", TAG, min_version=microversion.NODEGROUPS,
                    body=jsonpatch_schema.Patch,
                    description="Only min_node_count, max_node_count, node_labels and "
                    "node_taints may change.",
                    responses={202: base.accepted_response(FULL.description, FULL.schema)},
                    errors=(409, 503),
                    policy=("nodegroup:update",))
    def patch(self, cluster_ident, ident, **_):
        ops = jsonpatch_schema.check_ops(base.body(), schema.INTERNAL, ())
        ctx = base.context()
        policy.authorize(ctx, "nodegroup:update")
        cluster = clusters.get(ctx, cluster_ident)
        row = nodegroups.get_in_cluster(ctx, cluster.uuid, ident)
        doc = schema.row_values(row)
        doc.pop("created_at"), doc.pop("updated_at")
        doc["merge_labels"] = False
        patched = jsonpatch_schema.apply(doc, ops, schema.LITERAL_PATHS)
        patched = jsonpatch_schema.revalidate(schema.NodeGroupPost, doc, patched)
        node_labels = rules.normalize_node_labels(row.name, patched.get("node_labels"))
        node_taints = rules.normalize_node_taints(row.name, patched.get("node_taints"))
        min_count = patched.get("min_node_count") or 0
        rules.check_counts(row.name, row.node_count or 0, min_count,
                           patched.get("max_node_count"))
        rules.check_master(row.name, row.role, node_labels, node_taints)
        grammar.check(grammar.NODE_LABELLING, {"node_labels": node_labels,
                                               "node_taints": node_taints})
        Services(ctx).check_root_disk(row.flavor_id,
                                      settings.boot_volume_size(cluster.labels))
        changes = {"min_node_count": min_count,
                   "max_node_count": patched.get("max_node_count"),
                   "node_labels": node_labels, "node_taints": node_taints}
        record = conductor_api.ConductorAPI().nodegroup_update(ctx, cluster.uuid, row.uuid,
                                                               changes)
        values = {**schema.row_values(row), **changes}
        return base.accepted(schema.full(values, cluster.labels, base.base_url()), record)

    @base.operation("DELETE", "/v1/clusters/{cluster_ident}/nodegroups/{ident}",
                    "Delete a node group", TAG, min_version=microversion.NODEGROUPS,
                    responses={204: base.accepted_response(
                        "Deletion accepted in every state: it supersedes the queued "
                        "requests about the node group.")},
                    errors=(409, 503),
                    policy=("nodegroup:delete",))
    def delete(self, cluster_ident, ident, **_):
        ctx = base.context()
        policy.authorize(ctx, "nodegroup:delete")
        cluster = clusters.get(ctx, cluster_ident)
        row = nodegroups.get_in_cluster(ctx, cluster.uuid, ident)
        if row.is_default:
            raise exception.DeletingDefaultNGNotSupported()
        record = conductor_api.ConductorAPI().nodegroup_delete(ctx, cluster.uuid, row.uuid)
        return base.accepted_delete(record)
