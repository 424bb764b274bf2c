"""``federation:*`` rules."""

from __future__ import annotations

from magnum_api.policies import base

_ONE = "/v1/federations/{federation_ident}"


def list_rules():
    r = base.api_rule
    return [
        r("federation:create", base.ADMIN_OR_PROJECT_MEMBER_DENY_CLUSTER_USER,
          "Create a new federation.", [("POST", "/v1/federations")]),
        r("federation:delete", base.ADMIN_OR_PROJECT_MEMBER_DENY_CLUSTER_USER,
          "Delete a federation.", [("DELETE", _ONE)]),
        r("federation:detail", base.ADMIN_OR_PROJECT_READER_DENY_CLUSTER_USER,
          "Retrieve a list of federations with detail.", [("GET", "/v1/federations")]),
        r("federation:get", base.ADMIN_OR_PROJECT_READER_DENY_CLUSTER_USER,
          "Retrieve information about the given federation.", [("GET", _ONE)]),
        r("federation:get_all", base.ADMIN_OR_PROJECT_READER_DENY_CLUSTER_USER,
          "Retrieve a list of federations.", [("GET", "/v1/federations/")]),
        r("federation:update", base.ADMIN_OR_PROJECT_MEMBER_DENY_CLUSTER_USER,
          "Update an existing federation.", [("PATCH", _ONE)]),
    ]
