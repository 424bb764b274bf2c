"""``cluster:*`` rules."""

from __future__ import annotations

from magnum_api.policies import base

_ONE = "/v1/clusters/{cluster_ident}"


def list_rules():
    r = base.api_rule
    return [
        r("cluster:create", base.ADMIN_OR_PROJECT_MEMBER_DENY_CLUSTER_USER,
          "Create a new cluster.", [("POST", "/v1/clusters")]),
        r("cluster:delete", base.ADMIN_OR_PROJECT_MEMBER_DENY_CLUSTER_USER,
          "Delete a cluster.", [("DELETE", _ONE)]),
        r("cluster:delete_all_projects", base.ADMIN,
          "Delete a cluster from any project.", [("DELETE", _ONE)], project_scoped=False),
        r("cluster:detail", base.ADMIN_OR_PROJECT_READER_DENY_CLUSTER_USER,
          "Retrieve a list of clusters with detail.", [("GET", "/v1/clusters")]),
        r("cluster:detail_all_projects", base.ADMIN,
          "Retrieve a list of clusters with detail across projects.",
          [("GET", "/v1/clusters")], project_scoped=False),
        r("cluster:get", base.ADMIN_OR_PROJECT_READER_DENY_CLUSTER_USER,
          "Retrieve information about the given cluster.", [("GET", _ONE)]),
        r("cluster:get_one_all_projects", base.ADMIN,
          "Retrieve information about the given cluster across projects.",
          [("GET", _ONE)], project_scoped=False),
        r("cluster:get_all", base.ADMIN_OR_PROJECT_READER_DENY_CLUSTER_USER,
          "Retrieve a list of clusters.", [("GET", "/v1/clusters/")]),
        r("cluster:get_all_all_projects", base.ADMIN,
          "Retrieve a list of all clusters across projects.",
          [("GET", "/v1/clusters/")], project_scoped=False),
        r("cluster:operations:get_all", base.ADMIN_OR_PROJECT_READER,
          "List the operation records of a cluster (an extension).",
          [("GET", _ONE + "/operations")]),
        r("cluster:operations:get", base.ADMIN_OR_PROJECT_READER,
          "Show one operation record of a cluster (an extension).",
          [("GET", _ONE + "/operations/{operation_id}")]),
        r("cluster:update", base.ADMIN_OR_PROJECT_MEMBER_DENY_CLUSTER_USER,
          "Update an existing cluster.", [("PATCH", _ONE)]),
        r("cluster:update_health_status",
          base.ADMIN_OR_PROJECT_MEMBER_USER_OR_CLUSTER_USER,
          "Update the health status of an existing cluster.", [("PATCH", _ONE)]),
        r("cluster:update_all_projects", base.ADMIN,
          "Update an existing cluster in any project.", [("PATCH", _ONE)],
          project_scoped=False),
        r("cluster:resize", base.ADMIN_OR_PROJECT_MEMBER_DENY_CLUSTER_USER,
          "Resize an existing cluster.", [("POST", _ONE + "/actions/resize")]),
        r("cluster:upgrade", base.ADMIN_OR_PROJECT_MEMBER_DENY_CLUSTER_USER,
          "Upgrade an existing cluster.", [("POST", _ONE + "/actions/upgrade")]),
        r("cluster:upgrade_all_projects", base.ADMIN,
          "Upgrade an existing cluster across all projects.",
          [("POST", _ONE + "/actions/upgrade")], project_scoped=False),
    ]
