"""WSME attribute types shared by the resource schemas."""

from __future__ import annotations

import datetime
from typing import Any

from oslo_utils import strutils
from wsme import types as wtypes

from magnum_common import exception, utils

NAME_PATTERN = "^[a-zA-Z][a-zA-Z0-9_.-]*$"


class Enum(wtypes.Enum):
    """WSME's Enum, listing the allowed values in a stable order in its message."""

    def __init__(self, basetype: type, *values: Any, **kw: Any) -> None:
        super().__init__(basetype, *values, **kw)
        self.ordered = values

    def validate(self, value: Any) -> Any:
        if value not in self.values:
            raise ValueError("Value should be one of: %s" % ", ".join(map(str, self.ordered)))
        return value


class BooleanType(wtypes.UserType):
    """JSON booleans, or the strict strings true/false, yes/no, 1/0, on/off, t/f, y/n."""

    basetype = wtypes.text
    name = "boolean"

    @staticmethod
    def validate(value: Any) -> bool:
        if isinstance(value, bool):
            return value
        try:
            return strutils.bool_from_string(value, strict=True)
        except ValueError as exc:
            raise ValueError(str(exc)) from None

    @staticmethod
    def frombasetype(value: Any) -> bool | None:
        return None if value is None else BooleanType.validate(value)


class MultiType(wtypes.UserType):
    """A value of any of several plain types (label values, JSON-patch values)."""

    def __init__(self, *types: type) -> None:
        self.types = types
        self.basetype = wtypes.text
        self.name = " | ".join(getattr(t, "__name__", str(t)) for t in types)

    def validate(self, value: Any) -> Any:
        if isinstance(value, self.types):
            return value
        raise ValueError(f"Wrong type. Expected '{self.types}', got '{type(value)}'")

    def frombasetype(self, value: Any) -> Any:
        return None if value is None else self.validate(value)


class UuidType(wtypes.UserType):
    basetype = wtypes.text
    name = "uuid"

    @staticmethod
    def validate(value: Any) -> str:
        if not utils.is_uuid_like(value):
            raise exception.InvalidUUID(uuid=value)
        return value

    @staticmethod
    def frombasetype(value: Any) -> str | None:
        return None if value is None else UuidType.validate(value)


class DNSListType(wtypes.UserType):
    """A comma-separated list of IPv4 name servers."""

    basetype = wtypes.text
    name = "dnslist"

    @staticmethod
    def validate(value: Any) -> str:
        import ipaddress

        if not isinstance(value, str):
            raise exception.InvalidDNS(dns=value)
        for entry in value.split(","):
            try:
                ipaddress.IPv4Address(entry.strip())
            except ValueError:
                raise exception.InvalidDNS(dns=value) from None
        return value

    @staticmethod
    def frombasetype(value: Any) -> str | None:
        return None if value is None else DNSListType.validate(value)


class AnyJSON(wtypes.UserType):
    """Any JSON value; the resource's own rules check it (node taints, node labels)."""

    basetype = wtypes.text
    name = "json"

    @staticmethod
    def validate(value: Any) -> Any:
        return value

    @staticmethod
    def frombasetype(value: Any) -> Any:
        return value


boolean = BooleanType()
any_json = AnyJSON()
uuid = UuidType()
dns_list = DNSListType()
LABEL_VALUE = MultiType(wtypes.text, int, bool, float)
labels = wtypes.DictType(wtypes.text, LABEL_VALUE)


def string(min_length: int = 1, max_length: int = 255,
           pattern: str | None = None) -> wtypes.StringType:
    return wtypes.StringType(min_length=min_length, max_length=max_length, pattern=pattern)


def readonly(datatype: Any = wtypes.text) -> wtypes.wsattr:
    return wtypes.wsattr(datatype, readonly=True)


def values_of(obj: wtypes.Base) -> dict[str, Any]:
    """The attributes a client sent (``null`` included), by API name."""
    result = {}
    for attr in wtypes.list_attributes(type(obj)):
        value = getattr(obj, attr.key)
        if value is not wtypes.Unset:
            result[attr.name] = value
    return result


def stringify_labels(value: dict | None) -> dict[str, str] | None:
    """Labels are stored as strings: ``{"n": 3}`` becomes ``{"n": "3"}``."""
    if value is None:
        return None
    return {str(k): str(v) for k, v in value.items()}


def isotime(value: datetime.datetime | None) -> str | None:
    if value is None:
        return None
    return value.replace(tzinfo=datetime.UTC).isoformat()


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
