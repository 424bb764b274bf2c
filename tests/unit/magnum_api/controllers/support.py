"""Identity headers and a template body for the controllers' tests."""

from __future__ import annotations

from tests.functional.api.support import IMAGE_ID


def who(role: str = "member", project: str = "p1", version: str = "latest") -> dict:
    roles = {"admin": "admin,member,reader", "member": "member,reader",
             "reader": "reader"}[role]
    return {"X-User-Id": f"{role}-user", "X-Project-Id": project, "X-Roles": roles,
            "OpenStack-API-Version": f"container-infra {version}"}


#: A template the real fedora-coreos driver serves, on the stand-in cloud's resources.
BODY = {"name": "k8s", "coe": "kubernetes", "image_id": IMAGE_ID, "flavor_id": "m1.small",
        "master_flavor_id": "m1.medium", "keypair_id": "kp", "external_network_id": "public",
        "labels": {"kube_tag": "v1.30.4"}}
