"""Helpers every v1 handler uses: context, the validated request, responses, paging."""

from __future__ import annotations

import urllib.parse
from typing import Any

import orjson
import pecan
import webob
from pecan import rest

from magnum_api import microversion, policy, routing_cache
from magnum_api.conf import CONF
from magnum_api.schemas import fields, types
from magnum_api.schemas.operation import Response, operation, validated
from magnum_common import exception, utils

__all__ = ["Response", "operation"]



class RestController(rest.RestController):
    """pecan's RestController for an app that uses pecan's thread-local request.

    pecan asks, five times per request, whether the thread-local request exists (reading
    ``request.path``, which re-quotes the URL) to decide how many leading handler
    arguments to skip. Here it always does: skip ``self``.
    """

    def _get_args_for_controller(self, controller):
        return routing_cache.getargspec(controller).args[1:]


def expose():
    """pecan's expose for routing hooks (``_route``); handlers use :func:`operation`."""
    return pecan.expose(content_type="application/json")


def context():
    return pecan.request.context


def version() -> microversion.Version:
    return pecan.request.environ[microversion.ENVIRON_KEY]


def body() -> Any:
    """The request body, validated against the handler's declared schema."""
    return validated().body


def query() -> dict[str, Any]:
    """The query parameters, validated against the handler's declaration."""
    return validated().query


def base_url() -> str:
    return pecan.request.application_url


def _json_default(value: Any) -> Any:
    """What the standard json module also encodes: tuple subclasses (named tuples)."""
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def respond(body: Any, status: int = 200, headers: dict[str, str] | None = None
            ) -> webob.Response:
    """A JSON response (orjson: a page of 1,000 templates encodes in 0.4 ms, not 7 ms)."""
    encoded = orjson.dumps(body, default=_json_default, option=orjson.OPT_NON_STR_KEYS)
    response = webob.Response(body=encoded, status=status, content_type="application/json",
                              charset=None)
    if headers:
        response.headers.update(headers)
    return response


def no_content(headers: dict[str, str] | None = None) -> webob.Response:
    response = webob.Response(status=204)
    response.content_type = None
    if headers:
        response.headers.update(headers)
    return response


#: The response header that names the operation record a request created (an extension:
#: ``GET /v1/clusters/{ident}/operations/{uuid}`` shows it).
OPERATION_HEADER = "OpenStack-Magnum-Operation"


def accepted(body: Any, operation_uuid: str, status: int = 202) -> webob.Response:
    """The answer to an accepted request: its body, and the record that tracks it."""
    return respond(body, status=status, headers={OPERATION_HEADER: operation_uuid})


def accepted_delete(operation_uuid: str) -> webob.Response:
    return no_content({OPERATION_HEADER: operation_uuid})


def accepted_response(description: str, schema: Any = None) -> Response:
    """The OpenAPI side of :func:`accepted`."""
    return Response(description, schema, (OPERATION_HEADER,))


class Limit(fields.Integer):
    """``limit``: a positive integer; values above ``[api] max_limit`` are capped."""

    def __init__(self) -> None:
        super().__init__(1, None, description="Page size (capped at [api] max_limit).")

    def convert(self, value: Any) -> int:
        try:
            return super().convert(value)
        except fields.FieldError as err:
            if isinstance(value, str) and fields.DIGITS.match(value):
                raise fields.FieldError(err.reason, exception.Invalid(
                    "Limit must be positive")) from None
            raise fields.FieldError("unable to convert to int") from None


class Marker(fields.Field):
    """``marker``: the last item's UUID (quotas: its integer id)."""

    def __init__(self, integer: bool = False) -> None:
        super().__init__(description="The last item of the previous page.")
        self.integer = integer

    def convert(self, value: Any) -> Any:
        if self.integer:
            if not fields.DIGITS.match(value) or not 0 <= int(value) <= fields.INT32_MAX:
                raise fields.FieldError("unable to convert to int")
            return int(value)
        if len(value) > 36 or not utils.is_uuid_like(value):
            raise fields.FieldError("unable to convert to uuid. Error: Expected a uuid but "
                                    f"received {fields.clip(value)}.")
        return value

    def type_schema(self) -> dict[str, Any]:
        if self.integer:
            return {"type": "integer", "minimum": 0, "maximum": fields.INT32_MAX}
        return {"type": "string", "format": "uuid"}


class SortDir(fields.Enum):
    def __init__(self) -> None:
        super().__init__(("asc", "desc"), description="Default asc.")

    def convert(self, value: Any) -> str:
        if value not in self.values:
            raise fields.FieldError("sort_dir", exception.Invalid(
                f"Invalid sort direction: {fields.clip(value)}. Acceptable values are 'asc' "
                "or 'desc'"))
        return value


def page_params(integer_marker: bool = False, **extra: fields.Field) -> dict[str, fields.Field]:
    """The query parameters of a paginated collection (plus ``extra``)."""
    return {"limit": Limit(), "marker": Marker(integer_marker),
            "sort_key": types.string(description="A column; default id."),
            "sort_dir": SortDir(), **extra}


class Page:
    """``limit``, ``marker``, ``sort_key``, ``sort_dir`` of a collection request."""

    __slots__ = ("limit", "marker", "sort_key", "sort_dir")

    def __init__(self, params: dict[str, Any]) -> None:
        self.limit = min(params.get("limit") or CONF.api.max_limit, CONF.api.max_limit)
        self.marker = params.get("marker")
        self.sort_key = params.get("sort_key", "id")
        self.sort_dir = params.get("sort_dir", "asc")

    @property
    def bounds(self) -> dict[str, Any]:
        """The page as the repositories' keywords (``limit``, ``marker``, ``sort_key``,
        ``sort_dir``)."""
        return {name: getattr(self, name) for name in self.__slots__}

    def collection(self, name: str, items: list[dict], path: str, last_marker: Any,
                   extra: dict[str, str] | None = None) -> dict[str, Any]:
        """``{name: items}`` plus an absolute ``next`` link when the page is full."""
        body: dict[str, Any] = {name: items}
        if items and len(items) == self.limit:
            query = {"sort_key": self.sort_key, "sort_dir": self.sort_dir,
                     "limit": self.limit, "marker": last_marker, **(extra or {})}
            body["next"] = f"{base_url()}/v1/{path}?{urllib.parse.urlencode(query)}"
        return body


def listing(rule: str, widen: bool = True) -> tuple[Page, Any]:
    """A collection request's page and the caller's context, once ``rule`` lets the caller
    list; with ``widen``, an admin whose ``<rule>_all_projects`` passes sees every project."""
    page = Page(query())
    ctx = context()
    policy.authorize(ctx, rule)
    if widen:
        policy.widen_for_admin(ctx, rule + "_all_projects")
    return page, ctx
