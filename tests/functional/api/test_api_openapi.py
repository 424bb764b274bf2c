"""The API serves its OpenAPI document without a token, and every documented operation is
routed to the handler that declares it."""

from __future__ import annotations

import re

import pytest

from magnum_api import openapi
from magnum_api.controllers import root  # noqa: F401 - declares the operations
from magnum_api.middleware import auth_token
from magnum_api.schemas import operation
from tests.functional.api.conftest import headers


def test_document_is_served_without_identity(api):
    resp = api.get("/v1/openapi.json", status=200)
    assert resp.content_type == "application/json"
    assert resp.json == openapi.build()
    assert resp.json["openapi"] == "3.1.0"


def test_document_path_is_public_in_keystone_mode():
    patterns = auth_token.route_patterns(auth_token.PUBLIC_ROUTES)
    for path in ("/", "/v1", "/v1/", "/v1/openapi.json"):
        assert auth_token.is_public(path, patterns)
    for path in ("/v1/clusters", "/v1/openapi.json/x", "/v1/openapi.yaml"):
        assert not auth_token.is_public(path, patterns)


@pytest.mark.parametrize("spec", operation.REGISTRY, ids=lambda s: f"{s.method} {s.path}")
def test_each_operation_routes_to_its_handler(api, spec):
    path = re.sub(r"{\w+}", "x", spec.path)
    resp = api.request(path, method=spec.method, headers=headers("admin"),
                       expect_errors=True)
    assert resp.request.environ.get(operation.MATCHED_KEY) is spec, resp.body[:200]
