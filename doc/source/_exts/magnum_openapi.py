"""``.. magnum-openapi:: openapi.json`` renders the API reference from the OpenAPI document.

The document is generated from the schemas magnum-api validates requests with
(``python -m magnum_api.openapi``), so the reference says what the API enforces; this
extension only lays it out: one section per tag, one per operation, with its parameters,
body attributes and responses.
"""

from __future__ import annotations

import json
import os
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList
from sphinx.util.nodes import nested_parse_with_titles


def describe(schema: dict[str, Any]) -> str:
    """A short human description of a JSON Schema."""
    if not schema:
        return "any"
    if "anyOf" in schema:
        kinds = [describe(s) for s in schema["anyOf"] if s.get("type") != "null"]
        text = " or ".join(dict.fromkeys(kinds))
        return text + (", or null" if any(s.get("type") == "null" for s in schema["anyOf"])
                       else "")
    kind = schema.get("type", "any")
    nullable = False
    if isinstance(kind, list):
        nullable = "null" in kind
        kind = next((k for k in kind if k != "null"), "null")
    if "enum" in schema:
        text = "one of " + ", ".join(f"``{v}``" for v in schema["enum"])
    elif kind == "string":
        text = "string"
        if schema.get("format"):
            text += f" ({schema['format']})"
        low, high = schema.get("minLength"), schema.get("maxLength")
        if high is not None:
            text += f", {low or 0} to {high} characters"
        if schema.get("pattern"):
            text += f", matching ``{schema['pattern']}``"
    elif kind in ("integer", "number"):
        text = kind
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            text += f" {low} to {high}"
        elif low is not None:
            text += f" >= {low}"
        elif high is not None:
            text += f" <= {high}"
    elif kind == "object" and "additionalProperties" in schema and \
            isinstance(schema["additionalProperties"], dict):
        text = f"object of {describe(schema['additionalProperties'])}"
        if schema.get("maxProperties") is not None:
            text += f" (at most {schema['maxProperties']} keys)"
    elif kind == "array":
        text = f"array of {describe(schema.get('items', {}))}"
        if schema.get("maxItems") is not None:
            text += f" (at most {schema['maxItems']})"
    else:
        text = kind
    return text + (", or null" if nullable else "")


def _cell(text: str) -> str:
    return " ".join(text.split()) or "\\-"


def _table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", ""]
    for row in [header, *rows]:
        lines.append(f"   * - {_cell(row[0])}")
        lines.extend(f"     - {_cell(cell)}" for cell in row[1:])
    return [*lines, ""]


def _attributes(schema: dict[str, Any]) -> list[tuple[str, ...]]:
    required = set(schema.get("required", ()))
    rows = []
    for name, prop in schema.get("properties", {}).items():
        notes = prop.get("description", "")
        version = prop.get("x-openstack-min-version") or prop.get("x-openstack-max-version")
        if prop.get("x-openstack-min-version"):
            notes += f" (microversion {version} on)"
        elif prop.get("x-openstack-max-version"):
            notes += f" (up to microversion {version})"
        rows.append((f"``{name}``", describe(prop), "yes" if name in required else "",
                     notes))
    return rows


def render(document: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    operations: dict[str, list[tuple[str, str, dict]]] = {}
    for path, item in document["paths"].items():
        for method, op in item.items():
            operations.setdefault(op["tags"][0], []).append((method.upper(), path, op))
    for tag in (t["name"] for t in document["tags"]):
        lines += [tag, "=" * len(tag), ""]
        for method, path, op in operations.get(tag, []):
            title = f"{method} {path}"
            lines += [title, "-" * len(title), "", op["summary"] + ".", ""]
            if op.get("description"):
                lines += [op["description"], ""]
            if not op.get("security"):
                lines += ["No token needed.", ""]
            params = [p for p in op.get("parameters", []) if "$ref" not in p]
            if params:
                lines += ["**Parameters**", ""]
                lines += _table([(f"``{p['name']}``", p["in"], describe(p["schema"]),
                                  p.get("description", "")) for p in params],
                                ("name", "in", "type", "description"))
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            if body:
                schema = body["schema"]
                lines += ["**Request body**" + (" (optional)" if not op["requestBody"].get(
                    "required") else ""), ""]
                if schema.get("description"):
                    lines += [schema["description"], ""]
                if schema.get("type") == "object":
                    lines += _table(_attributes(schema),
                                    ("attribute", "type", "required", "notes"))
                else:
                    lines += [describe(schema) + ": each "
                              + describe(schema.get("items", {})) + ".", ""]
                    item = schema.get("items", {})
                    if item.get("properties"):
                        lines += _table(_attributes(item),
                                        ("attribute", "type", "required", "notes"))
            lines += ["**Responses**", ""]
            for status, response in op["responses"].items():
                lines += [f"* ``{status}``: {response['description']}"]
            lines += [""]
            for status, response in op["responses"].items():
                schema = response.get("content", {}).get("application/json", {}).get(
                    "schema", {})
                if status.startswith("2") and schema.get("properties"):
                    lines += [f"Attributes of the ``{status}`` body:", ""]
                    lines += _table(_attributes(schema),
                                    ("attribute", "type", "always present", "notes"))
    return lines


class OpenAPIDirective(Directive):
    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        env = self.state.document.settings.env
        source = os.path.join(os.path.dirname(env.doc2path(env.docname)),
                              self.arguments[0])
        env.note_dependency(source)
        with open(source) as stream:
            document = json.load(stream)
        container = nodes.section()
        container.document = self.state.document
        nested_parse_with_titles(self.state, StringList(render(document), source),
                                 container)
        return container.children


def setup(app):
    app.add_directive("magnum-openapi", OpenAPIDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
