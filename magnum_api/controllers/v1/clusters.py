"""``/v1/clusters``: create, list, show, patch, delete, and the resize / upgrade actions."""

from __future__ import annotations

import copy
from typing import Any

from magnum_api import microversion, policy
from magnum_api.controllers import base
from magnum_api.controllers.v1 import cluster_operations
from magnum_api.controllers.v1 import nodegroups as nodegroups_controller
from magnum_api.controllers.v1.cluster_templates import lookup_visible
from magnum_api.schemas import cluster as schema
from magnum_api.schemas import patch as jsonpatch_schema
from magnum_api.schemas import types
from magnum_api.validation import quota
from magnum_api.validation import template as rules
from magnum_api.validation.openstack import Services
from magnum_common import conductor_api, exception, grammar, states, trust_roles, utils
from magnum_common.db import api as db_api
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.drivers import registry, settings
from magnum_common.drivers.view import TemplateRow

TAG = "clusters"
ACCEPTED = base.accepted_response("Accepted: the cluster's UUID (the operation record's in "
                                  f"the {base.OPERATION_HEADER} header).", types.UUID_BODY)


def driver_of(template) -> Any:
    return registry.get_driver_for_template(template)


def check_driver_supports(template, method: str, refusal: str) -> None:
    """Refuse, before anything is recorded, what the template's driver cannot do."""
    if not driver_of(template).supports(method):
        raise exception.NotSupported(refusal)


class ActionsController(base.RestController):
    """``POST /v1/clusters/{ident}/actions/{resize,upgrade}``."""

    _custom_actions = {"resize": ["POST"], "upgrade": ["POST"]}

    @base.operation("POST", "/v1/clusters/{cluster_ident}/actions/resize",
                    "Resize a node group", TAG, body=schema.ResizeRequest,
                    min_version=microversion.RESIZE, responses={202: ACCEPTED},
                    errors=(409, 503), policy=("cluster:resize",))
    def resize(self, cluster_ident, *remainder, **_):
        body = base.body()
        ctx = base.context()
        cluster = clusters.get(ctx, cluster_ident)
        policy.authorize(ctx, "cluster:resize", cluster.as_dict())
        node_count = body["node_count"]
        if node_count == 0 and base.version() < microversion.ZERO_NODES:
            raise exception.ZeroNodeCountNotSupported()
        if body.get("nodegroup"):
            ng = nodegroups.get_in_cluster(ctx, cluster.uuid, body["nodegroup"])
        else:
            ng = settings.default_worker(clusters.nodegroups_of(None, [cluster.uuid])[cluster.uuid])
        if ng.role == "master":
            template = cluster_templates.get_by_uuid(None, cluster.cluster_template_id)
            driver_of(template).validate_master_resize(node_count)
        elif node_count < (ng.min_node_count or 0) or (
                ng.max_node_count is not None and node_count > ng.max_node_count):
            raise exception.NGResizeOutBounds(nodegroup=ng.name, min_nc=ng.min_node_count,
                                              max_nc=ng.max_node_count)
        record = conductor_api.ConductorAPI().cluster_resize(
            ctx, cluster.uuid, node_count, ng.uuid, body.get("nodes_to_remove") or [])
        return base.accepted({"uuid": cluster.uuid}, record)

    @base.operation("POST", "/v1/clusters/{cluster_ident}/actions/upgrade",
                    "Upgrade a node group to a cluster template", TAG,
                    body=schema.UpgradeRequest, min_version=microversion.RESIZE,
                    description="Microversion 1.7 answers 400 (upgrade needs 1.8).",
                    responses={202: ACCEPTED}, errors=(409, 503),
                    policy=("cluster:upgrade",))
    def upgrade(self, cluster_ident, *remainder, **_):
        if base.version() < microversion.UPGRADE:
            raise exception.ClusterUpgradeNotSupported()
        body = base.body()
        ctx = base.context()
        policy.widen_for_admin(ctx, "cluster:upgrade_all_projects")
        cluster = clusters.get(ctx, cluster_ident)
        policy.authorize(ctx, "cluster:upgrade", cluster.as_dict())
        new_template = lookup_visible(ctx, body["cluster_template"])
        ngs = clusters.nodegroups_of(None, [cluster.uuid])[cluster.uuid]
        if body.get("nodegroup"):
            ng = nodegroups.get_in_cluster(ctx, cluster.uuid, body["nodegroup"])
        else:
            ng = settings.default_worker(ngs)
        if not ng.is_default and new_template.uuid != cluster.cluster_template_id:
            current = cluster_templates.get_by_uuid(None, cluster.cluster_template_id)
            raise exception.InvalidClusterTemplateForUpgrade(
                reason=f"Nodegroup {ng.name} can be upgraded only to match cluster's template "
                f"({current.name}).")
        record = conductor_api.ConductorAPI().cluster_upgrade(
            ctx, cluster.uuid, new_template.uuid, body.get("max_batch_size") or 1, ng.uuid)
        return base.accepted({"uuid": cluster.uuid}, record)


