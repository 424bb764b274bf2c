"""Field types: each validates one JSON value and describes itself as JSON Schema.

The API validates every request with these objects and the OpenAPI document is generated
from the very same objects, so the document cannot promise what the API does not check.
A field bounds what the database column can hold (length, integer range, encoded size of
JSON text columns) and a documented sensible maximum; a refusal raises :class:`FieldError`
with a reason worded as WSME worded it, which the body schema turns into
``Invalid input for field/attribute <name>. Value: '<value>'. <reason>``.

Grammar validators for tenant strings plug in with ``checks=``: a callable taking the
(already type-checked) value and raising :class:`FieldError`, e.g.
``name = fields.String(255, checks=[grammar.kubernetes_name])``.
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from magnum_common import exception, utils

INT32_MAX = 2**31 - 1
#: Largest magnitude of a number given as a label value (it is stored as its string).
NUMBER_MAX = 10**15
#: Bytes a TEXT column holds on MariaDB (the smallest of the three backends).
TEXT_BYTES = 65535
Bound = int | Callable[[], int] | None
Check = Callable[[Any], None]


class FieldError(ValueError):
    """A value refused by a field; ``reason`` is the last sentence of the 400's detail."""

    def __init__(self, reason: str, exc: exception.MagnumException | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        #: When set, the error the API answers with instead of InvalidInput.
        self.exc = exc


def _resolve(bound: Bound) -> int | None:
    return bound() if callable(bound) else bound


def encoded_size(value: Any) -> int:
    """Bytes of the JSON text a JSON column stores for ``value`` (ASCII-escaped)."""
    return len(json.dumps(value))


class Field:
    """A JSON value of one type.

    ``nullable``: JSON null is accepted (it means "not given" in create bodies).
    ``readonly``: the server owns the attribute; a request that sets it is refused.
    ``mandatory``: a create body must carry a non-null value.
    ``min_version`` / ``max_version``: the microversions the attribute exists at (query
    parameters outside them are unknown; response attributes are documented as such).
    """

    json_type: str = ""

    def __init__(self, *, nullable: bool = True, readonly: bool = False,
                 mandatory: bool = False, description: str = "",
                 checks: Iterable[Check] = (), min_version: str | None = None,
                 max_version: str | None = None) -> None:
        self.nullable = nullable and not mandatory
        self.readonly = readonly
        self.mandatory = mandatory
        self.description = description
        self.checks = tuple(checks)
        self.min_version = min_version
        self.max_version = max_version

    def validate(self, value: Any) -> Any:
        """The value as the API uses it (coerced: ``"5"`` -> 5); FieldError if refused."""
        if value is None:
            if self.nullable:
                return None
            raise FieldError("Value should not be null")
        value = self.convert(value)
        for check in self.checks:
            check(value)
        return value

    def convert(self, value: Any) -> Any:
        raise NotImplementedError

    def type_schema(self) -> dict[str, Any]:
        """JSON Schema of a non-null value."""
        raise NotImplementedError

    def response(self) -> Field:
        """The field as responses show it: stored values, which older rows may have
        written under other rules, so without the request's bounds; null if unset."""
        return self

    def schema(self) -> dict[str, Any]:
        """JSON Schema of the field, null included when it is nullable."""
        result = self.type_schema()
        if self.nullable:
            if set(result) <= {"type", "format"} and isinstance(result.get("type"), str):
                result = {**result, "type": [result["type"], "null"]}
            else:
                result = {"anyOf": [result, {"type": "null"}]}
        if self.description:
            result = {**result, "description": self.description}
        if self.readonly:
            result["readOnly"] = True
        if self.min_version:
            result["x-openstack-min-version"] = self.min_version
        if self.max_version:
            result["x-openstack-max-version"] = self.max_version
        return result


class String(Field):
    json_type = "string"

    def __init__(self, max_length: int | None = 255, min_length: int = 1,
                 pattern: str | None = None, blank_is_absent: bool = False,
                 **kw: Any) -> None:
        super().__init__(**kw)
        self.max_length = max_length
        self.min_length = min_length
        self.pattern = pattern
        self.blank_is_absent = blank_is_absent
        self._regex = re.compile(pattern) if pattern else None

    def convert(self, value: Any) -> str | None:
        if not isinstance(value, str):
            raise FieldError(f"Wrong type. Expected a string, got '{_json_name(value)}'")
        if value == "" and self.blank_is_absent:
            return None
        check_text(value)
        if len(value) < self.min_length:
            raise FieldError("Value should have a minimum character requirement of "
                             f"{self.min_length}")
        if self.max_length is not None and len(value) > self.max_length:
            raise FieldError("Value should have a maximum character requirement of "
                             f"{self.max_length}")
        if self._regex is not None and not self._regex.search(value):
            raise FieldError(f"Value should match the pattern {self.pattern}")
        return value

    def document_pattern(self, pattern: str) -> None:
        """Show in the schema the pattern a grammar check attached to this field enforces
        (with the grammar's own words when it refuses), so the document says it too."""
        self.pattern = pattern

    def type_schema(self) -> dict[str, Any]:
        result: dict[str, Any] = {"type": "string"}
        if self.max_length is not None:
            result["maxLength"] = self.max_length
        if self.min_length:
            result["minLength"] = self.min_length
        if self.pattern:
            result["pattern"] = self.pattern
        return result

    def response(self) -> Field:
        return String(None, 0, description=self.description)


def check_text(value: str) -> None:
    """No NUL (PostgreSQL cannot store it) and no lone surrogate (not UTF-8 at all)."""
    if "\x00" in value:
        raise FieldError("Value should not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise FieldError("Value should be valid Unicode (a lone surrogate was given)") \
            from None


DIGITS = re.compile(r"^[+-]?[0-9]{1,19}$")


class Integer(Field):
    """A JSON integer (not a float, not a boolean) in ``[minimum, maximum]``.

    ``strings``: a decimal string is accepted too (WSME took ``"5"`` for 5; Horizon sends
    every value as a string). ``maximum`` may be a callable reading the configuration.
    """

    json_type = "integer"

    def __init__(self, minimum: int | None = 0, maximum: Bound = INT32_MAX,
                 strings: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.minimum = minimum
        self.maximum = maximum
        self.strings = strings

    def convert(self, value: Any) -> int:
        if isinstance(value, str) and self.strings and DIGITS.match(value):
            value = int(value)
        elif isinstance(value, bool) or not isinstance(value, int):
            raise FieldError(f"Wrong type. Expected an integer, got '{_json_name(value)}'")
        if self.minimum is not None and value < self.minimum:
            raise FieldError(f"Value should be greater or equal to {self.minimum}")
        maximum = _resolve(self.maximum)
        if maximum is not None and value > maximum:
            raise FieldError(f"Value should be less or equal to {maximum}")
        return value

    def type_schema(self) -> dict[str, Any]:
        number: dict[str, Any] = {"type": "integer"}
        if self.minimum is not None:
            number["minimum"] = self.minimum
        maximum = _resolve(self.maximum)
        if maximum is not None:
            number["maximum"] = maximum
        if not self.strings:
            return number
        pattern = DIGITS.pattern if self.minimum is None or maximum is None or \
            self.minimum < 0 else integer_pattern(self.minimum, maximum)
        return {"anyOf": [number, {"type": "string", "pattern": pattern}]}

    def response(self) -> Field:
        return Integer(None, None, strings=False, description=self.description)


def _same_length(low: str, high: str) -> list[str]:
    """Regular expressions matching the numbers from ``low`` to ``high`` (as many digits)."""
    if low == high:
        return [low]
    if set(low) == {"0"} and set(high) == {"9"}:
        return ["[0-9]" if len(low) == 1 else f"[0-9]{{{len(low)}}}"]
    if len(low) == 1:
        return [f"[{low}-{high}]"]
    if low[0] == high[0]:
        return [low[0] + rest for rest in _same_length(low[1:], high[1:])]
    tail = len(low) - 1
    parts = [low[0] + rest for rest in _same_length(low[1:], "9" * tail)]
    if int(high[0]) - int(low[0]) > 1:
        parts.append(f"[{int(low[0]) + 1}-{int(high[0]) - 1}]"
                     + ("[0-9]" if tail == 1 else f"[0-9]{{{tail}}}"))
    return parts + [high[0] + rest for rest in _same_length("0" * tail, high[1:])]


def integer_pattern(minimum: int, maximum: int) -> str:
    """The decimal strings :class:`Integer` takes for ``[minimum, maximum]`` (both >= 0) as
    one pattern, so the document bounds ``"5"`` as it bounds 5: an optional ``+``, leading
    zeros up to DIGITS' 19 digits, and ``-0`` when 0 is in range."""
    groups = []
    for length in range(len(str(minimum)), len(str(maximum)) + 1):
        low = max(minimum, 10 ** (length - 1) if length > 1 else 0)
        high = min(maximum, 10 ** length - 1)
        if low <= high:
            zeros = f"0{{0,{19 - length}}}"
            groups.append(zeros + "(" + "|".join(_same_length(str(low), str(high))) + ")")
    signed = ["[+]?(" + "|".join(groups) + ")"] + (["-0{1,19}"] if minimum == 0 else [])
    return "^(" + "|".join(signed) + ")$"


def _any_case(word: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in word)


_BOOL_WORDS = {"true": True, "1": True, "yes": True, "y": True, "t": True, "on": True,
               "false": False, "0": False, "no": False, "n": False, "f": False, "off": False}
_BOOL_PATTERN = "^(" + "|".join(_any_case(w) for w in _BOOL_WORDS) + ")$"
_BOOL_RE = re.compile(_BOOL_PATTERN)


def parse_bool(value: Any) -> bool:
    """A JSON boolean or one of the strict words (any case): true/false, yes/no, 1/0..."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and _BOOL_RE.match(value):
        return _BOOL_WORDS[value.lower()]
    raise FieldError(f"Unrecognized value '{clip(value)}', acceptable values are: "
                     + ", ".join(f"'{w}'" for w in sorted(_BOOL_WORDS)))


class Boolean(Field):
    json_type = "boolean"

    def convert(self, value: Any) -> bool:
        return parse_bool(value)

    def type_schema(self) -> dict[str, Any]:
        return {"anyOf": [{"type": "boolean"}, {"type": "string", "pattern": _BOOL_PATTERN}]}

    def response(self) -> Field:
        return JsonBoolean(description=self.description)


class JsonBoolean(Field):
    """A JSON boolean, nothing else (responses)."""

    def convert(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise FieldError(f"Wrong type. Expected a boolean, got '{_json_name(value)}'")
        return value

    def type_schema(self) -> dict[str, Any]:
        return {"type": "boolean"}


class Enum(Field):
    json_type = "string"

    def __init__(self, values: Sequence[str], **kw: Any) -> None:
        super().__init__(**kw)
        self.values = tuple(values)

    def convert(self, value: Any) -> str:
        if not isinstance(value, str) or value not in self.values:
            raise FieldError("Value should be one of: " + ", ".join(self.values))
        return value

    def type_schema(self) -> dict[str, Any]:
        return {"type": "string", "enum": list(self.values)}

    def response(self) -> Field:
        return Enum(self.values, description=self.description)


_UUID_PATTERN = ("^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
                 "[0-9a-fA-F]{12}$")


class Uuid(Field):
    json_type = "string"

    def convert(self, value: Any) -> str:
        if not isinstance(value, str) or len(value) > 36 or not utils.is_uuid_like(value):
            raise FieldError(f"Expected a uuid but received {clip(value)}.",
                             exception.InvalidUUID(uuid=clip(value)))
        return value

    def type_schema(self) -> dict[str, Any]:
        return {"type": "string", "format": "uuid"}

    def response(self) -> Field:
        return String(None, 0, description=self.description)


class DNSList(String):
    """A comma-separated list of IPv4 name servers."""

    def convert(self, value: Any) -> str:
        value = super().convert(value)
        for entry in value.split(","):
            try:
                ipaddress.IPv4Address(entry.strip())
            except ValueError:
                raise FieldError("invalid DNS list",
                                 exception.InvalidDNS(dns=clip(value))) from None
        return value


class Scalar(Field):
    """A label value: string, integer, boolean or finite number, stored as its string."""

    def __init__(self, max_length: int = 8192, **kw: Any) -> None:
        super().__init__(**kw)
        self.max_length = max_length

    def convert(self, value: Any) -> Any:
        if isinstance(value, str):
            check_text(value)
            if len(value) > self.max_length:
                raise FieldError("Value should have a maximum character requirement of "
                                 f"{self.max_length}")
            return value
        if not isinstance(value, (int, float)):
            raise FieldError("Wrong type. Expected '(<class 'str'>, <class 'int'>, "
                             f"<class 'bool'>, <class 'float'>)', got '{type(value)}'")
        if not (math.isfinite(value) and -NUMBER_MAX <= value <= NUMBER_MAX):
            raise FieldError(f"Value should be a number between {-NUMBER_MAX} and "
                             f"{NUMBER_MAX}")
        return value

    def type_schema(self) -> dict[str, Any]:
        return {"anyOf": [{"type": "string", "maxLength": self.max_length},
                          {"type": "boolean"},
                          {"type": "number", "minimum": -NUMBER_MAX,
                           "maximum": NUMBER_MAX}]}

    def response(self) -> Field:
        return String(None, 0, nullable=False)


class Dict(Field):
    """A JSON object; ``max_bytes`` bounds the JSON text a TEXT column stores for it."""

    json_type = "object"

    def __init__(self, keys: String, values: Field, max_properties: int | None = 256,
                 max_bytes: int = TEXT_BYTES, **kw: Any) -> None:
        super().__init__(**kw)
        self.keys = keys
        self.values = values
        self.max_properties = max_properties
        self.max_bytes = max_bytes

    def convert(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise FieldError(f"Value not a valid dict: {clip(value)}")
        if self.max_properties is not None and len(value) > self.max_properties:
            raise FieldError(f"Value should have at most {self.max_properties} keys")
        result = {}
        for key, item in value.items():
            try:
                key = self.keys.validate(key)
                result[key] = self.values.validate(item)
            except FieldError as err:
                raise FieldError(f"{clip(key)}: {err.reason}", err.exc) from None
        self.check_size(result)
        return result

    def check_size(self, value: Any) -> None:
        if encoded_size(value) > self.max_bytes:
            raise FieldError(f"Value should be at most {self.max_bytes} bytes as JSON")

    def type_schema(self) -> dict[str, Any]:
        result: dict[str, Any] = {"type": "object", "propertyNames": self.keys.type_schema(),
                                  "additionalProperties": self.values.schema()}
        if self.max_properties is not None:
            result["maxProperties"] = self.max_properties
        return result

    def response(self) -> Field:
        return Dict(String(None, 0), self.values.response(), None,
                    description=self.description)


class List(Field):
    json_type = "array"

    def __init__(self, items: Field, max_items: Bound = 256, max_bytes: int = TEXT_BYTES,
                 **kw: Any) -> None:
        super().__init__(**kw)
        self.items = items
        self.max_items = max_items
        self.max_bytes = max_bytes

    def convert(self, value: Any) -> list[Any]:
        if not isinstance(value, list):
            raise FieldError(f"Value not a valid list: {clip(value)}")
        max_items = _resolve(self.max_items)
        if max_items is not None and len(value) > max_items:
            raise FieldError(f"Value should have at most {max_items} items")
        result = []
        for index, item in enumerate(value):
            try:
                result.append(self.items.validate(item))
            except FieldError as err:
                raise FieldError(f"[{index}]: {err.reason}", err.exc) from None
        if encoded_size(result) > self.max_bytes:
            raise FieldError(f"Value should be at most {self.max_bytes} bytes as JSON")
        return result

    def type_schema(self) -> dict[str, Any]:
        result: dict[str, Any] = {"type": "array", "items": self.items.schema()}
        max_items = _resolve(self.max_items)
        if max_items is not None:
            result["maxItems"] = max_items
        return result

    def response(self) -> Field:
        return List(self.items.response(), None, description=self.description)


class Object(Field):
    """A JSON object with named properties (response views, nested request objects)."""

    json_type = "object"

    def __init__(self, properties: dict[str, Field], required: Iterable[str] = (),
                 additional: bool = False, **kw: Any) -> None:
        super().__init__(**kw)
        self.properties = properties
        self.required = tuple(required)
        self.additional = additional

    def convert(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise FieldError(f"Value not a valid dict: {clip(value)}")
        unknown = sorted(set(value) - set(self.properties))
        if unknown and not self.additional:
            raise FieldError(f"unknown attribute(s) {', '.join(map(clip, unknown))}")
        result = {}
        for name, field in self.properties.items():
            if name in value:
                try:
                    result[name] = field.validate(value[name])
                except FieldError as err:
                    raise FieldError(f"{name}: {err.reason}", err.exc) from None
            elif name in self.required:
                raise FieldError(f"{name} is required")
        return result

    def type_schema(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "type": "object",
            "properties": {name: field.schema() for name, field in self.properties.items()},
        }
        if self.required:
            result["required"] = list(self.required)
        if not self.additional:
            result["additionalProperties"] = False
        return result


class Any_(Field):
    """Any JSON value (documentation of free-form response content)."""

    def convert(self, value: Any) -> Any:
        return value

    def type_schema(self) -> dict[str, Any]:
        return {}

    def schema(self) -> dict[str, Any]:
        return {"description": self.description} if self.description else {}


class DateTime(Field):
    """An ISO 8601 timestamp with its UTC offset (responses only)."""

    json_type = "string"

    def convert(self, value: Any) -> Any:
        return value

    def type_schema(self) -> dict[str, Any]:
        return {"type": "string", "format": "date-time"}


def _json_name(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object"}.get(type(value), type(value).__name__)


def clip(value: Any, limit: int = 200) -> str:
    """A value as echoed in an error message: at most ``limit`` characters."""
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "..."
