"""Identity headers for the controllers' tests (noauth's, as the pipeline would pass them)."""

from __future__ import annotations


def who(role: str = "member", project: str = "p1", version: str = "latest") -> dict:
    roles = {"admin": "admin,member,reader", "member": "member,reader",
             "reader": "reader"}[role]
    return {"X-User-Id": f"{role}-user", "X-Project-Id": project, "X-Roles": roles,
            "OpenStack-API-Version": f"container-infra {version}"}
