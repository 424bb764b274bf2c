"""``magnum-service:*``, ``quota:*`` and ``stats:*`` rules."""

from __future__ import annotations

from magnum_api.policies import base

_QUOTA = "/v1/quotas/{project_id}/{resource}"


def list_rules():
    r = base.api_rule
    return [
        r("magnum-service:get_all", base.ADMIN,
          "Retrieve a list of magnum-services.", [("GET", "/v1/mservices")],
          project_scoped=False),
        r("quota:create", base.ADMIN, "Create quota.", [("POST", "/v1/quotas")],
          project_scoped=False),
        r("quota:delete", base.ADMIN, "Delete quota for a given project_id and resource.",
          [("DELETE", _QUOTA)], project_scoped=False),
        r("quota:get", base.ADMIN_OR_PROJECT_READER,
          "Retrieve Quota information for the given project_id.", [("GET", _QUOTA)]),
        r("quota:get_all", base.ADMIN, "Retrieve a list of quotas.", [("GET", "/v1/quotas")],
          project_scoped=False),
        r("quota:update", base.ADMIN, "Update quota for a given project_id.",
          [("PATCH", _QUOTA)], project_scoped=False),
        r("stats:get_all", base.ADMIN_OR_PROJECT_READER,
          "Retrieve magnum stats.", [("GET", "/v1/stats")]),
    ]
