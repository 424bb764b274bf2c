"""Request context: who is asking, for which project, with which credentials.

Built by the API from keystonemiddleware's headers. Two forms leave the process:

- ``to_dict()``, the *wire form*, carried by every RPC message and notification and recorded
  with an operation: identity only (request ids, user, project, domains, roles, flags). It
  never holds a token, a token body, a catalog, a service token or a password.
- ``record()``, what the API stores with an operation so a conductor can act later as the
  requester (create the cluster's trust, have Heat create the stack): the wire form plus the
  requester's token and its expiry *sealed* with the ``[crypto]`` keys
  (``magnum_common.crypto``); ``from_record()`` rebuilds the context in the conductor. Only
  the token is kept, not the token body: the conductor re-authenticates with it and gets the
  catalog from Keystone, so the record stays small whatever the catalog's size.
"""

from __future__ import annotations

import copy
from typing import Any

from oslo_context import context as oslo_context

from magnum_common import crypto

#: The identity fields of the wire form (to_dict / from_dict).
WIRE_FIELDS = (
    "user_id", "project_id", "domain_id", "user_domain_id", "project_domain_id",
    "user_name", "project_name", "user_domain_name", "project_domain_name",
    "is_admin", "read_only", "show_deleted", "request_id", "global_request_id",
    "resource_uuid", "roles", "system_scope", "is_admin_project", "all_tenants",
)
#: Where ``record()`` puts the wire form and the sealed credentials.
RECORD_CONTEXT = "context"
RECORD_CREDENTIALS = "credentials"


class RequestContext(oslo_context.RequestContext):
    """oslo.context's context plus Magnum's extras (trust, all_tenants, token body)."""

    def __init__(
        self,
        auth_token_info: dict | None = None,
        auth_url: str | None = None,
        trust_id: str | None = None,
        password: str | None = None,
        all_tenants: bool = False,
        user_name: str | None = None,
        project_name: str | None = None,
        token_expires_at: str | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("user_name", user_name)
        kwargs.setdefault("project_name", project_name)
        super().__init__(**kwargs)
        self.auth_token_info = auth_token_info
        self.auth_url = auth_url
        self.trust_id = trust_id
        self.password = password
        self.all_tenants = all_tenants
        self._token_expires_at = token_expires_at

    @property
    def token_expires_at(self) -> str | None:
        """When the requester's token expires (ISO 8601), if known."""
        if self._token_expires_at:
            return self._token_expires_at
        return ((self.auth_token_info or {}).get("token") or {}).get("expires_at")

    def to_dict(self) -> dict[str, Any]:
        """The wire form: identity, never a credential (see the module docstring)."""
        return {name: getattr(self, name) for name in WIRE_FIELDS}

    def get_logging_values(self) -> dict[str, Any]:
        """oslo.log's values; ``user_identity`` as oslo.context formats it."""
        values = super().get_logging_values()
        values["user_identity"] = super().to_dict()["user_identity"]
        return values

    @classmethod
    def from_dict(cls, values: dict[str, Any], **kwargs: Any) -> RequestContext:
        """The context of a wire form; unknown keys (and any credential) are ignored."""
        values = {**values, **kwargs}
        values.setdefault("user_id", values.get("user"))
        values.setdefault("project_id", values.get("tenant") or values.get("project"))
        return cls(**{k: v for k, v in values.items() if k in WIRE_FIELDS})

    def sealed_credentials(self) -> str | None:
        """The requester's token and its expiry, sealed; None without a token."""
        if not self.auth_token:
            return None
        return crypto.seal({"token": self.auth_token, "expires_at": self.token_expires_at})

    def with_credentials(self, sealed: str | None) -> RequestContext:
        """This context acting with the token ``sealed_credentials`` sealed."""
        if not sealed:
            return self
        values = crypto.unseal(sealed)
        ctx = copy.copy(self)
        ctx.auth_token = values.get("token")
        ctx.auth_token_info = None
        ctx._token_expires_at = values.get("expires_at")
        return ctx

    def record(self) -> dict[str, Any]:
        """What an operation record keeps of the requester (wire form + sealed token)."""
        sealed = self.sealed_credentials()
        return {RECORD_CONTEXT: self.to_dict(),
                **({RECORD_CREDENTIALS: sealed} if sealed else {})}

    @classmethod
    def from_record(cls, args: dict[str, Any] | None) -> RequestContext | None:
        """The requester's context from an operation record; None when it holds none."""
        snapshot = (args or {}).get(RECORD_CONTEXT)
        if not snapshot:
            return None
        return cls.from_dict(snapshot).with_credentials((args or {}).get(RECORD_CREDENTIALS))

    def elevated(self) -> RequestContext:
        """A copy with admin rights over every project (periodic tasks, recovery)."""
        ctx = copy.copy(self)
        ctx.is_admin = True
        ctx.all_tenants = True
        if "admin" not in ctx.roles:
            ctx.roles = list(ctx.roles) + ["admin"]
        return ctx


def make_context(*args: Any, **kwargs: Any) -> RequestContext:
    return RequestContext(*args, **kwargs)


def make_admin_context(all_tenants: bool = True, **kwargs: Any) -> RequestContext:
    """The conductor's own identity: admin over all projects, no token of its own."""
    return RequestContext(is_admin=True, all_tenants=all_tenants, roles=["admin"], **kwargs)
