"""Which roles a cluster's trust delegates: the minimum its enabled features need.

The trust the requester delegates to the cluster's trustee carries ``[trust] roles`` (what
the conductor and every node need) plus, per enabled feature that calls OpenStack from the
nodes, that feature's option (``[trust] cloud_provider_roles``...). The API checks before
anything is recorded that the requester holds them all (Keystone would refuse the trust
later, failing the operation), the conductor delegates exactly them. An empty
``[trust] roles`` keeps upstream's behaviour: every role of the requester, nothing checked.

Feature names are the drivers' vocabulary (``Driver.trust_features``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from magnum_common import exception
from magnum_common.config import CONF

#: Feature -> the ``[trust]`` option naming the roles it adds.
FEATURE_OPTIONS = {
    "cloud_provider": "cloud_provider_roles",
    "cinder_csi": "cinder_csi_roles",
    "autoscaler": "autoscaler_roles",
    "octavia_ingress": "octavia_ingress_roles",
    "auto_healer": "auto_healer_roles",
}


def _needed(features: Iterable[str]) -> list[tuple[str, str]]:
    """(role, option that asks for it), base roles first, each role once."""
    found: dict[str, str] = {role: "roles" for role in CONF.trust.roles}
    for feature in features:
        option = FEATURE_OPTIONS[feature]
        for role in CONF.trust[option]:
            found.setdefault(role, option)
    return list(found.items())


def delegated(features: Iterable[str], requester_roles: Sequence[str]) -> list[str]:
    """The role names the cluster's trust delegates (the requester's own when
    ``[trust] roles`` is empty)."""
    if not CONF.trust.roles:
        return list(requester_roles)
    return [role for role, _ in _needed(features)]


def check(requester_roles: Sequence[str], features: Iterable[str]) -> None:
    """400 naming the first role the requester lacks and the option that requires it."""
    if not CONF.trust.roles:
        return
    held = {role.lower() for role in requester_roles}
    for role, option in _needed(features):
        if role.lower() not in held:
            raise exception.InvalidParameterValue(
                err=f"The cluster's trust must delegate role {role!r} ([trust] {option}), "
                "which the requesting user does not hold in this project.")
