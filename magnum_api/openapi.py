"""The OpenAPI 3.1 document of the API, built from the operations the handlers declare.

Every path, method, parameter, body and response below comes from the same
:mod:`magnum_api.schemas` objects the validation hook checks requests with, so the
document describes what the API enforces. The API serves it at ``GET /v1/openapi.json``
(no token needed); ``python -m magnum_api.openapi`` prints it (the checked-in copy is
``doc/source/api/openapi.json``, built with the default configuration).
"""

from __future__ import annotations

import functools
import json
import sys
from typing import Any

from magnum_api import microversion
from magnum_api.schemas import base, fields, operation, types

HTTP_METHODS = ("GET", "POST", "PATCH", "PUT", "DELETE")
MICROVERSIONS = [f"container-infra {microversion.Version(1, minor)}"
                 for minor in range(microversion.MIN_VERSION.minor,
                                    microversion.MAX_VERSION.minor + 1)]

_ERROR_ITEM = fields.Object({
    "request_id": fields.String(None, 0, nullable=False),
    "code": fields.String(None, 0, nullable=False,
                          description="client (4xx), server (5xx), or empty for routing."),
    "status": fields.Integer(None, None, strings=False, nullable=False),
    "title": fields.String(None, 0, nullable=False,
                           description="The message up to its first period."),
    "detail": fields.String(None, 0, nullable=False),
    "links": fields.List(fields.Any_(), None, nullable=False),
}, required=("request_id", "code", "status", "title", "detail", "links"), nullable=False)
_VERSION_ITEM = fields.Object({
    "code": fields.Enum(("magnum.microversion-unsupported",), nullable=False),
    "title": fields.String(None, 0, nullable=False),
    "min_version": fields.String(None, 0, nullable=False),
    "max_version": fields.String(None, 0, nullable=False),
    "links": fields.List(fields.Any_(), None, nullable=False),
}, required=("code", "title", "min_version", "max_version", "links"), nullable=False)
ERROR = {"type": "object", "required": ["errors"], "additionalProperties": False,
         "properties": {"errors": {"type": "array", "minItems": 1, "maxItems": 1,
                                   "items": {"anyOf": [_ERROR_ITEM.schema(),
                                                       _VERSION_ITEM.schema()]}}},
         "description": "The Magnum error envelope (API reference, section 4)."}
ERROR_TEXT = {
    400: "Invalid input (the detail names the field).",
    401: "No valid token (Keystone mode).",
    403: "Not allowed by policy.",
    404: "No such resource (or not visible to the caller's project).",
    406: "Malformed OpenStack-API-Version, or a version outside 1.1 to 1.14 (or below the "
         "operation's).",
    409: "Conflict with the resource's state or another request.",
    413: "The body is larger than [api] max_request_body_size.",
    415: "The body is not JSON in UTF-8.",
    503: "The message broker, a conductor or another service is unreachable.",
}


#: Links that no path nesting shows: the UUID a create answers is what another operation
#: takes in its body or under another path. (source, target, link name, parameters, body)
CROSS_LINKS = (
    ("post_v1_clustertemplates", "post_v1_clusters", "ClusterOfTemplate", {},
     {"cluster_template_id": "$response.body#/uuid"}),
    ("post_v1_clusters", "post_v1_certificates", "SignForCluster", {},
     {"cluster_uuid": "$response.body#/uuid"}),
    ("post_v1_clusters", "post_v1_federations", "FederationHostedBy", {},
     {"hostcluster_id": "$response.body#/uuid"}),
    ("post_v1_clusters", "get_v1_certificates_cluster_ident", "CaOfCluster",
     {"cluster_ident": "$response.body#/uuid"}, None),
    ("post_v1_clusters", "patch_v1_certificates_cluster_ident", "RotateCaOfCluster",
     {"cluster_ident": "$response.body#/uuid"}, None),
    ("post_v1_clusters", "patch_v1_credentials_cluster_ident", "RotateCredentialOfCluster",
     {"cluster_ident": "$response.body#/uuid"}, None),
    *(("post_v1_quotas", f"{method}_v1_quotas_project_id_resource",
       f"{method.capitalize()}Quota",
       {"project_id": "$response.body#/project_id", "resource": "$response.body#/resource"},
       None) for method in ("get", "patch", "delete")),
)


