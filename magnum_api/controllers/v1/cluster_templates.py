"""``/v1/clustertemplates``: create, list, show, JSON-patch and delete cluster templates."""

from __future__ import annotations

from typing import Any

from magnum_api import policy
from magnum_api.controllers import base
from magnum_api.schemas import cluster_template as schema
from magnum_api.schemas import patch as jsonpatch_schema
from magnum_api.schemas import types
from magnum_api.validation import template as rules
from magnum_api.validation.openstack import Services
from magnum_common import exception, utils
from magnum_common.db import api as db_api
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_common.drivers import registry

TAG = "clustertemplates"
LIST = base.Response("A page of templates.",
                     types.collection("clustertemplates", schema.VIEW))
ONE = base.Response("The template.", schema.VIEW)


def check_visible(ctx, row, ident: str) -> None:
    """Other projects' hidden templates are 404 to non-admins."""
    if row.hidden and not ctx.is_admin and row.project_id != ctx.project_id:
        raise exception.ClusterTemplateNotFound(clustertemplate=ident)


def lookup_visible(ctx, ident: str):
    """A template as the caller may see it (the ORM object, for the write paths)."""
    row = cluster_templates.get(ctx, ident)
    check_visible(ctx, row, ident)
    return row


class ClusterTemplatesController(base.RestController):
    _custom_actions = {"detail": ["GET"]}

    def _collection(self, rule: str, path: str) -> Any:
        page, ctx = base.listing(rule)
        with db_api.reading() as conn:
            rows = cluster_templates.rows(conn, ctx, **page.bounds)
        url = base.base_url()
        items = schema.views(rows, url)
        return base.respond(page.collection("clustertemplates", items, path,
                                            rows[-1].uuid if rows else None))

    @base.operation("GET", "/v1/clustertemplates", "List cluster templates", TAG,
                    query=base.page_params(), responses={200: LIST},
                    policy=("clustertemplate:get_all",))
    def get_all(self, **_):
        return self._collection("clustertemplate:get_all", "clustertemplates")

    @base.operation("GET", "/v1/clustertemplates/detail", "List cluster templates (Horizon)",
                    TAG, query=base.page_params(), responses={200: LIST},
                    policy=("clustertemplate:detail",))
    def detail(self, *remainder, **_):
        if remainder:
            raise exception.ClusterTemplateNotFound(clustertemplate="detail")
        return self._collection("clustertemplate:detail", "clustertemplates/detail")

    @base.operation("GET", "/v1/clustertemplates/{ident}", "Show a cluster template", TAG,
                    responses={200: ONE}, policy=("clustertemplate:get",))
    def get_one(self, ident, **_):
        ctx = base.context()
        policy.widen_for_admin(ctx, "clustertemplate:get_one_all_projects")
        with db_api.reading() as conn:
            row = cluster_templates.row(conn, ctx, ident)
        check_visible(ctx, row, ident)
        values = db_api.as_dict(row)
        if not row.public:
            policy.authorize(ctx, "clustertemplate:get", values)
        return base.respond(schema.view(values, base.base_url()))

    @base.operation("POST", "/v1/clustertemplates", "Create a cluster template", TAG,
                    body=schema.ClusterTemplatePost, errors=(409,),
                    responses={201: base.Response("The template.", schema.VIEW,
                                                  ("Location",))},
                    policy=("clustertemplate:create", "clustertemplate:publish"))
    def post(self, *remainder, **_):
        body = base.body()
        ctx = base.context()
        values = {k: v for k, v in body.items() if v is not None}
        values["labels"] = types.stringify_labels(values.get("labels")) or {}
        coe = values["coe"]
        rules.check_server_type(values.get("server_type"))
        values.setdefault("network_driver", rules.default_network_driver(coe))
        rules.check_network_driver(coe, values.get("network_driver"))
        rules.check_volume_driver(coe, values.get("volume_driver"))
        rules.check_docker_volume(values.get("docker_storage_driver"),
                                  values.get("docker_volume_size"))
        services = Services(ctx)
        server_type = values.setdefault("server_type", "vm")
        os_distro, image_driver = services.os_distro(values["image_id"])
        if os_distro is not None:
            values["cluster_distro"] = os_distro
        driver, driver_name = registry.resolve_driver(
            server_type, values.get("cluster_distro"), coe,
            values.get("driver") or image_driver)
        values["driver"] = driver_name
        policy.authorize(ctx, "clustertemplate:create")
        labels = values["labels"]
        driver.validate_labels(labels)
        rules.check_resources(services, values, labels)
        for flag, default in schema.BOOLEAN_DEFAULTS.items():
            values.setdefault(flag, default)
        if values["public"] or values["hidden"]:
            policy.authorize(ctx, "clustertemplate:publish",
                             exc=exception.ClusterTemplatePublishDenied)
        values.setdefault("name", utils.generate_name("template"))
        values["project_id"] = ctx.project_id
        values["user_id"] = ctx.user_id
        row = cluster_templates.create(ctx, values)
        url = base.base_url()
        return base.respond(schema.view(row.as_dict(), url), status=201,
                            headers={"Location": f"{url}/v1/clustertemplates/{row.uuid}"})

    @base.operation("PATCH", "/v1/clustertemplates/{ident}", "Update a cluster template",
                    TAG, body=jsonpatch_schema.Patch, responses={200: ONE},
                    policy=("clustertemplate:update", "clustertemplate:publish"))
    def patch(self, ident, **_):
        ops = jsonpatch_schema.check_ops(base.body(), schema.INTERNAL, schema.NON_REMOVABLE)
        ctx = base.context()
        policy.widen_for_admin(ctx, "clustertemplate:update_all_projects")
        row = lookup_visible(ctx, ident)
        policy.authorize(ctx, "clustertemplate:update", row.as_dict())
        doc = schema.patch_document(row)
        patched = jsonpatch_schema.apply(doc, ops, schema.LITERAL_PATHS)
        patched = jsonpatch_schema.revalidate(schema.ClusterTemplatePost, doc, patched)
        patched["labels"] = types.stringify_labels(patched.get("labels")) or {}
        changed = {k: patched[k] for k in schema.FIELDS if patched.get(k) != doc.get(k)}
        for key in ("uuid", "project_id", "user_id"):
            changed.pop(key, None)
        if "labels" in changed:
            registry.get_driver_for_template(row).validate_labels(patched["labels"])
        coe = patched["coe"]
        rules.check_network_driver(coe, patched.get("network_driver"))
        rules.check_volume_driver(coe, patched.get("volume_driver"))
        rules.check_docker_volume(patched.get("docker_storage_driver"),
                                  patched.get("docker_volume_size"))
        if "public" in changed or "hidden" in changed:
            policy.authorize(ctx, "clustertemplate:publish",
                             exc=exception.ClusterTemplatePublishDenied)
        if changed and clusters.count_template_users(None, row.uuid):
            self._check_in_use(row, changed)
        services = Services(ctx)
        rules.check_resources(services, patched, row.labels)
        if changed:
            row = cluster_templates.update(ctx, row.uuid, changed)
        return base.respond(schema.view(row.as_dict(), base.base_url()))

    @staticmethod
    def _check_in_use(row, changed: dict[str, Any]) -> None:
        """A template used by clusters may only be renamed, published, hidden or tagged."""
        keys = set(changed)
        allowed = (keys == {"name"}
                   or (keys == {"public"} and changed["public"] is True)
                   or keys == {"hidden"}
                   or (keys == {"tags"} and changed["tags"] is not None))
        if not allowed:
            raise exception.ClusterTemplateReferenced(clustertemplate=row.uuid)

    @base.operation("DELETE", "/v1/clustertemplates/{ident}", "Delete a cluster template",
                    TAG, responses={204: base.Response("Deleted.")},
                    policy=("clustertemplate:delete",))
    def delete(self, ident, **_):
        ctx = base.context()
        policy.widen_for_admin(ctx, "clustertemplate:delete_all_projects")
        row = lookup_visible(ctx, ident)
        policy.authorize(ctx, "clustertemplate:delete", row.as_dict())
        if clusters.count_template_users(None, row.uuid):
            raise exception.ClusterTemplateReferenced(clustertemplate=row.uuid)
        cluster_templates.destroy(ctx, row.uuid)
        return base.no_content()
