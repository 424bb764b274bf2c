"""Request context: who is asking, for which project, with which credentials.

Built by the API from keystonemiddleware's headers, serialised into every RPC message and
rebuilt by the conductor, so the conductor acts with the requester's identity (trusts, Heat).
"""

from __future__ import annotations

from typing import Any

from oslo_context import context as oslo_context


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

    def to_dict(self) -> dict[str, Any]:
        values = super().to_dict()
        values.update(
            auth_token_info=self.auth_token_info,
            auth_url=self.auth_url,
            trust_id=self.trust_id,
            password=self.password,
            all_tenants=self.all_tenants,
            user_name=self.user_name,
            project_name=self.project_name,
            user_domain_name=self.user_domain_name,
            project_domain_name=self.project_domain_name,
        )
        return values

    @classmethod
    def from_dict(cls, values: dict[str, Any], **kwargs: Any) -> RequestContext:
        values = dict(values)
        values.update(kwargs)
        known = {
            "auth_token", "user_id", "project_id", "domain_id", "user_domain_id",
            "project_domain_id", "is_admin", "read_only", "show_deleted", "request_id",
            "resource_uuid", "roles", "global_request_id", "system_scope", "user_name",
            "project_name", "user_domain_name", "project_domain_name", "auth_token_info",
            "auth_url", "trust_id", "password", "all_tenants", "is_admin_project",
            "service_token", "service_user_id", "service_project_id", "service_roles",
        }
        user = values.pop("user", None)
        tenant = values.pop("tenant", None)
        values.setdefault("user_id", user)
        values.setdefault("project_id", tenant)
        return cls(**{k: v for k, v in values.items() if k in known})

    def elevated(self) -> RequestContext:
        """A copy with admin rights over every project (periodic tasks, recovery)."""
        ctx = self.from_dict(self.to_dict())
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
