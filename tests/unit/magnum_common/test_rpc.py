"""What crosses RPC: the context as its wire form, and only our exceptions with their class.

The conductor's refusals reach the API as the same ``magnum_common.exception`` class (and so
the same HTTP code); anything else arrives as oslo.messaging's ``RemoteError`` (a 500).
Serialised and read back with oslo.messaging's own functions, as the transport does.
"""

from __future__ import annotations

import sys

import oslo_messaging
from oslo_messaging._drivers import common as rpc_common

from magnum_common import exception, rpc
from magnum_common.context import RequestContext


def _over_the_wire(error: Exception) -> Exception:
    try:
        raise error
    except Exception:
        data = rpc_common.serialize_remote_exception(sys.exc_info())
    return rpc_common.deserialize_remote_exception(data, rpc.ALLOWED_EXMODS)


def test_a_conductor_refusal_keeps_its_class_code_and_message():
    again = _over_the_wire(exception.OperationRefused(
        cluster="c1", operation="cluster_upgrade", status="UPDATE_FAILED"))
    assert isinstance(again, exception.OperationRefused)
    assert again.code == 400
    assert str(again).startswith(str(exception.OperationRefused(
        cluster="c1", operation="cluster_upgrade", status="UPDATE_FAILED")))
    busy = _over_the_wire(exception.ClusterBusy(cluster="c1"))
    assert isinstance(busy, exception.ClusterBusy) and busy.code == 409


class HeatClientError(Exception):
    """Stands for a library's exception raised in the conductor (not one of ours)."""


def test_a_foreign_exception_is_a_remote_error():
    again = _over_the_wire(HeatClientError("stack failed"))
    assert isinstance(again, oslo_messaging.RemoteError)
    assert again.exc_type == "HeatClientError"
    assert not isinstance(again, exception.MagnumException)


def test_the_serializer_carries_identity_and_no_token():
    serializer = rpc.ContextSerializer()
    ctx = RequestContext(user_id="u", project_id="p", auth_token="tok", roles=["reader"])
    wire = serializer.serialize_context(ctx)
    assert "auth_token" not in wire and wire["roles"] == ["reader"]
    again = serializer.deserialize_context({**wire, "auth_token": "forged"})
    assert (again.user_id, again.project_id, again.auth_token) == ("u", "p", None)
    payload = {"cluster_uuid": "x", "node_count": 3}
    assert serializer.deserialize_entity(again, serializer.serialize_entity(ctx, payload)) \
        == payload
