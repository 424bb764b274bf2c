"""A cluster's trustee user and trust: how the conductor and the nodes act for the owner.

At create, the trustee domain admin makes a user ``<cluster_uuid>_<project_id>`` with a
generated password in the trustee domain, and the requesting user delegates to it a trust
on the cluster's project (impersonation on, no redelegation, the roles
``magnum_common.trust_roles`` computes for the cluster's features: ``[trust] roles`` and
what each enabled feature adds, or every role of the requester when ``[trust] roles`` is
empty). With that trust the conductor keeps managing the cluster after the owner's
token expired, and the nodes obtain tokens to reach Magnum and OpenStack.

The values returned for the cluster row carry the password encrypted (``crypto``); it is
decrypted only to authenticate. Creation is idempotent: a trustee of that name left by an
interrupted create is reused (password reset) together with its trust from the same owner.
Deletion tolerates either part being gone already.

Public API:
    ``trustee_username(cluster) -> str``,
    ``create_trustee_and_trust(context, cluster, features) -> dict`` (``trustee_username``,
    ``trustee_user_id``, ``trustee_password`` (encrypted), ``trust_id``),
    ``create_rotated_trustee_and_trust(context, cluster, generation, features) -> dict``
    (the same,
    a second pair from the rotating user, for a credential rotation),
    ``delete_trustee_and_trust(context, cluster) -> bool``,
    ``delete_trust(context, cluster) -> bool`` and ``delete_trustee(user_id) -> bool`` (one
    part each, for the clean-up retries and the orphan sweeper),
    ``find_trustee(name) -> str | None`` (a trustee an interrupted create made, by name),
    ``trusts_to(user_id) -> list[str]`` (the trusts delegated to it),
    ``trustees_of(cluster) -> list[str]`` (every trustee named after the cluster),
    ``retire_trustees(context, cluster, previous) -> bool`` (after a rotation),
    ``cluster_session(cluster)`` (trust-scoped keystoneauth session),
    ``cluster_context(cluster)`` (a RequestContext authenticating through the trust),
    ``rotate_trustee_password(cluster) -> str`` (new encrypted password).
``cluster`` is any object with ``uuid``, ``project_id``, ``user_id``, ``trustee_user_id``,
``trustee_password`` (encrypted) and ``trust_id`` attributes (a DB row).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from oslo_log import log as logging

from magnum_common import crypto, exception, trust_roles, utils
from magnum_common.context import RequestContext
from magnum_conductor.identity import keystone

LOG = logging.getLogger(__name__)


def trustee_username(cluster: Any) -> str:
    return f"{cluster.uuid}_{cluster.project_id}"


def _ensure_trustee(kc: Any, domain_id: str, name: str, password: str) -> tuple[Any, bool]:
    """The trustee user, created or (after an interrupted create) reset; (user, created)."""
    try:
        return kc.users.create(name=name, password=password, domain=domain_id), True
    except ks_exc.Conflict:
        existing = kc.users.list(domain=domain_id, name=name)
        if not existing:
            raise
    user = existing[0]
    kc.users.update(user, password=password, enabled=True)
    LOG.info("Reusing trustee user %s left by an earlier attempt", name)
    return user, False


def _existing_trust(kc: Any, context: RequestContext, trustee_id: str) -> str | None:
    for trust in kc.trusts.list(trustor_user=context.user_id):
        if trust.trustee_user_id == trustee_id and trust.project_id == context.project_id:
            return trust.id
    return None


def create_trustee_and_trust(context: RequestContext, cluster: Any,
                             features: Sequence[str] = ()) -> dict[str, str]:
    """Create (or recover) the trustee and the owner's trust; values for the cluster row.
    ``features``: the driver's ``trust_features`` of the cluster (they decide the roles).

    Raises ``ConfigInvalid`` for missing configuration (the encryption key is checked
    before anything is created) and ``TrusteeOrTrustToClusterFailed``, with Keystone's
    error in the message, for any Keystone failure.
    """
    return _trustee_and_trust(context, cluster, trustee_username(cluster), features)


def rotated_trustee_username(cluster: Any, generation: str) -> str:
    return f"{trustee_username(cluster)}_{generation}"


def create_rotated_trustee_and_trust(context: RequestContext, cluster: Any, generation: str,
                                     features: Sequence[str] = ()) -> dict[str, str]:
    """A new trustee and a new trust for a credential rotation; values for the cluster row.

    The trustor is the rotating user (a member of the cluster's project): the cluster's
    creator may have left. The current trustee and trust stay valid until
    ``delete_trustee_and_trust`` retires them. Idempotent for one ``generation`` (a replayed
    rotation reuses the trustee of that name and the rotator's trust to it).
    """
    if context.project_id != cluster.project_id:
        raise exception.TrusteeOrTrustToClusterFailed(
            f"Credentials of cluster {cluster.uuid} can only be rotated from its project",
            cluster_uuid=cluster.uuid)
    return _trustee_and_trust(context, cluster, rotated_trustee_username(cluster, generation),
                              features)


def _trustee_and_trust(context: RequestContext, cluster: Any, name: str,
                       features: Sequence[str]) -> dict[str, str]:
    password = utils.generate_password()
    encrypted = crypto.encrypt(password)
    try:
        admin_kc = keystone.client(keystone.domain_admin_session())
        user, created = _ensure_trustee(admin_kc, keystone.trustee_domain_id(), name, password)
        try:
            owner_kc = keystone.client(keystone.session_for_context(context))
            trust_id = None if created else _existing_trust(owner_kc, context, user.id)
            if trust_id is None:
                trust_id = owner_kc.trusts.create(
                    trustor_user=context.user_id,
                    trustee_user=user.id,
                    project=context.project_id,
                    impersonation=True,
                    allow_redelegation=False,
                    role_names=trust_roles.delegated(features, context.roles),
                ).id
        except Exception:
            if created:
                _delete_user(admin_kc, user.id)
            raise
    except (ks_exc.ClientException, exception.AuthorizationFailure) as exc:
        LOG.error("Creating trustee/trust for cluster %s failed: %s", cluster.uuid, exc)
        raise exception.TrusteeOrTrustToClusterFailed(
            f"Failed to create trustee or trust for Cluster: {cluster.uuid}: {exc}",
            cluster_uuid=cluster.uuid,
        ) from exc
    return {
        "trustee_username": name,
        "trustee_user_id": user.id,
        "trustee_password": encrypted,
        "trust_id": trust_id,
    }


def _delete_user(kc: Any, user_id: str) -> bool:
    try:
        kc.users.delete(user_id)
    except ks_exc.NotFound:
        pass
    except ks_exc.ClientException as exc:
        LOG.warning("Could not delete trustee user %s: %s", user_id, exc)
        return False
    return True


def _trust_deleters(context: RequestContext, cluster: Any) -> list[tuple[str, Any]]:
    """Identities that may delete the trust, in order of preference (lazily built)."""
    deleters: list[tuple[str, Any]] = []
    if context.user_id and context.user_id == cluster.user_id and (
            context.auth_token or context.auth_token_info):
        deleters.append(("owner", lambda: keystone.session_for_context(context)))
    if cluster.trustee_user_id and cluster.trustee_password:
        deleters.append(("trustee", lambda: cluster_session(cluster)))
    deleters.append(("service", keystone.admin_session))
    return deleters


def delete_trust(context: RequestContext, cluster: Any) -> bool:
    """Delete ``cluster.trust_id`` as the first identity allowed to; True when gone."""
    for who, make_session in _trust_deleters(context, cluster):
        try:
            keystone.client(make_session()).trusts.delete(cluster.trust_id)
            return True
        except ks_exc.NotFound:
            return True
        except (ks_exc.Unauthorized, ks_exc.Forbidden, exception.AuthorizationFailure,
                exception.DecryptionFailed) as exc:
            LOG.debug("Deleting trust %s as %s refused: %s", cluster.trust_id, who, exc)
        except ks_exc.ClientException as exc:
            LOG.warning("Deleting trust %s as %s failed: %s", cluster.trust_id, who, exc)
    LOG.warning("Trust %s of cluster %s could not be deleted", cluster.trust_id, cluster.uuid)
    return False


def delete_trustee_and_trust(context: RequestContext, cluster: Any) -> bool:
    """Delete the trust, then the trustee; True when both are gone (missing counts as gone).

    Never raises for Keystone errors: a cluster delete must not be blocked by a trust that
    someone already removed; a False result says something is left behind (logged).
    """
    gone = True
    if cluster.trust_id:
        gone = delete_trust(context, cluster)
        if cluster.trustee_user_id:
            keystone.forget_trust_session(cluster.trustee_user_id, cluster.trust_id)
    if cluster.trustee_user_id:
        gone = delete_trustee(cluster.trustee_user_id) and gone
    return gone


def find_trustee(name: str) -> str | None:
    """The id of the trustee user called ``name``, if Keystone has one."""
    admin_kc = keystone.client(keystone.domain_admin_session())
    found = admin_kc.users.list(domain=keystone.trustee_domain_id(), name=name)
    return found[0].id if found else None


def trusts_to(user_id: str) -> list[str]:
    """The ids of the trusts delegated to the user ``user_id`` (asked as the service)."""
    return [t.id for t in keystone.client(keystone.admin_session()).trusts.list(
        trustee_user=user_id)]


def delete_trustee(user_id: str) -> bool:
    """Delete a trustee user as the trustee domain admin; True when gone."""
    try:
        admin_kc = keystone.client(keystone.domain_admin_session())
    except (exception.AuthorizationFailure, exception.ConfigInvalid) as exc:
        LOG.warning("Trustee %s not deleted: %s", user_id, exc)
        return False
    return _delete_user(admin_kc, user_id)


def trustees_of(cluster: Any) -> list[str]:
    """The ids of every trustee user named after the cluster (its first, and each
    rotation's ``<first>_<generation>``), asked as the trustee domain admin."""
    prefix = trustee_username(cluster)
    admin_kc = keystone.client(keystone.domain_admin_session())
    users = admin_kc.users.list(domain=keystone.trustee_domain_id(), name__startswith=prefix)
    return [user.id for user in users
            if user.name == prefix or user.name.startswith(prefix + "_")]


def retire_trustees(context: RequestContext, cluster: Any, previous: Any) -> bool:
    """After a rotation: delete ``previous`` (the trustee and trust the row held before)
    and every other trustee of the cluster but the row's current one (left by a rotation
    that failed; Keystone deletes a deleted trustee's trusts with it). True when nothing
    is left behind; never raises for Keystone errors."""
    gone = True
    if previous.trustee_user_id and previous.trustee_user_id != cluster.trustee_user_id:
        gone = delete_trustee_and_trust(context, previous)
    try:
        earlier = trustees_of(cluster)
    except (ks_exc.ClientException, exception.AuthorizationFailure,
            exception.ConfigInvalid) as exc:
        LOG.warning("Earlier trustees of cluster %s not looked up: %s", cluster.uuid, exc)
        return False
    for user_id in earlier:
        if user_id not in (cluster.trustee_user_id, previous.trustee_user_id):
            gone = delete_trustee(user_id) and gone
    return gone


def cluster_session(cluster: Any) -> ks_session.Session:
    """The trustee's trust-scoped session: acts as the cluster owner in its project."""
    return keystone.trust_session(cluster.trustee_user_id,
                                  crypto.decrypt(cluster.trustee_password), cluster.trust_id)


def cluster_context(cluster: Any) -> RequestContext:
    """A context that authenticates through the cluster's trust (never send it over RPC:
    it holds the decrypted trustee password)."""
    return RequestContext(
        user_id=cluster.trustee_user_id,
        project_id=cluster.project_id,
        trust_id=cluster.trust_id,
        password=crypto.decrypt(cluster.trustee_password),
        auth_url=keystone.auth_url(),
        is_admin=False,
    )


def rotate_trustee_password(cluster: Any) -> str:
    """Give the trustee a new password; returns it encrypted for the cluster row."""
    password = utils.generate_password()
    encrypted = crypto.encrypt(password)
    admin_kc = keystone.client(keystone.domain_admin_session())
    try:
        admin_kc.users.update(cluster.trustee_user_id, password=password)
    except ks_exc.ClientException as exc:
        raise exception.TrusteeOrTrustToClusterFailed(cluster_uuid=cluster.uuid) from exc
    return encrypted
