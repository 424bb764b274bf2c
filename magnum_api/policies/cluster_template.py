"""``clustertemplate:*`` rules (spelled without an underscore, as upstream)."""

from __future__ import annotations

from magnum_api.policies import base

# The documented paths keep upstream's singular spelling so generated docs match.
_ONE = "/v1/clustertemplates/{clustertemplate_ident}"
_ALL = "/v1/clustertemplates"


def list_rules():
    r = base.api_rule
    return [
        r("clustertemplate:create", base.ADMIN_OR_PROJECT_MEMBER_DENY_CLUSTER_USER,
          "Create a new cluster template.", [("POST", _ALL)]),
        r("clustertemplate:delete", base.ADMIN_OR_PROJECT_MEMBER,
          "Delete a cluster template.", [("DELETE", _ONE)]),
        r("clustertemplate:delete_all_projects", base.ADMIN,
          "Delete a cluster template from any project.", [("DELETE", _ONE)],
          project_scoped=False),
        r("clustertemplate:detail", base.ADMIN_OR_PROJECT_READER_DENY_CLUSTER_USER,
          "Retrieve a list of cluster templates with detail.", [("GET", _ALL)]),
        r("clustertemplate:detail_all_projects", base.ADMIN,
          "Retrieve a list of cluster templates with detail across projects.",
          [("GET", _ALL)], project_scoped=False),
        r("clustertemplate:get", base.ADMIN_OR_PROJECT_READER_DENY_CLUSTER_USER,
          "Retrieve information about the given cluster template.", [("GET", _ONE)]),
        r("clustertemplate:get_one_all_projects", base.ADMIN,
          "Retrieve information about the given cluster template across project.",
          [("GET", _ONE)], project_scoped=False),
        r("clustertemplate:get_all", base.ADMIN_OR_PROJECT_READER_DENY_CLUSTER_USER,
          "Retrieve a list of cluster templates.", [("GET", _ALL)]),
        r("clustertemplate:get_all_all_projects", base.ADMIN,
          "Retrieve a list of cluster templates across projects.", [("GET", _ALL)],
          project_scoped=False),
        r("clustertemplate:update", base.ADMIN_OR_PROJECT_MEMBER,
          "Update an existing cluster template.", [("PATCH", _ONE)]),
        r("clustertemplate:update_all_projects", base.ADMIN,
          "Update an existing cluster template in any project.", [("PATCH", _ONE)],
          project_scoped=False),
        r("clustertemplate:publish", base.ADMIN,
          "Publish an existing cluster template (set public or hidden).",
          [("POST", _ALL), ("PATCH", _ONE)], project_scoped=False),
    ]
