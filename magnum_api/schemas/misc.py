"""Certificates, quotas, federations, services and stats: bodies and views."""

from __future__ import annotations

from typing import Any

from magnum_api.schemas import base, fields, patch, types
from magnum_common import states

_STRING = fields.String(None, 0)
_INTEGER = fields.Integer(None, None, strings=False)
#: A PEM certificate signing request (an RSA-4096 one with extensions is under 4 KiB).
MAX_CSR = 32768


class CertificatePost(base.Body):
    argname = "certificate"
    description = "A certificate signing request for a cluster's CA."
    cluster_uuid = types.string(mandatory=True, description="Cluster UUID or name.")
    csr = fields.String(MAX_CSR, mandatory=True, description="PEM.")
    ca_cert_type = types.string(description="kubernetes (default), etcd or front_proxy.")
    pem = types.readonly()
    links = types.readonly()
    created_at = types.readonly()
    updated_at = types.readonly()


VERSIONS_VIEW = types.view({
    "name": _STRING, "description": _STRING,
    "versions": fields.List(types.view({
        "id": _STRING, "status": _STRING, "min_version": _STRING, "max_version": _STRING,
        "links": types.LINKS}), None, nullable=False)}, description="API versions.")
V1_VIEW = fields.Object({"id": _STRING, "media_types": fields.Any_(), "links": types.LINKS},
                        required=("id", "media_types", "links"), additional=True,
                        nullable=False, description="Version 1: a link pair per resource.")
CA_VIEW = types.view({"cluster_uuid": _STRING, "pem": _STRING, "links": types.LINKS},
                     description="A cluster's CA certificate.")
SIGNED_VIEW = types.view({"cluster_uuid": _STRING, "csr": _STRING, "pem": _STRING,
                          "ca_cert_type": _STRING, "links": types.LINKS}, ("ca_cert_type",),
                         "The signed certificate.")


def certificate_view(cluster_uuid: str, pem: str, base_url: str,
                     extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"cluster_uuid": cluster_uuid, "pem": pem, **(extra or {}),
            "links": types.links(base_url, "certificates", cluster_uuid)}


class QuotaPost(base.Body):
    argname = "quota"
    description = "A project's limit of one resource."
    project_id = types.string(mandatory=True)
    resource = fields.Enum(states.QUOTA_RESOURCES)
    hard_limit = fields.Integer(0)
    id = types.readonly()
    created_at = types.readonly()
    updated_at = types.readonly()


QUOTA_VIEW = types.view({"id": _INTEGER, "project_id": _STRING, "resource": _STRING,
                         "hard_limit": _INTEGER, "created_at": types.TIMESTAMP,
                         "updated_at": types.TIMESTAMP},
                        ("id", "created_at", "updated_at"),
                        "A quota (without id or timestamps when it is the default).")
QUOTAS_VIEW = types.collection("quotas", QUOTA_VIEW)


def quota_view(row: Any) -> dict[str, Any]:
    return {"id": row.id, "project_id": row.project_id, "resource": row.resource,
            "hard_limit": row.hard_limit, "created_at": types.isotime(row.created_at),
            "updated_at": types.isotime(row.updated_at)}


SERVICE_VIEW = types.view({
    "id": _INTEGER, "host": _STRING, "binary": _STRING,
    "state": fields.Enum((states.SERVICE_UP, states.SERVICE_DOWN), nullable=False),
    "disabled": fields.JsonBoolean(nullable=False), "disabled_reason": _STRING,
    "report_count": _INTEGER, "created_at": types.TIMESTAMP, "updated_at": types.TIMESTAMP,
}, description="A conductor.")
SERVICES_VIEW = types.view({"mservices": fields.List(SERVICE_VIEW, None, nullable=False)})
STATS_VIEW = types.view({"clusters": fields.Integer(0, None, nullable=False),
                         "nodes": fields.Integer(0, None, nullable=False)})


def service_view(row: Any, up: bool) -> dict[str, Any]:
    return {"id": row.id, "host": row.host, "binary": row.binary,
            "state": states.SERVICE_UP if up else states.SERVICE_DOWN,
            "disabled": bool(row.disabled), "disabled_reason": row.disabled_reason,
            "report_count": row.report_count, "created_at": types.isotime(row.created_at),
            "updated_at": types.isotime(row.updated_at)}


class FederationPost(base.Body):
    argname = "federation"
    description = "A federation of clusters (no driver acts on it)."
    uuid = types.readonly(types.uuid())
    name = types.name()
    hostcluster_id = types.string(description="Cluster UUID or name.")
    member_ids = fields.List(types.string(nullable=False), 100)
    properties = types.string_map(64, description="Must hold dns-zone.")
    status = types.readonly()
    status_reason = types.readonly()
    project_id = types.readonly()
    created_at = types.readonly()
    updated_at = types.readonly()
    links = types.readonly()


FEDERATION_INTERNAL = patch.COMMON_INTERNAL + ("/status", "/status_reason")
FEDERATION_LITERAL_PATHS = ("/properties",)
FEDERATION_SUMMARY = ("uuid", "name", "hostcluster_id", "member_ids", "status", "properties")
_FEDERATION = {"uuid": fields.Uuid(nullable=False), "name": _STRING,
               "hostcluster_id": _STRING, "member_ids": types.STRING_LIST,
               "status": _STRING, "properties": fields.Dict(_STRING, _STRING, None),
               "status_reason": _STRING, "created_at": types.TIMESTAMP,
               "updated_at": types.TIMESTAMP, "links": types.LINKS}
FEDERATION_DETAIL = types.view(_FEDERATION, description="A federation.")
FEDERATION_SUMMARY_VIEW = types.view(
    {k: v for k, v in _FEDERATION.items()
     if k not in ("status_reason", "created_at", "updated_at")},
    description="A federation (list view).")


def federation_view(row: Any, base_url: str, detail: bool) -> dict[str, Any]:
    body = {field: getattr(row, field) for field in FEDERATION_SUMMARY}
    body["member_ids"] = row.member_ids or []
    body["properties"] = row.properties or {}
    if detail:
        body["status_reason"] = row.status_reason
        body["created_at"] = types.isotime(row.created_at)
        body["updated_at"] = types.isotime(row.updated_at)
    body["links"] = types.links(base_url, "federations", row.uuid)
    return body
