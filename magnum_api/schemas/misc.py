"""Certificates, quotas and federations: bodies and views."""

from __future__ import annotations

from typing import Any

from wsme import types as wtypes

from magnum_api.schemas import patch, types
from magnum_common import states


class CertificatePost(wtypes.Base):
    cluster_uuid = wtypes.wsattr(wtypes.text, mandatory=True)
    csr = wtypes.wsattr(types.string(1, None), mandatory=True)
    ca_cert_type = wtypes.text
    pem = types.readonly()
    links = types.readonly()
    created_at = types.readonly()
    updated_at = types.readonly()


def certificate_view(cluster_uuid: str, pem: str, base_url: str,
                     extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"cluster_uuid": cluster_uuid, "pem": pem, **(extra or {}),
            "links": types.links(base_url, "certificates", cluster_uuid)}


class QuotaPost(wtypes.Base):
    project_id = wtypes.wsattr(types.string(1, 255), mandatory=True)
    resource = types.Enum(str, *states.QUOTA_RESOURCES)
    hard_limit = wtypes.IntegerType(minimum=0)
    id = types.readonly()
    created_at = types.readonly()
    updated_at = types.readonly()


def quota_view(row: Any) -> dict[str, Any]:
    return {"id": row.id, "project_id": row.project_id, "resource": row.resource,
            "hard_limit": row.hard_limit, "created_at": types.isotime(row.created_at),
            "updated_at": types.isotime(row.updated_at)}


def service_view(row: Any, up: bool) -> dict[str, Any]:
    return {"id": row.id, "host": row.host, "binary": row.binary,
            "state": states.SERVICE_UP if up else states.SERVICE_DOWN,
            "disabled": bool(row.disabled), "disabled_reason": row.disabled_reason,
            "report_count": row.report_count, "created_at": types.isotime(row.created_at),
            "updated_at": types.isotime(row.updated_at)}


class FederationPost(wtypes.Base):
    uuid = types.uuid
    name = types.string(1, 242, types.NAME_PATTERN)
    hostcluster_id = wtypes.text
    member_ids = wtypes.ArrayType(wtypes.text)
    properties = wtypes.DictType(wtypes.text, wtypes.text)
    status = types.Enum(str, *states.FEDERATION_STATUSES)
    status_reason = wtypes.text
    project_id = types.readonly()
    created_at = types.readonly()
    updated_at = types.readonly()
    links = types.readonly()


FEDERATION_INTERNAL = patch.COMMON_INTERNAL
FEDERATION_LITERAL_PATHS = ("/properties",)
FEDERATION_SUMMARY = ("uuid", "name", "hostcluster_id", "member_ids", "status", "properties")


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