def _links(specs: list[operation.Operation]) -> dict[tuple[str, int], dict[str, Any]]:
    """OpenAPI links of each create (operation id, status): the UUID it answers names the
    resource in every path under the collection; other path parameters come from the
    create's own path. Clients (and schemathesis's stateful phase) follow them."""
    by_id = {spec.operation_id: spec for spec in specs}
    result: dict[tuple[str, int], dict[str, Any]] = {}
    for spec in specs:
        created = [s for s, r in spec.responses.items() if 200 <= s < 300
                   and r.schema is not None and "uuid" in r.schema.schema().get("properties",
                                                                                 {})]
        if spec.method != "POST" or spec.path.endswith("}") or not created:
            continue
        own = set(spec.path_names())
        links = result.setdefault((spec.operation_id, created[0]), {})
        for target in specs:
            rest = target.path.removeprefix(spec.path + "/")
            if rest == target.path or not rest.startswith("{"):
                continue
            new = [n for n in target.path_names() if n not in own]
            if len(new) != 1 or not rest.startswith("{" + new[0] + "}"):
                continue
            parameters = {new[0]: "$response.body#/uuid"}
            parameters.update({n: f"$request.path.{n}" for n in target.path_names()
                               if n in own})
            name = "".join(w.capitalize() for w in target.operation_id.split("_"))
            links[name] = {"operationId": target.operation_id, "parameters": parameters}
    for source, target, name, parameters, body in CROSS_LINKS:
        if source in by_id and target in by_id:
            spec = by_id[source]
            status = min(s for s in spec.responses if 200 <= s < 300)
            link: dict[str, Any] = {"operationId": target}
            if parameters:
                link["parameters"] = parameters
            if body:
                link["requestBody"] = body
            result.setdefault((source, status), {})[name] = link
    return {key: value for key, value in result.items() if value}


