"""oslo.messaging plumbing shared by the RPC client (API) and the RPC server (conductor)."""

from __future__ import annotations

from typing import Any

import oslo_messaging as messaging

from magnum_common.config import CONF, set_messaging_defaults
from magnum_common.context import RequestContext

#: Only our exceptions are re-raised with their class (and HTTP code) on the caller.
ALLOWED_EXMODS = ["magnum_common.exception"]

set_messaging_defaults()

_transport: messaging.Transport | None = None
_notification_transport: messaging.Transport | None = None


class ContextSerializer(messaging.Serializer):
    """Payloads are plain JSON types; the context travels as a dict and is rebuilt."""

    def serialize_entity(self, ctxt: Any, entity: Any) -> Any:
        return entity

    def deserialize_entity(self, ctxt: Any, entity: Any) -> Any:
        return entity

    def serialize_context(self, ctxt: RequestContext) -> dict:
        return ctxt.to_dict()

    def deserialize_context(self, ctxt: dict) -> RequestContext:
        return RequestContext.from_dict(ctxt)


def get_transport() -> messaging.Transport:
    global _transport
    if _transport is None:
        _transport = messaging.get_rpc_transport(CONF, allowed_remote_exmods=ALLOWED_EXMODS)
    return _transport


def get_notification_transport() -> messaging.Transport:
    global _notification_transport
    if _notification_transport is None:
        _notification_transport = messaging.get_notification_transport(
            CONF, allowed_remote_exmods=ALLOWED_EXMODS)
    return _notification_transport


def get_client(topic: str | None = None, server: str | None = None,
               timeout: int | None = None) -> messaging.RPCClient:
    target = messaging.Target(topic=topic or CONF.conductor.topic, server=server)
    return messaging.get_rpc_client(get_transport(), target, serializer=ContextSerializer(),
                                    timeout=timeout)


def get_server(topic: str, server: str, endpoints: list[Any],
               transport: messaging.Transport | None = None) -> messaging.RPCServer:
    """An RPC server on the shared transport, or on ``transport`` for a server that must
    outlive a ``cleanup`` of the shared one (its replies go through its own connections)."""
    target = messaging.Target(topic=topic, server=server)
    return messaging.get_rpc_server(
        transport or get_transport(), target, endpoints, executor="threading",
        serializer=ContextSerializer(),
        access_policy=messaging.DefaultRPCAccessPolicy,
    )


def get_notifier(publisher_id: str) -> messaging.Notifier:
    return messaging.Notifier(get_notification_transport(), publisher_id=publisher_id,
                              serializer=ContextSerializer())


def cleanup() -> None:
    global _transport, _notification_transport
    for transport in (_transport, _notification_transport):
        if transport is not None:
            transport.cleanup()
    _transport = _notification_transport = None
