"""``/v1/clusters/{cluster}/operations``: the cluster's operation records, newest first.

An extension of this implementation (no upstream client needs it): every request the API
accepted on the cluster, with who asked, when it ran and how it ended.
"""

from __future__ import annotations

from magnum_api import policy
from magnum_api.controllers import base
from magnum_api.schemas import cluster_operation as schema
from magnum_api.schemas import types
from magnum_common.db.clusters import clusters
from magnum_common.db.operations import operations

TAG = "operations"


def _cluster(ctx, cluster_ident: str, rule: str):
    policy.authorize(ctx, rule)
    if ctx.is_admin:
        policy.authorize(ctx, "cluster:get_one_all_projects")
        ctx.all_tenants = True
    cluster = clusters.get(ctx, cluster_ident)
    policy.authorize(ctx, rule, cluster.as_dict())
    return cluster


class OperationsController(base.RestController):

    @base.operation("GET", "/v1/clusters/{cluster_ident}/operations",
                    "List a cluster's operations", TAG, query=base.page_params(),
                    description="An extension: newest first unless sort_dir says otherwise.",
                    responses={200: base.Response("A page of operation records.",
                                                  types.collection("operations", schema.VIEW))},
                    policy=("cluster:operations:get_all",))
    def get_all(self, cluster_ident, **_):
        params = base.query()
        page = base.Page(params)
        page.sort_dir = params.get("sort_dir", "desc")
        ctx = base.context()
        cluster = _cluster(ctx, cluster_ident, "cluster:operations:get_all")
        rows = operations.list_in_cluster(None, cluster.uuid, **page.bounds)
        url = base.base_url()
        return base.respond(page.collection(
            "operations", [schema.view(row, url) for row in rows],
            f"clusters/{cluster.uuid}/operations", rows[-1].uuid if rows else None))

    @base.operation("GET", "/v1/clusters/{cluster_ident}/operations/{ident}",
                    "Show one of a cluster's operations", TAG,
                    description="An extension.",
                    responses={200: base.Response("The operation record.", schema.VIEW)},
                    policy=("cluster:operations:get",))
    def get_one(self, cluster_ident, ident, **_):
        ctx = base.context()
        cluster = _cluster(ctx, cluster_ident, "cluster:operations:get")
        row = operations.get_in_cluster(None, cluster.uuid, ident)
        return base.respond(schema.view(row, base.base_url()))
