"""Certificates, quotas, services and federations: bodies refused as documented, views
valid per the document."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from magnum_api.schemas import misc
from magnum_common import exception
from magnum_common.db import api as db_api
from magnum_common.db import models
from magnum_common.db.quotas import quotas
from magnum_common.db.services import magnum_services

BASE = "http://127.0.0.1:9511"


def _valid(view, body) -> bool:
    return Draft202012Validator(view.schema()).is_valid(body)


def test_certificate_bodies_and_views():
    body = misc.CertificatePost.parse({"cluster_uuid": "c1", "csr": "-----BEGIN"})
    assert body == {"cluster_uuid": "c1", "csr": "-----BEGIN"}
    with pytest.raises(exception.Invalid, match="maximum character requirement of 32768"):
        misc.CertificatePost.parse({"cluster_uuid": "c1", "csr": "x" * 40000})
    with pytest.raises(exception.Invalid, match="Cannot set read only field"):
        misc.CertificatePost.parse({"cluster_uuid": "c1", "csr": "x", "pem": "y"})
    signed = misc.certificate_view("c1", "PEM", BASE, {"csr": "CSR"})
    assert signed["links"][0]["href"] == f"{BASE}/v1/certificates/c1"
    assert _valid(misc.SIGNED_VIEW, signed) and _valid(misc.CA_VIEW,
                                                       misc.certificate_view("c1", "P", BASE))


def test_quota_and_service_views(db):
    row = quotas.create(None, {"project_id": "p1", "resource": "Cluster", "hard_limit": 3})
    view = misc.quota_view(row)
    assert view["hard_limit"] == 3 and view["created_at"].endswith("+00:00")
    assert _valid(misc.QUOTA_VIEW, view)
    service = magnum_services.heartbeat("host-a", "magnum-conductor")
    up, down = misc.service_view(service, True), misc.service_view(service, False)
    assert (up["state"], down["state"], up["disabled"]) == ("up", "down", False)
    assert _valid(misc.SERVICES_VIEW, {"mservices": [up, down]})


def test_federation_bodies_and_views(db):
    assert misc.FederationPost.parse({"name": "fed", "member_ids": ["a"],
                                      "properties": {"dns-zone": "example.com."}})[
        "properties"] == {"dns-zone": "example.com."}
    with pytest.raises(exception.Invalid, match="at most 100 items"):
        misc.FederationPost.parse({"name": "fed", "member_ids": ["a"] * 101})
    with db_api.writer() as session:
        session.add(models.Federation(uuid="f-1", name="fed", project_id="p1",
                                      status="CREATE_COMPLETE"))
    with db_api.reader() as session:
        row = session.query(models.Federation).one()
        summary = misc.federation_view(row, BASE, detail=False)
        detail = misc.federation_view(row, BASE, detail=True)
    assert summary["member_ids"] == [] and summary["properties"] == {}
    assert "created_at" not in summary and detail["created_at"].endswith("+00:00")
    assert _valid(misc.FEDERATION_SUMMARY_VIEW, summary)
    assert _valid(misc.FEDERATION_DETAIL, detail)
