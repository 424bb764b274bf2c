"""``nodegroup:*`` rules."""

from __future__ import annotations

from magnum_api.policies import base

_ALL = "/v1/clusters/{cluster_id}/nodegroups/"
_ONE = "/v1/clusters/{cluster_id}/nodegroups/{nodegroup}"


def list_rules():
    r = base.api_rule
    return [
        r("nodegroup:get", base.ADMIN_OR_PROJECT_READER,
          "Retrieve information about the given nodegroup.",
          [("GET", _ONE)]),
        r("nodegroup:get_all", base.ADMIN_OR_PROJECT_READER,
          "Retrieve a list of nodegroups that belong to a cluster.", [("GET", _ALL)]),
        r("nodegroup:get_all_all_projects", base.ADMIN,
          "Retrieve a list of nodegroups across projects.", [("GET", _ALL)],
          project_scoped=False),
        r("nodegroup:get_one_all_projects", base.ADMIN,
          "Retrieve information for a given nodegroup across projects.", [("GET", _ONE)],
          project_scoped=False),
        r("nodegroup:create", base.ADMIN_OR_PROJECT_MEMBER,
          "Create a new nodegroup.", [("POST", _ALL)]),
        r("nodegroup:delete", base.ADMIN_OR_PROJECT_MEMBER,
          "Delete a nodegroup.", [("DELETE", _ONE)]),
        r("nodegroup:update", base.ADMIN_OR_PROJECT_MEMBER,
          "Update an existing nodegroup.", [("PATCH", _ONE)]),
    ]