class ClustersController(base.RestController):
    _custom_actions = {"detail": ["GET"]}

    actions = ActionsController()
    nodegroups = nodegroups_controller.NodeGroupController()
    operations = cluster_operations.OperationsController()

    # --- reads ---------------------------------------------------------------------------
    def _collection(self, rule: str, path: str, detailed: bool):
        page, ctx = base.listing(rule)
        with db_api.reading() as conn:
            rows = clusters.rows(conn, ctx, detail=detailed, **page.bounds)
            groups = clusters.nodegroup_rows(conn, [row.uuid for row in rows])
        url, version = base.base_url(), base.version()
        items = []
        for row, values in zip(rows, db_api.as_dicts(rows), strict=True):
            if detailed:
                labels = values.pop("template_labels")
                items.append(schema.detail(values, groups.get(row.uuid, []), labels, url,
                                           version))
            else:
                items.append(schema.summary(values, groups.get(row.uuid, []), url, version))
        return base.respond(page.collection("clusters", items, path,
                                            rows[-1].uuid if rows else None))

    @base.operation("GET", "/v1/clusters", "List clusters", TAG, query=base.page_params(),
                    responses={200: base.Response("A page of clusters.", types.collection(
                        "clusters", schema.SUMMARY))}, policy=("cluster:get_all",))
    def get_all(self, **_):
        return self._collection("cluster:get_all", "clusters", detailed=False)

    @base.operation("GET", "/v1/clusters/detail", "List clusters with their details", TAG,
                    query=base.page_params(),
                    responses={200: base.Response("A page of clusters.", types.collection(
                        "clusters", schema.DETAIL))}, policy=("cluster:detail",))
    def detail(self, *remainder, **_):
        if remainder:
            raise exception.ClusterNotFound(cluster="detail")
        return self._collection("cluster:detail", "clusters/detail", detailed=True)

    @base.operation("GET", "/v1/clusters/{ident}", "Show a cluster", TAG,
                    responses={200: base.Response("The cluster.", schema.SHOW)},
                    policy=("cluster:get",))
    def get_one(self, ident, **_):
        ctx = base.context()
        policy.widen_for_admin(ctx, "cluster:get_one_all_projects")
        with db_api.reading() as conn:
            values = db_api.as_dict(clusters.row(conn, ctx, ident))
            template_labels = values.pop("template_labels")
            policy.authorize(ctx, "cluster:get", values)
            groups = clusters.nodegroup_rows(conn, [values["uuid"]])
        return base.respond(schema.detail(values, groups.get(values["uuid"], []),
                                          template_labels, base.base_url(), base.version(),
                                          show=True))

    # --- create --------------------------------------------------------------------------
    @base.operation("POST", "/v1/clusters", "Create a cluster", TAG, body=schema.ClusterPost,
                    responses={202: ACCEPTED}, errors=(404, 409, 503),
                    policy=("cluster:create",))
    def post(self, *remainder, **_):
        body = base.body()
        ctx = base.context()
        version = base.version()
        values = {k: v for k, v in body.items() if v is not None}
        template = self._template(ctx, values["cluster_template_id"], version)
        driver = driver_of(template)
        master_count = values.get("master_count", 1)
        node_count = values.get("node_count", 1)
        rules.check_docker_volume(template.docker_storage_driver,
                                  values.get("docker_volume_size")
                                  or template.docker_volume_size)
        driver.validate_master_size(master_count)
        if node_count == 0 and version < microversion.ZERO_NODES:
            raise exception.ZeroNodeCountNotSupported()
        policy.authorize(ctx, "cluster:create")
        quota.check_cluster_quota(ctx)
        if template.hidden and not ctx.is_admin:
            raise exception.NotAuthorized()
        cluster = self._inherit(values, template)
        types.check_stored("labels", cluster["labels"])
        grammar.check(grammar.CLUSTER, cluster)  # what the template gave too
        driver.validate_labels(cluster["labels"])
        rules.check_trusted_volume_driver(template.volume_driver)
        trust_roles.check(ctx.roles, driver.trust_features(cluster["labels"],
                                                           TemplateRow.of(template)))
        services = Services(ctx)
        size = settings.boot_volume_size(cluster["labels"])
        for key in ("flavor_id", "master_flavor_id"):
            services.check_root_disk(cluster.get(key), size)
        effective = {
            "image_id": template.image_id, "flavor_id": cluster.get("flavor_id"),
            "master_flavor_id": cluster.get("master_flavor_id"),
            "external_network_id": template.external_network_id,
            "fixed_network": cluster.get("fixed_network"),
            "fixed_subnet": cluster.get("fixed_subnet"),
        }
        rules.check_resources(services, effective, None, root_disk=False)
        if cluster.get("keypair"):
            services.keypair(cluster["keypair"])
        if master_count > 1 and not cluster["master_lb_enabled"]:
            raise exception.InvalidParameterValue(
                err="master_count must be 1 when master_lb_enabled is False")
        cluster.update(
            uuid=utils.generate_uuid(), name=values.get("name") or utils.generate_name(),
            project_id=ctx.project_id, user_id=ctx.user_id,
            status=states.CREATE_IN_PROGRESS, coe_version=None, container_version=None,
            create_timeout=values.get("create_timeout", 60),
            discovery_url=values.get("discovery_url"))
        record = conductor_api.ConductorAPI().submit_create(ctx, cluster, template.image_id,
                                                            master_count, node_count)
        return base.accepted({"uuid": cluster["uuid"]}, record)

    @staticmethod
    def _template(ctx, ident: str, version: microversion.Version):
        try:
            return lookup_visible(ctx, ident)
        except exception.ClusterTemplateNotFound as err:
            if version < microversion.ZERO_NODES:
                raise exception.ClusterTemplateNotFound(clustertemplate=ident, code=400) \
                    from err
            raise

    @staticmethod
    def _inherit(values: dict[str, Any], template) -> dict[str, Any]:
        """Cluster attributes: the body's, completed from the template."""
        labels = types.stringify_labels(values.get("labels"))
        template_labels_ = copy.deepcopy(template.labels or {})
        if not labels:
            labels = template_labels_
        elif values.get("merge_labels"):
            labels = {**template_labels_, **labels}
        cluster = {
            "cluster_template_id": template.uuid,
            "keypair": values.get("keypair") or template.keypair_id,
            "labels": labels,
            "floating_ip_enabled": values.get("floating_ip_enabled",
                                              template.floating_ip_enabled),
            "master_lb_enabled": values.get("master_lb_enabled", template.master_lb_enabled),
        }
        for key in ("docker_volume_size", "master_flavor_id", "flavor_id", "fixed_network",
                    "fixed_subnet"):
            cluster[key] = values.get(key) or getattr(template, key)
        return cluster

    # --- update / delete -----------------------------------------------------------------
    @base.operation("PATCH", "/v1/clusters/{ident}", "Update a cluster", TAG,
                    body=jsonpatch_schema.Patch,
                    query={"rollback": types.boolean(min_version=str(microversion.ROLLBACK),
                                                     description="Default false.")},
                    description="Only node_count, health_status and health_status_reason "
                    "may change.", responses={202: ACCEPTED}, errors=(409, 503),
                    policy=("cluster:update", "cluster:update_health_status"))
    def patch(self, ident, **_):
        version = base.version()
        rollback = bool(base.query().get("rollback"))
        ops = jsonpatch_schema.check_ops(base.body(), schema.INTERNAL, schema.NON_REMOVABLE)
        ctx = base.context()
        policy.widen_for_admin(ctx, "cluster:update_all_projects")
        row = clusters.get(ctx, ident)
        policy.authorize(ctx, "cluster:update", row.as_dict())
        policy.authorize(ctx, "cluster:update_health_status")
        ngs = clusters.nodegroups_of(None, [row.uuid])[row.uuid]
        doc = schema.patch_document(row, ngs)
        patched = jsonpatch_schema.apply(doc, ops, schema.LITERAL_PATHS)
        patched = jsonpatch_schema.revalidate(schema.ClusterPost, doc, patched)
        if patched.get("labels") is not None:
            patched["labels"] = types.stringify_labels(patched["labels"])
        refused = [k for k in jsonpatch_schema.changed(doc, patched)
                   if k != "merge_labels" and k not in schema.PATCHABLE]
        if refused:
            raise exception.InvalidParameterValue(
                err=f"cannot change cluster property(ies) {', '.join(refused)}.")
        patched = jsonpatch_schema.revalidate(schema.ClusterPatch, doc, patched)
        node_count = patched["node_count"]
        if node_count is None:
            node_count = doc["node_count"]
        if node_count == 0 and version < microversion.ZERO_NODES:
            raise exception.ZeroNodeCountNotSupported()
        services = Services(ctx)
        size = settings.boot_volume_size(row.labels)
        for key in ("flavor_id", "master_flavor_id"):
            services.check_root_disk(getattr(row, key), size)
        record = conductor_api.ConductorAPI().cluster_update(
            ctx, row.uuid, node_count, patched.get("health_status"),
            patched.get("health_status_reason"), rollback)
        return base.accepted({"uuid": row.uuid}, record)

    @base.operation("DELETE", "/v1/clusters/{ident}", "Delete a cluster", TAG,
                    responses={204: base.accepted_response(
                        "Deletion accepted in every state: it supersedes the cluster's "
                        "open operations (a second DELETE names the open one).")},
                    errors=(409, 503), policy=("cluster:delete",))
    def delete(self, ident, **_):
        ctx = base.context()
        policy.widen_for_admin(ctx, "cluster:delete_all_projects")
        row = clusters.get(ctx, ident)
        policy.authorize(ctx, "cluster:delete", row.as_dict())
        record = conductor_api.ConductorAPI().cluster_delete(ctx, row.uuid)
        return base.accepted_delete(record)
