"""Request bodies: decoding (size, media type, charset, JSON, depth) and object schemas.

Every body the API accepts goes through :func:`decode` and then a :class:`Body` subclass
(or the JSON-patch schema), before the handler reads or writes anything. The refusals keep
WSME's wording, which python-magnumclient users see: ``Unknown attribute for argument
cluster: bogus``, ``Invalid input for field/attribute name. Value: '1a'. Value should match
the pattern ...``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import orjson

from magnum_api.conf import CONF
from magnum_api.schemas import fields
from magnum_common import exception

#: Media types of JSON bodies (WSME's list).
JSON_TYPES = ("application/json", "application/javascript", "text/javascript")
#: Deepest nesting of arrays and objects in a body (a node taint list is three deep).
MAX_DEPTH = 16


class InvalidInput(exception.Invalid):
    """WSME's message for a field it refused."""

    def __init__(self, name: str, value: Any, reason: str) -> None:
        super().__init__(f"Invalid input for field/attribute {name}. Value: "
                         f"'{fields.clip(value)}'. {reason}")


class UnknownAttribute(exception.Invalid):
    def __init__(self, argname: str, names: list[str]) -> None:
        super().__init__(f"Unknown attribute for argument {argname}: "
                         + ", ".join(fields.clip(n, 64) for n in sorted(names)))


class UnknownArgument(exception.Invalid):
    def __init__(self, name: str) -> None:
        super().__init__(f'Unknown argument: "{fields.clip(name, 64)}"')


class MissingArgument(exception.Invalid):
    def __init__(self, name: str) -> None:
        super().__init__(f'Missing argument: "{name}"')


class UnsupportedMediaType(exception.Invalid):
    code = 415


class RequestTooLarge(exception.Invalid):
    code = 413
    message = "The request body is larger than %(limit)d bytes."


def field_error(name: str, value: Any, err: fields.FieldError) -> exception.MagnumException:
    """The error a refused field answers with (a field may name its own exception)."""
    return err.exc if err.exc is not None else InvalidInput(name, value, err.reason)


def read(request: Any) -> bytes:
    """The raw body, never reading more than ``[api] max_request_body_size`` bytes."""
    limit = CONF.api.max_request_body_size
    length = request.content_length
    if length is not None and length > limit:
        raise RequestTooLarge(limit=limit)
    data = request.body_file.read(limit + 1) if length is None else request.body
    if len(data) > limit:
        raise RequestTooLarge(limit=limit)
    return data


def check_media_type(request: Any) -> None:
    """JSON in UTF-8 (its default and only sane charset); anything else is 415."""
    if request.content_type not in JSON_TYPES:
        raise UnsupportedMediaType(f"Unknown mimetype: {fields.clip(request.content_type)}")
    charset = request.headers.get("Content-Type", "").partition(";")[2]
    for param in charset.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value.strip('"').lower() not in ("utf-8", "utf8"):
            raise UnsupportedMediaType(
                f"Unsupported charset: {fields.clip(value, 64)}; request bodies must be "
                "UTF-8")


def decode(request: Any, argname: str) -> Any:
    """The JSON document of a request body; 400 / 413 / 415 for anything else."""
    data = read(request)
    if not data.strip():
        raise MissingArgument(argname)
    check_media_type(request)
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise exception.Invalid("Request is not in valid JSON format") from None
    check_document(document)
    return document


def check_document(document: Any) -> None:
    """Depth and strings: no array/object nesting past MAX_DEPTH, no NUL anywhere."""
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                raise exception.Invalid("Request strings may not contain NUL characters")
            continue
        if not isinstance(value, (dict, list)):
            continue
        if depth > MAX_DEPTH:
            raise exception.Invalid(f"Request is nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            stack.extend((key, depth) for key in value)
            stack.extend((item, depth + 1) for item in value.values())
        else:
            stack.extend((item, depth + 1) for item in value)


class Body:
    """A create body: a JSON object whose attributes are the class's fields.

    Subclasses declare ``argname`` (the name WSME used in messages) and their attributes
    as :class:`fields.Field` class attributes, in the order they are documented.
    """

    argname: ClassVar[str] = "body"
    description: ClassVar[str] = ""
    attributes: ClassVar[dict[str, fields.Field]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        attributes = dict(getattr(cls, "attributes", {}))
        for name, value in list(vars(cls).items()):
            if isinstance(value, fields.Field):
                attributes[name] = value
        cls.attributes = attributes

    @classmethod
    def parse(cls, document: Any) -> dict[str, Any]:
        """The attributes sent (``null`` included, as None), validated and coerced."""
        if not isinstance(document, dict):
            raise InvalidInput(cls.argname, document, "Value not a valid dict")
        unknown = [key for key in document if key not in cls.attributes]
        if unknown:
            raise UnknownAttribute(cls.argname, unknown)
        values: dict[str, Any] = {}
        for name, field in cls.attributes.items():
            if name not in document:
                if field.mandatory:
                    raise InvalidInput(name, None, "Mandatory field missing.")
                continue
            raw = document[name]
            if field.readonly:
                raise InvalidInput(name, raw, "Cannot set read only field.")
            if raw is None and field.mandatory:
                raise InvalidInput(name, None, "Mandatory field missing.")
            values[name] = cls.validate_one(name, raw)
        return values

    @classmethod
    def validate_one(cls, name: str, value: Any) -> Any:
        """One attribute (also how a JSON patch's result is re-checked)."""
        try:
            return cls.attributes[name].validate(value)
        except fields.FieldError as err:
            raise field_error(name, value, err) from None

    @classmethod
    def response_fields(cls, names: tuple[str, ...]) -> dict[str, fields.Field]:
        """The response form of attributes (see :meth:`fields.Field.response`)."""
        return {name: cls.attributes[name].response() for name in names}

    @classmethod
    def writable(cls) -> dict[str, fields.Field]:
        return {k: f for k, f in cls.attributes.items() if not f.readonly}

    @classmethod
    def schema(cls) -> dict[str, Any]:
        """JSON Schema of the body (read-only attributes are listed as such)."""
        result: dict[str, Any] = {
            "type": "object",
            "properties": {k: f.schema() for k, f in cls.writable().items()},
            "additionalProperties": False,
        }
        required = [k for k, f in cls.attributes.items() if f.mandatory]
        if required:
            result["required"] = required
        if cls.description:
            result["description"] = cls.description
        return result
