"""What a cluster leaves in the cloud, looked up with privileged credentials.

Before a delete, :func:`footprint` records the cluster's Heat stacks, its trustee user, the
trusts delegated to that user and its Barbican secrets; after it, :func:`remaining` says
which of them still exist. Heat, Keystone trusts and users are read as the cloud's admin; the
certificates belong to Magnum's service user (``[keystone_auth]`` of the local cloud's
fragment), so Barbican is read as that user.
"""

from __future__ import annotations

import configparser
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import yaml

from localcloud.scenario import paths


@dataclass
class Footprint:
    cluster_uuid: str
    stack_ids: set[str] = field(default_factory=set)
    stack_prefix: str = ""
    trustee_users: dict[str, str] = field(default_factory=dict)   # id -> name
    trusts: set[str] = field(default_factory=set)
    secrets: dict[str, str] = field(default_factory=dict)         # ref -> name
    containers: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        return (f"{len(self.stack_ids)} Heat stack(s), {len(self.trustee_users)} trustee "
                f"user(s), {len(self.trusts)} trust(s), {len(self.secrets)} Barbican "
                f"secret(s) in {len(self.containers)} container(s)")

    def empty(self) -> bool:
        return not (self.stack_ids or self.trustee_users or self.trusts or self.secrets
                    or self.containers)


def _session(auth: dict[str, Any]):
    from keystoneauth1 import loading, session

    return session.Session(auth=loading.get_plugin_loader("password").load_from_options(**auth))


@lru_cache(maxsize=1)
def admin_session():
    clouds = yaml.safe_load(paths.clouds_yaml().read_text())["clouds"]
    return _session(clouds["localcloud-admin"]["auth"])


@lru_cache(maxsize=1)
def magnum_session():
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(paths.magnum_fragment())
    sec = parser["keystone_auth"]
    return _session({k: sec[k] for k in ("auth_url", "username", "password", "project_name",
                                         "user_domain_name", "project_domain_name")})


def _trustee_domain() -> str:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(paths.magnum_fragment())
    return parser["trust"]["trustee_domain_name"]


def _heat():
    from heatclient import client

    return client.Client("1", session=admin_session(), region_name="RegionOne")


def _keystone():
    from keystoneclient.v3 import client

    return client.Client(session=admin_session(), interface="public")


def _barbican():
    from barbicanclient import client

    return client.Client(session=magnum_session(), region_name="RegionOne",
                         interface="public")


def _live_stacks(prefix: str, known: set[str]) -> set[str]:
    from heatclient import exc

    heat = _heat()
    found = {s.id for s in heat.stacks.list(global_tenant=True)
             if s.stack_name.startswith(prefix) and s.stack_status != "DELETE_COMPLETE"}
    for stack_id in known:
        try:
            stack = heat.stacks.get(stack_id)
        except exc.HTTPNotFound:
            continue
        if stack.stack_status != "DELETE_COMPLETE":
            found.add(stack_id)
    return found


def _trustees(cluster_uuid: str) -> dict[str, str]:
    ks = _keystone()
    domain = ks.domains.list(name=_trustee_domain())[0]
    return {u.id: u.name for u in ks.users.list(domain=domain.id)
            if u.name.startswith(cluster_uuid)}


def _trusts(trustee_ids: set[str], known: set[str]) -> set[str]:
    return {t.id for t in _keystone().trusts.list()
            if t.trustee_user_id in trustee_ids or t.id in known}


def _secrets(cluster_uuid: str) -> tuple[dict[str, str], dict[str, str]]:
    bc = _barbican()
    secrets = {s.secret_ref: s.name for s in bc.secrets.list(limit=1000)
               if (s.name or "").startswith(cluster_uuid)}
    containers = {c.container_ref: c.name for c in bc.containers.list(limit=1000)
                  if (c.name or "").startswith(cluster_uuid)}
    return secrets, containers


def footprint(cluster_uuid: str, stack_ids: set[str], stack_prefix: str) -> Footprint:
    """Everything the cluster owns right now (call while it exists)."""
    users = _trustees(cluster_uuid)
    secrets, containers = _secrets(cluster_uuid)
    return Footprint(cluster_uuid=cluster_uuid,
                     stack_ids=_live_stacks(stack_prefix, set(stack_ids)),
                     stack_prefix=stack_prefix, trustee_users=users,
                     trusts=_trusts(set(users), set()), secrets=secrets, containers=containers)


def remaining(before: Footprint) -> Footprint:
    """What of ``before`` (or anything else named after the cluster) still exists."""
    users = _trustees(before.cluster_uuid)
    secrets, containers = _secrets(before.cluster_uuid)
    return Footprint(cluster_uuid=before.cluster_uuid,
                     stack_ids=_live_stacks(before.stack_prefix, before.stack_ids),
                     stack_prefix=before.stack_prefix, trustee_users=users,
                     trusts=_trusts(set(users) | set(before.trustee_users), before.trusts),
                     secrets=secrets, containers=containers)