def _error_response(status: int) -> dict[str, Any]:
    return {"description": ERROR_TEXT[status],
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _parameter(name: str, where: str, field: fields.Field, required: bool) -> dict[str, Any]:
    schema = field.type_schema()
    result: dict[str, Any] = {"name": name, "in": where, "required": required,
                              "schema": schema}
    if field.description:
        result["description"] = field.description
    if field.min_version:
        result["x-openstack-min-version"] = field.min_version
    return result


def _errors(spec: operation.Operation) -> list[int]:
    statuses = {400, 406}  # every operation validates its query; every path takes the header
    if not spec.public:
        statuses |= {401, 403}
    if spec.path_names() or "marker" in spec.query:  # a marker names a row too
        statuses.add(404)
    if spec.body is not None:
        statuses |= {413, 415}
    statuses.update(spec.errors)
    return sorted(statuses)


def _microversion(minimum: microversion.Version | None) -> dict[str, Any]:
    """The shared header, or for an operation added by a later microversion the header it
    needs: required, naming only the versions that have the operation (any other is 406)."""
    if minimum is None:
        return {"$ref": "#/components/parameters/Microversion"}
    return {"name": microversion.HEADER, "in": "header", "required": True,
            "description": f"The microversion: {minimum} or later (406 otherwise, and "
                           "without the header).",
            "schema": {"type": "string",
                       "enum": [v for v in MICROVERSIONS
                                if microversion.Version(1, int(v.rsplit(".", 1)[1]))
                                >= minimum] + ["container-infra latest"]}}


def _description(spec: operation.Operation) -> str:
    parts = [spec.description] if spec.description else []
    if spec.min_version is not None:
        parts.append(f"Since microversion {spec.min_version} (406 below).")
    if spec.policy:
        parts.append("Policy: " + ", ".join(f"``{rule}``" for rule in spec.policy) + ".")
    return " ".join(parts)


def _operation(spec: operation.Operation,
               links: dict[tuple[str, int], dict[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {"operationId": spec.operation_id, "summary": spec.summary,
                              "tags": [spec.tag]}
    description = _description(spec)
    if description:
        result["description"] = description
    parameters = [_parameter(name, "path", spec.path_params.get(name, operation.IDENT), True)
                  for name in spec.path_names()]
    parameters += [_parameter(name, "query", field, False)
                   for name, field in spec.query.items()]
    if spec.path != "/":
        parameters.append(_microversion(spec.min_version))
    if parameters:
        result["parameters"] = parameters
    if spec.body is not None:
        result["requestBody"] = {"required": spec.body_required, "content": {
            "application/json": {"schema": spec.body.schema()}}}
    responses: dict[str, Any] = {}
    for status, response in sorted(spec.responses.items()):
        entry: dict[str, Any] = {"description": response.description}
        if response.schema is not None:
            entry["content"] = {"application/json": {"schema": response.schema.schema()}}
        if (spec.operation_id, status) in links:
            entry["links"] = links[spec.operation_id, status]
        if response.headers:
            entry["headers"] = {name: {"required": True, "schema": {"type": "string"}}
                                for name in response.headers}
        responses[str(status)] = entry
    for status in _errors(spec):
        responses[str(status)] = _error_response(status)
    result["responses"] = responses
    result["security"] = [] if spec.public else [{"keystone": []}]
    if spec.min_version is not None:
        result["x-openstack-min-version"] = str(spec.min_version)
    return result


def _operations() -> list[operation.Operation]:
    """Every operation the loaded controllers declare (the API and ``__main__`` load them)."""
    order = {method: i for i, method in enumerate(HTTP_METHODS)}
    return sorted(operation.REGISTRY, key=lambda op: (op.path, order[op.method]))


def build() -> dict[str, Any]:
    """The document, with the maxima of the current configuration."""
    paths: dict[str, Any] = {}
    tags: list[str] = []
    specs = _operations()
    links = _links(specs)
    for spec in specs:
        paths.setdefault(spec.path, {})[spec.method.lower()] = _operation(spec, links)
        if spec.tag not in tags:
            tags.append(spec.tag)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Magnum container-infra API",
            "version": str(microversion.MAX_VERSION),
            "description": (
                "OpenStack Magnum's REST API v1 (microversions "
                f"{microversion.MIN_VERSION} to {microversion.MAX_VERSION}). Generated from "
                "the schemas the API validates requests with. Strings never contain NUL or "
                "lone surrogates; an integer is written without a fraction or exponent (2, "
                "not 2.0, which JSON Schema counts as an integer too); request bodies are "
                "JSON in UTF-8, at most [api] "
                "max_request_body_size bytes, nested at most "
                f"{base.MAX_DEPTH} levels; node counts are at most [api] max_node_count "
                f"({types.max_node_count()} here)."),
        },
        "tags": [{"name": tag} for tag in tags],
        "paths": paths,
        "components": {
            "schemas": {"Error": ERROR},
            "parameters": {"Microversion": {
                "name": microversion.HEADER, "in": "header", "required": False,
                "description": "The microversion (default 1.1; latest: "
                               f"{microversion.MAX_VERSION}).",
                "schema": {"type": "string",
                           "enum": [*MICROVERSIONS, "container-infra latest"]}}},
            "securitySchemes": {"keystone": {"type": "apiKey", "in": "header",
                                             "name": "X-Auth-Token"}},
        },
    }


@functools.cache
def served() -> bytes:
    """The document as the API serves it (built once per process)."""
    return dump(build()).encode()


def dump(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


def main() -> None:
    from magnum_common import config

    config.parse_args([], default_config_files=[])
    sys.stdout.write(dump(build()))


if __name__ == "__main__":
    # Run as a script this module is __main__, not the magnum_api.openapi the controllers
    # import: loading them here declares every operation without an import cycle.
    from magnum_api.controllers import root  # noqa: F401
    main()
