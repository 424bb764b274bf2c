"""Fields shared by the resource schemas, the configured maxima, and view helpers."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from magnum_api.conf import CONF
from magnum_api.schemas import fields
from magnum_common import grammar

NAME_PATTERN = "^[a-zA-Z][a-zA-Z0-9_.-]*$"
#: Minutes a create may take (one week).
MAX_CREATE_TIMEOUT = 10080
#: Gigabytes of one node's container volume.
MAX_VOLUME_SIZE = 65536


def max_node_count() -> int:
    return CONF.api.max_node_count


def name(max_length: int = 242, **kw: Any) -> fields.String:
    """A resource name as clusters and federations take it (a letter first)."""
    return fields.String(max_length, pattern=NAME_PATTERN, **kw)


def string(max_length: int = 255, **kw: Any) -> fields.String:
    return fields.String(max_length, **kw)


def node_count(minimum: int = 0, **kw: Any) -> fields.Integer:
    return fields.Integer(minimum, max_node_count, **kw)


def labels(**kw: Any) -> fields.Dict:
    """Labels as sent: values may be strings, numbers or booleans (stored as strings)."""
    return fields.Dict(fields.String(255), fields.Scalar(), **kw)


def string_map(max_properties: int = 256, **kw: Any) -> fields.Dict:
    return fields.Dict(fields.String(255), fields.String(4096, min_length=0),
                       max_properties, **kw)


def readonly(field: fields.Field | None = None) -> fields.Field:
    """A server-owned attribute: listed so that a request setting it gets a clear 400."""
    field = field or fields.String(255)
    field.readonly = True
    return field


boolean = fields.Boolean
uuid = fields.Uuid

# --- response fields ------------------------------------------------------------------------
LINKS = fields.List(fields.Object({"href": fields.String(4096, nullable=False),
                                   "rel": fields.String(32, nullable=False),
                                   "type": fields.String(64, nullable=False)},
                                  required=("href", "rel"), nullable=False),
                    nullable=False, description="self and bookmark links.")
TIMESTAMP = fields.DateTime()
STRING_LIST = fields.List(fields.String(4096, min_length=0, nullable=False),
                          max_items=None)
STORED_LABELS = fields.Dict(fields.String(255, min_length=0),
                            fields.String(fields.TEXT_BYTES, min_length=0, nullable=False),
                            max_properties=10000)
UUID_BODY = fields.Object({"uuid": fields.Uuid(nullable=False)}, required=("uuid",),
                          nullable=False)


def view(properties: dict[str, fields.Field], optional: tuple[str, ...] = (),
         description: str = "") -> fields.Object:
    """A response object: every property present unless listed in ``optional``."""
    return fields.Object(properties, required=[k for k in properties if k not in optional],
                         nullable=False, description=description)


def collection(key: str, item: fields.Object) -> fields.Object:
    return view({key: fields.List(item, max_items=None, nullable=False),
                 "next": fields.String(8192, nullable=False,
                                       description="The next page (absent on the last).")},
                optional=("next",))


def stringify_labels(value: dict | None) -> dict[str, str] | None:
    """Labels are stored as strings: ``{"n": 3}`` becomes ``{"n": "3"}``."""
    if value is None:
        return None
    return {str(k): str(v) for k, v in value.items()}


def with_grammar(body: Any, table: Mapping[str, grammar.Check]) -> None:
    """Attach the grammar of each field of ``table`` (magnum_common.grammar) to the body
    schema's field of that name: refused with the words the handlers' grammar.check uses,
    and, where the grammar is a pattern, documented as the field's (or its keys') pattern."""
    for name, check in table.items():
        field = body.attributes[name]
        field.checks = (*field.checks, _refusing(name, check))
        pattern, key_pattern = (getattr(check, attr, None) for attr in grammar.PATTERNS)
        if pattern and isinstance(field, fields.String):
            field.document_pattern(pattern)
        if key_pattern and isinstance(field, fields.Dict):
            field.keys.document_pattern(key_pattern)


def _refusing(name: str, check: grammar.Check) -> fields.Check:
    def refuse(value: Any) -> None:
        reason = check(value)
        if reason:
            raise fields.FieldError(f"Invalid {name}: {reason}.")
    return refuse


def check_stored(name: str, value: Any) -> None:
    """A merged JSON value (e.g. template labels plus the request's) must fit its column."""
    from magnum_api.schemas import base

    if fields.encoded_size(value) > fields.TEXT_BYTES:
        raise base.InvalidInput(name, "...", f"Value should be at most {fields.TEXT_BYTES} "
                                "bytes as JSON")


def isotime(value: datetime.datetime | None) -> str | None:
    """A naive UTC column value in ISO 8601 with its offset (``...T09:20:58+00:00``)."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.isoformat() + "+00:00"
    return value.astimezone(datetime.UTC).isoformat()


def links(base_url: str, resource: str, ident: str) -> list[dict[str, str]]:
    return [
        {"href": f"{base_url}/v1/{resource}/{ident}", "rel": "self"},
        {"href": f"{base_url}/{resource}/{ident}", "rel": "bookmark"},
    ]


def label_diff(labels_: dict, parent: dict) -> dict[str, dict]:
    """labels_overridden (parent's value), labels_added, labels_skipped, against a parent."""
    overridden = {k: parent[k] for k, v in labels_.items() if k in parent and parent[k] != v}
    added = {k: v for k, v in labels_.items() if k not in parent}
    skipped = {k: v for k, v in parent.items() if k not in labels_}
    return {"labels_overridden": overridden, "labels_added": added, "labels_skipped": skipped}
