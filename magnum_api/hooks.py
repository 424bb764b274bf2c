"""pecan hooks: the request context, request validation, error rendering and the
microversion headers."""

from __future__ import annotations

import logging

import webob.exc
from pecan import hooks
from webob import acceptparse

from magnum_api import errors, microversion, policy
from magnum_api.schemas import operation
from magnum_common import exception
from magnum_common.context import RequestContext

LOG = logging.getLogger(__name__)
ROUTING_ERROR = "magnum.api.routing_error"
JSON = "application/json"


class ContextHook(hooks.PecanHook):
    """Builds the RequestContext from the identity headers keystonemiddleware sets."""

    priority = 10

    def on_route(self, state) -> None:
        """Every response is JSON: an ``Accept`` header that rules JSON out is a plain 406
        (as upstream's routing answers it), an empty or absent one accepts anything."""
        accept = state.request.headers.get("Accept", "").strip()
        if accept and not acceptparse.create_accept_header(accept).acceptable_offers(
                [JSON]) and not accept.startswith(JSON):  # parameters: as pecan does
            raise webob.exc.HTTPNotAcceptable()
        state.request.pecan["content_type"] = JSON

    def before(self, state) -> None:
        headers = state.request.headers
        environ = state.request.environ
        roles = headers.get("X-Roles", "")
        ctx = RequestContext(
            auth_token=headers.get("X-Auth-Token"),
            user_id=headers.get("X-User-Id"),
            project_id=headers.get("X-Project-Id"),
            user_name=headers.get("X-User-Name"),
            project_name=headers.get("X-Project-Name"),
            user_domain_id=headers.get("X-User-Domain-Id"),
            user_domain_name=headers.get("X-User-Domain-Name"),
            project_domain_id=headers.get("X-Project-Domain-Id"),
            roles=[r.strip() for r in roles.split(",") if r.strip()],
            auth_token_info=environ.get("keystone.token_info"),
            request_id=environ.get("openstack.request_id"),
        )
        ctx.is_admin = policy.is_admin(ctx)
        state.request.context = ctx


class ValidationHook(hooks.PecanHook):
    """Checks the request against the handler's declared operation before it runs."""

    priority = 15

    def before(self, state) -> None:
        spec = getattr(state.controller, "operation", None)
        if spec is None:
            raise webob.exc.HTTPNotFound()
        environ = state.request.environ
        environ[operation.MATCHED_KEY] = spec
        version = environ.get(microversion.ENVIRON_KEY, microversion.MIN_VERSION)
        environ[operation.ENVIRON_KEY] = operation.check(
            spec, state.request, list(state.arguments.args), list(state.arguments.varargs),
            version)


class ErrorHook(hooks.PecanHook):
    """Renders handler errors into the error envelope with the right status."""

    priority = 20

    def on_error(self, state, e: Exception):
        environ = state.request.environ
        if isinstance(e, webob.exc.HTTPException):
            environ[ROUTING_ERROR] = True
            return None
        if isinstance(e, errors.RoutingError):
            environ[ROUTING_ERROR] = True
            return errors.json_response(e.status, errors.envelope(e.status), environ)
        if isinstance(e, microversion.UnsupportedVersion):
            return errors.json_response(406, errors.unsupported_version_body(), environ)
        if isinstance(e, exception.MagnumException):
            status, message = e.code, e.format_message()
            if status >= 500:
                LOG.error("Request failed: %s", message)
        else:
            LOG.exception("Unexpected error serving %s %s", state.request.method,
                          state.request.path)
            status, message = 500, "An unexpected error prevented the server from " \
                "fulfilling the request."
        return errors.json_response(
            status, errors.envelope(status, message, errors.request_id(environ)), environ)


class MicroversionHook(hooks.PecanHook):
    """Adds the version headers to every v1 response except routing errors."""

    priority = 30

    def after(self, state) -> None:
        environ = state.request.environ
        version = environ.get(microversion.ENVIRON_KEY)
        if version is None or environ.get(ROUTING_ERROR) or state.response is None:
            return
        headers = state.response.headers
        for name, value in microversion.response_headers(version):
            headers[name] = value
