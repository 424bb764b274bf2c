"""Operations: what each handler accepts and answers, declared next to the handler.

A handler is exposed with :func:`operation`, which names its method and path, its path
and query parameters, its body schema, its microversion and its responses. The
validation hook checks every request against that declaration before the handler runs
(microversion, path parameters, query, body), and the OpenAPI document is built from the
same declarations, so both always agree.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from collections.abc import Callable
from typing import Any

import pecan

from magnum_api import microversion
from magnum_api.schemas import base, fields
from magnum_common import exception

#: Where the validated request is kept for the handler (see :func:`validated`).
ENVIRON_KEY = "magnum.api.validated"
#: The operation a request was routed to (kept even when the request is then refused).
MATCHED_KEY = "magnum.api.operation"
_PARAM = re.compile(r"{(\w+)}")


@dataclasses.dataclass(frozen=True)
class Response:
    description: str
    schema: fields.Field | None = None
    headers: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, eq=False)
class Operation:
    method: str
    path: str
    summary: str
    tag: str
    responses: dict[int, Response]
    #: A :class:`base.Body` subclass, or any object with ``parse``/``schema``/``argname``.
    body: Any = None
    #: False: an empty body is accepted (quota PATCH).
    body_required: bool = True
    query: dict[str, fields.Field] = dataclasses.field(default_factory=dict)
    path_params: dict[str, fields.Field] = dataclasses.field(default_factory=dict)
    min_version: microversion.Version | None = None
    #: The 4xx/5xx statuses the operation may answer besides validation's 400.
    errors: tuple[int, ...] = ()
    public: bool = False
    policy: tuple[str, ...] = ()
    description: str = ""

    @property
    def operation_id(self) -> str:
        words = [w.strip("{}").replace(".", "_") for w in self.path.split("/") if w]
        return "_".join([self.method.lower(), *words]) or self.method.lower()

    def path_names(self) -> list[str]:
        return _PARAM.findall(self.path)


#: Every declared operation, in declaration order.
REGISTRY: list[Operation] = []

#: Path parameters are names or UUIDs of rows whose columns hold 255 characters.
IDENT = fields.String(255, nullable=False, description="UUID or name.")


def operation(method: str, path: str, summary: str, tag: str, **kw: Any) -> Callable:
    """Expose a handler as ``method path`` (pecan routes it; the hook validates it)."""
    def wrap(func: Callable) -> Callable:
        params = [p for p in inspect.signature(func).parameters.values()
                  if p.kind is p.POSITIONAL_OR_KEYWORD][1:]
        spec = Operation(method, path, summary, tag, **kw)
        declared = spec.path_names()
        if [p.name for p in params] != declared:
            raise TypeError(f"{func.__qualname__}: path {path} names {declared}, the handler "
                            f"takes {[p.name for p in params]}")
        REGISTRY.append(spec)
        func.operation = spec
        return pecan.expose(content_type="application/json")(func)
    return wrap


@dataclasses.dataclass
class Validated:
    path: dict[str, str]
    query: dict[str, Any]
    body: Any


def validated() -> Validated:
    return pecan.request.environ[ENVIRON_KEY]


def check(spec: Operation, request: Any, args: list[Any], varargs: list[Any],
          version: microversion.Version) -> Validated:
    """Everything about a request that can be checked without the database."""
    names = spec.path_names()
    if "_method" in request.GET:  # pecan's method override: not part of this API
        raise base.UnknownArgument("_method")
    # A method the path does not have is 405 at every microversion (before the 406).
    literal = _literal_path(spec, args, varargs)
    if literal is not None:
        raise _allowed_on(literal)
    if request.method != spec.method:  # e.g. "get": methods are case-sensitive
        raise method_not_allowed(spec, len(args))
    if len(args) < len(names):
        raise method_not_allowed(spec, len(args))
    if varargs:
        if spec.method == "POST":  # POST to an item
            raise method_not_allowed(spec, len(args), extra=len(varargs))
        raise exception.ResourceNotFound()
    if spec.min_version is not None and version < spec.min_version:
        from magnum_api import errors

        raise errors.RoutingError(406)
    path = {}
    for name, value in zip(names, args[:len(names)], strict=True):
        field = spec.path_params.get(name, IDENT)
        try:
            path[name] = field.validate(value)
        except fields.FieldError as err:
            raise base.field_error(name, value, err) from None
    return Validated(path, check_query(spec, request, version), check_body(spec, request))


def _literal_path(spec: Operation, args: list[Any], varargs: list[Any]) -> str | None:
    """A declared literal path (``/v1/clusters/detail``) that the request reached through
    another operation's parameter or remainder (a PATCH or POST there): it has its own
    methods, so the answer is theirs (405), not a lookup of a resource named ``detail``."""
    values = iter(str(a) for a in args)
    segments = [next(values, s) if s.startswith("{") else s for s in spec.path.split("/")]
    concrete = "/".join(segments + [str(v) for v in varargs])
    if concrete == spec.path or concrete not in _literal_paths():
        return None
    return concrete


@functools.cache
def _literal_paths() -> frozenset[str]:
    """Paths without parameters (built once, after every controller declared its own)."""
    return frozenset(op.path for op in REGISTRY if "{" not in op.path)


def check_query(spec: Operation, request: Any, version: microversion.Version
                ) -> dict[str, Any]:
    """Query parameters; unknown ones (or ones of another microversion) are a 400."""
    result: dict[str, Any] = {}
    for key, value in request.GET.items():
        field = spec.query.get(key)
        if field is None or not _in_version(field, version):
            raise base.UnknownArgument(key)
        try:
            result[key] = field.validate(value)
        except fields.FieldError as err:
            raise base.field_error(key, value, err) from None
    return result


def check_body(spec: Operation, request: Any) -> Any:
    if spec.body is None:
        return None
    if not spec.body_required and not base.read(request).strip():
        return {}
    return spec.body.parse(base.decode(request, spec.body.argname))


def _in_version(field: fields.Field, version: microversion.Version) -> bool:
    if field.min_version and version < microversion.Version(*map(int, field.min_version
                                                                  .split("."))):
        return False
    return not (field.max_version and version > microversion.Version(
        *map(int, field.max_version.split("."))))


def method_not_allowed(spec: Operation, given: int, extra: int = 0) -> Exception:
    """A method used on a path it does not exist on: 405 naming the ones that do.

    ``given`` path parameters were sent, and ``extra`` segments past the operation's path
    (a POST to ``/v1/clusters/{ident}``: the item path's methods, whatever its parameters'
    names)."""

    segments = spec.path.split("/")
    kept, seen = [], 0
    for segment in segments:
        if segment.startswith("{"):
            if seen == given:
                break
            seen += 1
        kept.append(segment)
    prefix = "/".join(kept)
    if extra:
        item_path = re.compile(re.escape(prefix) + r"/{\w+}" * extra + "$")
        prefix = next((op.path for op in REGISTRY if item_path.match(op.path)), "")
    return _allowed_on(prefix)


def allowed_methods(path: str) -> list[str]:
    """The methods a concrete request path has (a literal path such as
    ``/v1/clusters/detail`` before the ``{ident}`` it also matches); [] for none."""
    path = path.rstrip("/") or "/"
    if path in _literal_paths():
        return sorted({op.method for op in REGISTRY if op.path == path})
    for template in sorted({op.path for op in REGISTRY}):
        pattern = re.sub(r"\\{\w+\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, path):
            return sorted({op.method for op in REGISTRY if op.path == template})
    return []


def _allowed_on(path: str) -> Exception:
    """405 naming the methods ``path`` has (404 if it has none)."""
    import webob.exc

    allowed = sorted({op.method for op in REGISTRY if op.path == path})
    if not allowed:
        return exception.ResourceNotFound()
    return webob.exc.HTTPMethodNotAllowed(headers={"Allow": ", ".join(allowed)})
