"""The OpenAPI document: generated from the declared operations, checked in current, and
complete (every handler pecan can route to declares its operation)."""

from __future__ import annotations

import json
import pathlib

import pecan
from jsonschema import Draft202012Validator

from magnum_api import openapi
from magnum_api.controllers import root
from magnum_api.schemas import operation

REPO = pathlib.Path(__file__).resolve().parents[3]
CHECKED_IN = REPO / "doc" / "source" / "api" / "openapi.json"


def test_checked_in_document_is_what_the_code_generates():
    fresh = openapi.dump(openapi.build())
    assert CHECKED_IN.read_text() == fresh, (
        "doc/source/api/openapi.json is stale: run "
        ".venv/bin/python -m magnum_api.openapi > doc/source/api/openapi.json")


def test_every_schema_in_the_document_is_valid_json_schema():
    document = openapi.build()
    seen = 0

    def walk(node):
        nonlocal seen
        if isinstance(node, dict):
            if isinstance(node.get("schema"), dict):
                Draft202012Validator.check_schema(node["schema"])
                seen += 1
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(document)
    assert seen > 100


def _exposed_handlers():
    """Every method pecan would call as a handler, on every controller of the tree."""
    seen, stack = set(), [root.RootController()]
    while stack:
        controller = stack.pop()
        if id(controller) in seen:
            continue
        seen.add(id(controller))
        for name in dir(type(controller)):
            if name.startswith("__"):
                continue
            value = getattr(controller, name)
            if isinstance(value, pecan.rest.RestController):
                stack.append(value)
            elif callable(value) and getattr(value, "exposed", False) and name != "_route":
                yield f"{type(controller).__name__}.{name}", value


def test_every_handler_declares_its_operation():
    handlers = dict(_exposed_handlers())
    missing = [name for name, handler in handlers.items()
               if getattr(handler, "operation", None) is None]
    assert missing == []
    assert {h.operation for h in handlers.values()} == set(operation.REGISTRY)


def test_every_operation_has_responses_and_a_unique_id():
    document = openapi.build()
    ids = [op["operationId"] for item in document["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids)) == len(operation.REGISTRY)
    for item in document["paths"].values():
        for op in item.values():
            assert any(code.startswith("2") for code in op["responses"])
            assert "400" in op["responses"]
    assert json.loads(openapi.served())["paths"].keys() == document["paths"].keys()
