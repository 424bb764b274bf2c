"""``certificate:*`` and ``credential:*`` rules."""

from __future__ import annotations

from magnum_api.policies import base


def list_rules():
    r = base.api_rule
    return [
        r("certificate:create", base.ADMIN_OR_PROJECT_MEMBER_USER,
          "Sign a new certificate by the CA.", [("POST", "/v1/certificates")]),
        r("certificate:get", base.ADMIN_OR_PROJECT_READER_USER,
          "Retrieve CA information about the given cluster.",
          [("GET", "/v1/certificates/{cluster_uuid}")]),
        r("certificate:rotate_ca", base.ADMIN_OR_PROJECT_MEMBER,
          "Rotate the CA certificate on the given cluster.",
          [("PATCH", "/v1/certificates/{cluster_uuid}")]),
        r("credential:rotate", base.PROJECT_MEMBER_DENY_CLUSTER_USER,
          "Rotate the credential of the given cluster.",
          [("PATCH", "/v1/credentials/{cluster_uuid}")]),
    ]
