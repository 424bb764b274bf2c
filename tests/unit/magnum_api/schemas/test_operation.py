"""Declared operations: ids, the handler's signature checked against the path, what a
request is checked for before the database (method, microversion, path, query, body)."""

from __future__ import annotations

import pytest
import webob

from magnum_api import errors, microversion
from magnum_api.controllers import root  # noqa: F401 - declares every operation
from magnum_api.schemas import base, fields, operation
from magnum_common import exception

V = microversion.Version


def _spec(method: str, path: str) -> operation.Operation:
    return next(op for op in operation.REGISTRY if (op.method, op.path) == (method, path))


def test_ids_and_a_handler_that_does_not_take_its_path_is_refused():
    spec = _spec("GET", "/v1/clusters/{cluster_ident}/nodegroups/{ident}")
    assert spec.operation_id == "get_v1_clusters_cluster_ident_nodegroups_ident"
    assert spec.path_names() == ["cluster_ident", "ident"]
    with pytest.raises(TypeError, match="names \\['ident'\\], the handler takes \\['name'\\]"):
        @operation.operation("GET", "/v1/things/{ident}", "A thing", "things",
                             responses={})
        def get_one(self, name):
            return None


def test_the_methods_of_a_concrete_path():
    assert operation.allowed_methods("/v1/clusters") == ["GET", "POST"]
    assert operation.allowed_methods("/v1/clusters/c1/") == ["DELETE", "GET", "PATCH"]
    assert operation.allowed_methods("/v1/clusters/detail") == ["GET"]
    assert operation.allowed_methods("/v1/nowhere") == []


def test_a_request_is_checked_in_order_method_version_path_query():
    spec = _spec("GET", "/v1/clusters/{cluster_ident}/nodegroups")
    request = webob.Request.blank("/v1/clusters/c1/nodegroups?role=worker")
    checked = operation.check(spec, request, ["c1"], [], V(1, 9))
    assert (checked.path, checked.query, checked.body) == ({"cluster_ident": "c1"},
                                                          {"role": "worker"}, None)
    with pytest.raises(errors.RoutingError) as raised:
        operation.check(spec, request, ["c1"], [], V(1, 8))
    assert raised.value.status == 406
    with pytest.raises(exception.Invalid, match="Unknown argument"):
        operation.check(spec, webob.Request.blank("/x?bogus=1"), ["c1"], [], V(1, 9))
    with pytest.raises(exception.Invalid, match="_method"):
        operation.check(spec, webob.Request.blank("/x?_method=DELETE"), ["c1"], [], V(1, 9))
    lower = webob.Request.blank("/v1/clusters/c1/nodegroups", method="get")
    with pytest.raises(webob.exc.HTTPMethodNotAllowed):  # methods are case-sensitive
        operation.check(spec, lower, ["c1"], [], V(1, 9))
    with pytest.raises(exception.Invalid, match="maximum character requirement of 255"):
        operation.check(spec, request, ["c" * 256], [], V(1, 9))


def test_a_post_to_an_item_is_405_with_the_items_methods():
    spec = _spec("POST", "/v1/clusters")
    refused = operation.method_not_allowed(spec, 0, extra=1)
    assert isinstance(refused, webob.exc.HTTPMethodNotAllowed)
    assert refused.headers["Allow"] == "DELETE, GET, PATCH"
    assert isinstance(operation.method_not_allowed(_spec("GET", "/v1/stats"), 0, extra=1),
                      exception.ResourceNotFound)


def test_query_fields_of_another_microversion_are_unknown():
    field = fields.String(10, min_version="1.13")
    spec = operation.Operation("GET", "/v1/x", "x", "x", responses={}, query={"f": field})
    request = webob.Request.blank("/v1/x?f=a")
    assert operation.check_query(spec, request, V(1, 13)) == {"f": "a"}
    with pytest.raises(base.UnknownArgument):
        operation.check_query(spec, request, V(1, 12))
