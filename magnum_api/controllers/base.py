"""Helpers every v1 handler uses: context, body parsing, query checks, responses, paging."""

from __future__ import annotations

import urllib.parse
from typing import Any

import orjson
import pecan
import webob
from oslo_config import cfg
from pecan import rest
from wsme import exc as wsme_exc
from wsme import types as wtypes
from wsme.rest import json as wsjson

from magnum_api import errors, microversion, routing_cache
from magnum_common import utils
from magnum_common.context import RequestContext

CONF = cfg.CONF

api_opts = [
    cfg.IntOpt("max_limit", default=1000, min=1,
               help="The maximum number of items returned in a single response from a "
               "collection resource."),
]
CONF.register_opts(api_opts, group="api")

_JSON_TYPES = frozenset(wsjson.accept_content_types)


class RestController(rest.RestController):
    """pecan's RestController for an app that uses pecan's thread-local request.

    pecan asks, five times per request, whether the thread-local request exists (reading
    ``request.path``, which re-quotes the URL) to decide how many leading handler
    arguments to skip. Here it always does: skip ``self``.
    """

    def _get_args_for_controller(self, controller):
        return routing_cache.getargspec(controller).args[1:]


def expose():
    """pecan's expose for JSON handlers (the Accept header is not negotiated)."""
    return pecan.expose(content_type="application/json")


def context() -> RequestContext:
    return pecan.request.context


def version() -> microversion.Version:
    return pecan.request.environ[microversion.ENVIRON_KEY]


def require_version(minimum: microversion.Version) -> None:
    """Methods introduced by a microversion do not exist below it: plain 406."""
    if version() < minimum:
        raise errors.RoutingError(406)


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


def no_content() -> webob.Response:
    response = webob.Response(status=204)
    response.content_type = None
    return response


def parse_body(datatype: Any, argname: str) -> Any:
    """Decode and type-check a JSON body with WSME, as upstream did (same messages)."""
    request = pecan.request
    body = request.body
    if not body:
        raise wsme_exc.MissingArgument(argname)
    mimetype = request.content_type
    if mimetype not in _JSON_TYPES:
        raise wsme_exc.ClientSideError(f"Unknown mimetype: {mimetype}", status_code=415)
    return wsjson.parse(body, {argname: datatype}, bodyarg=True)[argname]


def parse_object(datatype: type, argname: str) -> tuple[Any, dict[str, Any]]:
    """A complex body: the WSME object and the attributes sent (``null`` included)."""
    obj = parse_body(datatype, argname)
    if not isinstance(obj, wtypes.Base):
        raise wsme_exc.InvalidInput(argname, obj, "Value is not an object")
    for attr in wtypes.list_attributes(datatype):
        if attr.mandatory and getattr(obj, attr.key) is None:
            raise wsme_exc.InvalidInput(attr.name, None, "Mandatory field missing.")
    from magnum_api.schemas.types import values_of

    return obj, values_of(obj)


def check_query(allowed: tuple[str, ...] = ()) -> dict[str, str]:
    """The query string; unknown parameters are a 400, as with WSME (repeated: last wins).

    (pecan also hands JSON body members to handlers as keyword arguments, so handlers
    read their query through this function, never through their ``**kwargs``.)
    """
    result = {}
    for key, value in pecan.request.GET.items():
        if key not in allowed:
            raise wsme_exc.UnknownArgument(key)
        result[key] = value[-1] if isinstance(value, list) else value
    return result


def query_bool(params: dict[str, str], name: str, default: bool = False) -> bool:
    from magnum_api.schemas.types import BooleanType

    if name not in params:
        return default
    try:
        return BooleanType.validate(params[name])
    except ValueError as err:
        raise wsme_exc.InvalidInput(name, params[name], str(err)) from None


class Page:
    """``limit``, ``marker``, ``sort_key``, ``sort_dir`` of a collection request."""

    __slots__ = ("limit", "marker", "sort_key", "sort_dir")

    def __init__(self, params: dict[str, str], integer_marker: bool = False) -> None:
        limit = params.get("limit")
        if limit is not None:
            try:
                limit = int(limit)
            except ValueError:
                raise wsme_exc.InvalidInput("limit", limit, "unable to convert to int") \
                    from None
            if limit <= 0:
                raise wsme_exc.ClientSideError("Limit must be positive")
            limit = min(limit, CONF.api.max_limit)
        self.limit = limit or CONF.api.max_limit
        marker = params.get("marker")
        if marker is not None:
            if integer_marker:
                try:
                    marker = int(marker)
                except ValueError:
                    raise wsme_exc.InvalidInput("marker", marker, "unable to convert to int") \
                        from None
            elif not utils.is_uuid_like(marker):
                raise wsme_exc.InvalidInput(
                    "marker", marker, "unable to convert to uuid. Error: Expected a uuid but "
                    f"received {marker}.")
        self.marker = marker
        self.sort_key = params.get("sort_key", "id")
        self.sort_dir = params.get("sort_dir", "asc")
        if self.sort_dir not in ("asc", "desc"):
            raise wsme_exc.ClientSideError(
                f"Invalid sort direction: {self.sort_dir}. Acceptable values are 'asc' or "
                "'desc'")

    def collection(self, name: str, items: list[dict], path: str, last_marker: Any,
                   extra: dict[str, str] | None = None) -> dict[str, Any]:
        """``{name: items}`` plus an absolute ``next`` link when the page is full."""
        body: dict[str, Any] = {name: items}
        if items and len(items) == self.limit:
            query = {"sort_key": self.sort_key, "sort_dir": self.sort_dir,
                     "limit": self.limit, "marker": last_marker, **(extra or {})}
            body["next"] = f"{base_url()}/v1/{path}?{urllib.parse.urlencode(query)}"
        return body


def list_opts():
    return [("api", api_opts)]
