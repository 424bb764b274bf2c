"""JSON-patch bodies (RFC 6902 subset: add, replace, remove) and how they are applied.

Dict-valued attributes (``/labels``, ``/node_labels``...) can only be replaced whole, with
a string holding a Python literal: what python-magnumclient sends (``str(dict)``).
"""

from __future__ import annotations

import ast
import copy
from typing import Any

import jsonpatch
from wsme import exc as wsme_exc
from wsme import types as wtypes

from magnum_api.schemas import types
from magnum_common import exception

COMMON_INTERNAL = ("/created_at", "/id", "/links", "/updated_at", "/uuid", "/project_id",
                   "/user_id")


class JsonPatch(wtypes.Base):
    path = wtypes.wsattr(wtypes.StringType(pattern=r"^(/[\w-]+)+$"), mandatory=True)
    op = wtypes.wsattr(types.Enum(str, "replace", "add", "remove"), mandatory=True)
    value = types.MultiType(wtypes.text, int)


PATCH = wtypes.ArrayType(JsonPatch)


def check_ops(ops: list[JsonPatch], internal: tuple[str, ...],
              non_removable: tuple[str, ...]) -> list[dict[str, Any]]:
    """Refuse internal paths, removal of mandatory attributes and valueless add/replace."""
    result = []
    for op in ops:
        root = "/" + op.path.split("/")[1]
        if root in internal:
            raise wsme_exc.ClientSideError(
                f"'{op.path}' is an internal attribute and can not be updated")
        if op.op == "remove" and op.path in non_removable:
            raise wsme_exc.ClientSideError(
                f"'{op.path}' is a mandatory attribute and can not be removed")
        entry = {"op": op.op, "path": op.path}
        if op.op != "remove":
            if op.value in (wtypes.Unset, None):
                raise wsme_exc.ClientSideError("'add' and 'replace' operations needs value")
            entry["value"] = op.value
        result.append(entry)
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
                raise wsme_exc.ClientSideError(
                    f"Adding a new attribute {path} to the root of the resource is not "
                    "allowed.")
            if doc[attr] is not None:
                raise wsme_exc.ClientSideError(
                    f"The attribute {path} has existed, please use 'replace' operation "
                    "instead.")
        if op["op"] == "replace" and path in literal_paths:
            value = op["value"]
            if not isinstance(value, (dict, list)):
                try:
                    op["value"] = ast.literal_eval(value)
                except (SyntaxError, ValueError, TypeError) as err:
                    raise exception.PatchError(patch=ops, reason=err) from None
    try:
        patched = jsonpatch.apply_patch(doc, ops)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException,
            TypeError, KeyError, IndexError) as err:
        raise exception.PatchError(patch=ops, reason=err) from None
    for key in doc:
        patched.setdefault(key, None)
    return patched


def revalidate(datatype: type, values: dict[str, Any], argname: str) -> dict[str, Any]:
    """Type-check the patched attributes as a create body would be (numbers may be strings)."""
    from wsme.rest import json as wsjson

    known = {a.name for a in wtypes.list_attributes(datatype) if not getattr(a, "readonly",
                                                                              False)}
    body = {k: v for k, v in values.items() if k in known and v is not None}
    try:
        obj = wsjson.fromjson(datatype, body)
    except ValueError as err:
        raise wsme_exc.InvalidInput(argname, body, err.args[0]) from None
    checked = types.values_of(obj)
    return {**values, **{k: v for k, v in checked.items() if k in body}}
