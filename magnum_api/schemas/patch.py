"""JSON-patch bodies (RFC 6902 subset: add, replace, remove) and how they are applied.

A PATCH body is a list of operations whose paths address an attribute (``/name``) or one
key of a dict attribute (``/labels/kube_tag``): two levels at most, so a path can neither
walk into a list nor grow a structure. Dict-valued attributes (``/labels``,
``/node_labels``...) can be replaced whole with a string holding a Python or JSON literal,
which is what python-magnumclient sends (``str(dict)``). The result is re-checked attribute
by attribute with the resource's create schema.
"""

from __future__ import annotations

import ast
import copy
from typing import Any

import jsonpatch
import orjson

from magnum_api.schemas import base, fields
from magnum_common import exception

COMMON_INTERNAL = ("/created_at", "/id", "/links", "/updated_at", "/uuid", "/project_id",
                   "/user_id")
PATH_PATTERN = "^/[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)?$"
MAX_OPERATIONS = 100
#: Longest literal (string) given for a dict-valued attribute: what its column holds.
MAX_LITERAL = fields.TEXT_BYTES

OPERATION = fields.Object({
    "op": fields.Enum(("replace", "add", "remove"), nullable=False),
    "path": fields.String(255, pattern=PATH_PATTERN, nullable=False),
    "value": fields.Field(),  # replaced below: a string, an integer or a boolean
}, required=("op", "path"), nullable=False)


class Value(fields.Field):
    """A patch value: a string, an integer or a boolean (objects and lists are refused)."""

    def convert(self, value: Any) -> Any:
        if isinstance(value, str):
            if len(value) > MAX_LITERAL:
                raise fields.FieldError("Value should have a maximum character requirement "
                                        f"of {MAX_LITERAL}")
            return value
        if isinstance(value, int) and abs(value) <= fields.NUMBER_MAX:
            return value
        raise fields.FieldError("Wrong type. Expected '(<class 'str'>, <class 'int'>)', got "
                                f"'{type(value)}'")

    def type_schema(self) -> dict[str, Any]:
        return {"anyOf": [{"type": "string", "maxLength": MAX_LITERAL}, {"type": "boolean"},
                          {"type": "integer", "minimum": -fields.NUMBER_MAX,
                           "maximum": fields.NUMBER_MAX}]}


OPERATION.properties["value"] = Value()


class Patch:
    """The body of a PATCH: a list of operations (``argname`` as in WSME's messages)."""

    argname = "patch"

    @staticmethod
    def parse(document: Any) -> list[dict[str, Any]]:
        if not isinstance(document, list):
            raise base.InvalidInput("patch", document, f"Value not a valid list: "
                                    f"{fields.clip(document)}")
        if len(document) > MAX_OPERATIONS:
            raise base.InvalidInput("patch", "...", f"Value should have at most "
                                    f"{MAX_OPERATIONS} operations")
        ops = []
        for item in document:
            if not isinstance(item, dict):
                raise base.InvalidInput("patch", item, "Value not a valid dict")
            unknown = [key for key in item if key not in OPERATION.properties]
            if unknown:
                raise base.UnknownAttribute("patch", unknown)
            for name, field in OPERATION.properties.items():
                if name in OPERATION.required and item.get(name) is None:
                    raise base.InvalidInput(name, None, "Mandatory field missing.")
                if name in item:
                    try:
                        field.validate(item[name])
                    except fields.FieldError as err:
                        raise base.field_error(name, item[name], err) from None
            entry = {"op": item["op"], "path": item["path"]}
            if item.get("value") is not None:
                entry["value"] = item["value"]
            ops.append(entry)
        return ops

    @staticmethod
    def schema() -> dict[str, Any]:
        return {"type": "array", "maxItems": MAX_OPERATIONS, "items": OPERATION.schema(),
                "description": "JSON patch (RFC 6902): add, replace and remove only."}


def check_ops(ops: list[dict[str, Any]], internal: tuple[str, ...],
              non_removable: tuple[str, ...]) -> list[dict[str, Any]]:
    """Refuse internal paths, removal of mandatory attributes and valueless add/replace."""
    for op in ops:
        root = "/" + op["path"].split("/")[1]
        if root in internal:
            raise exception.Invalid(
                f"'{op['path']}' is an internal attribute and can not be updated")
        if op["op"] == "remove" and op["path"] in non_removable:
            raise exception.Invalid(
                f"'{op['path']}' is a mandatory attribute and can not be removed")
        if op["op"] != "remove" and "value" not in op:
            raise exception.Invalid("'add' and 'replace' operations needs value")
    return ops


def literal(value: Any) -> Any:
    """A dict or list given as text: JSON, or a Python literal (``str(dict)``)."""
    if not isinstance(value, str):
        return value
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        pass
    depth = current = 0
    for char in value:  # an upper bound on the literal's nesting, quotes included
        if char in "[{(":
            current += 1
            depth = max(depth, current)
        elif char in "]})":
            current -= 1
    if depth > base.MAX_DEPTH:
        raise ValueError(f"nested deeper than {base.MAX_DEPTH} levels")
    try:
        result = ast.literal_eval(value)
    except (RecursionError, MemoryError):
        raise ValueError("the literal is too complex") from None
    base.check_document(result)
    return result


def apply(doc: dict[str, Any], ops: list[dict[str, Any]],
          literal_paths: tuple[str, ...] = ()) -> dict[str, Any]:
    """Apply ``ops`` to a copy of ``doc``; removed root attributes become ``None``."""
    ops = copy.deepcopy(ops)
    for op in ops:
        path = op["path"]
        if op["op"] == "add" and path.count("/") == 1:
            attr = path[1:]
            if attr not in doc:
                raise exception.Invalid(
                    f"Adding a new attribute {path} to the root of the resource is not "
                    "allowed.")
            if doc[attr] is not None:
                raise exception.Invalid(
                    f"The attribute {path} has existed, please use 'replace' operation "
                    "instead.")
        if op["op"] == "replace" and path in literal_paths:
            try:
                op["value"] = literal(op["value"])
            except (SyntaxError, ValueError, TypeError, exception.Invalid) as err:
                raise exception.PatchError(patch=fields.clip(ops), reason=err) from None
    try:
        patched = jsonpatch.apply_patch(doc, ops)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException,
            TypeError, KeyError, IndexError) as err:
        raise exception.PatchError(patch=fields.clip(ops), reason=err) from None
    for key in doc:
        patched.setdefault(key, None)
    return patched


def revalidate(schema: type[base.Body], doc: dict[str, Any], patched: dict[str, Any]
               ) -> dict[str, Any]:
    """Check the attributes the patch changed as a create body would be (``"5"`` becomes
    5); unchanged ones are kept as stored. Attributes the create schema does not take are
    left as patched: the handler decides whether they may change at all."""
    result = dict(patched)
    for key, value in patched.items():
        field = schema.attributes.get(key)
        if value is None or value == doc.get(key) or field is None or field.readonly:
            continue
        result[key] = schema.validate_one(key, value)
    return result


def changed(doc: dict[str, Any], patched: dict[str, Any]) -> list[str]:
    """The attributes whose value the patch changed, sorted."""
    return sorted(k for k in doc if patched.get(k) != doc[k])
