"""The RPC contract: every message the API's client sends has an endpoint method taking
exactly its arguments (read from both sides' source, as oslo.messaging dispatches by name
and keyword)."""

from __future__ import annotations

import ast
import inspect

from magnum_common import conductor_api, states
from magnum_conductor.engine.endpoints import ConductorEndpoint


def _sent() -> dict[str, set[str]]:
    """method -> keyword arguments, for every literal ``_cast`` / ``_call`` of the client."""
    sent: dict[str, set[str]] = {}
    tree = ast.parse(inspect.getsource(conductor_api))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("_cast", "_call") and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)):
            sent.setdefault(node.args[1].value, set()).update(k.arg for k in node.keywords)
    return sent


def _takes(method: str) -> list[str]:
    return list(inspect.signature(getattr(ConductorEndpoint, method)).parameters)[2:]


def test_every_recorded_operation_has_its_endpoint():
    for operation in states.OPERATIONS:
        assert _takes(operation) == ["cluster_uuid"], operation


def test_every_message_the_client_sends_is_received_with_its_arguments():
    sent = _sent()
    # credential_rotate is a recorded operation now: its cast goes through _submit
    assert {"cluster_create", "sign_certificate", "get_ca_certificate"} <= set(sent)
    assert "credential_rotate" in states.OPERATIONS
    for method, keywords in sent.items():
        takes = _takes(method)
        assert keywords <= set(takes), (method, keywords, takes)
        required = [name for name, p in inspect.signature(
            getattr(ConductorEndpoint, method)).parameters.items()
            if p.default is inspect.Parameter.empty][2:]
        assert set(required) <= keywords, (method, required)
