"""Removing what a deleted cluster leaves in other services, without leaking it.

A cluster delete removes its trust, its trustee user and its certificate bundles, and
also what a killed run journaled as a pending effect but never saved on the row (a
trustee found by its name, bundles by their references). Each removal is retried with a
doubling back-off (``[conductor] cleanup_attempts``, ``cleanup_backoff``); what still fails
is recorded as an orphan and the delete goes on, so a broken Keystone or Barbican never
blocks a delete. The sweeper (:func:`sweep`, a periodic task of every conductor) retries
the orphans as the service, backing off per orphan, and drops each once it is gone.
"""

from __future__ import annotations

import datetime
import time
import types
from collections.abc import Callable
from typing import Any

from oslo_log import log as logging

from magnum_common.context import RequestContext, make_admin_context
from magnum_common.db.operations import operations as records
from magnum_common.db.orphans import orphans
from magnum_conductor.conf import CONF
from magnum_conductor.identity import keystone, trust
from magnum_conductor.pki import cluster_certs

LOG = logging.getLogger(__name__)

TRUST, TRUSTEE, CERTIFICATE = "trust", "trustee", "certificate"
#: The longest the sweeper waits between two attempts on one orphan.
MAX_BACKOFF = 3600


def _retried(attempt: Callable[[], bool]) -> bool:
    """``attempt`` until it returns True, at most ``cleanup_attempts`` times."""
    attempts = CONF.conductor.cleanup_attempts
    for number in range(attempts):
        try:
            if attempt():
                return True
        except Exception as exc:  # any failure is one more failed attempt
            LOG.warning("Clean-up attempt %d failed: %s", number + 1, exc)
        if number + 1 < attempts:
            time.sleep(CONF.conductor.cleanup_backoff * 2 ** number)
    return False


def _orphan(kind: str, ref: str, cluster: Any, service: str) -> None:
    attempts = CONF.conductor.cleanup_attempts
    LOG.warning("Cluster %s: %s %s not removed after %d attempts; recorded as an orphan",
                cluster.uuid, kind, ref, attempts)
    orphans.record(kind, ref, cluster, f"{service} refused or failed {attempts} attempts "
                   "(see the conductor log).", attempts)


def _journaled(cluster: Any, name: str) -> list[dict[str, Any]]:
    return [entry for effect, entry in records.pending_effects(cluster.uuid) if effect == name]


def remove_identity(context: RequestContext, cluster: Any) -> bool:
    """The trust and the trustee user (the row's, or one a killed create left by name);
    True when nothing was left to the sweeper."""
    clean = True
    if cluster.trust_id:
        if not _retried(lambda: trust.delete_trust(context, cluster)):
            _orphan(TRUST, cluster.trust_id, cluster, "Keystone")
            clean = False
        if cluster.trustee_user_id:
            keystone.forget_trust_session(cluster.trustee_user_id, cluster.trust_id)
    trustees = {cluster.trustee_user_id} - {None}
    if not trustees:
        for entry in _journaled(cluster, TRUST):
            found = trust.find_trustee(entry["trustee_username"])
            trustees |= {found} - {None}
            for trust_id in trust.trusts_to(found) if found else ():
                unsaved = types.SimpleNamespace(uuid=cluster.uuid, trust_id=trust_id,
                                                user_id=cluster.user_id,
                                                trustee_user_id=None, trustee_password=None)
                if not _retried(lambda unsaved=unsaved: trust.delete_trust(context, unsaved)):
                    _orphan(TRUST, trust_id, cluster, "Keystone")
                    clean = False
    for user_id in sorted(trustees):
        if not _retried(lambda user_id=user_id: trust.delete_trustee(user_id)):
            _orphan(TRUSTEE, user_id, cluster, "Keystone")
            clean = False
    return clean


def remove_certificates(context: RequestContext, cluster: Any) -> bool:
    """The row's bundles and any a killed run stored without saving them; True when
    nothing was left to the sweeper."""
    refs = {getattr(cluster, field, None) for field in cluster_certs.REF_FIELDS} - {None}
    interrupted = _journaled(cluster, "certificates")
    for entry in interrupted:
        refs |= set((entry.get("refs") or {}).values())
    if interrupted:  # a killed store may have left bundles its journal never named
        try:
            refs |= set(cluster_certs.stored_by_name(cluster))
        except Exception as exc:  # the store is down: the row's and the journal's remain
            LOG.warning("Cluster %s: could not look up its certificate bundles by name: %s",
                        cluster.uuid, exc)
    left = sorted(refs)

    def attempt() -> bool:
        left[:] = cluster_certs.delete_refs(cluster, left)
        return not left

    cluster_certs.forget(cluster)
    if _retried(attempt):
        return True
    for ref in left:
        _orphan(CERTIFICATE, ref, cluster, "The certificate store")
    return False


# --- the sweeper ------------------------------------------------------------------------
def _owner(orphan: Any) -> Any:
    """The orphan as the cluster-shaped object the removal functions take."""
    return types.SimpleNamespace(uuid=orphan.cluster_id, project_id=orphan.project_id,
                                 user_id=orphan.user_id, trust_id=orphan.ref,
                                 trustee_user_id=None, trustee_password=None)


_REMOVERS: dict[str, Callable[[Any], bool]] = {
    TRUST: lambda orphan: trust.delete_trust(make_admin_context(), _owner(orphan)),
    TRUSTEE: lambda orphan: trust.delete_trustee(orphan.ref),
    CERTIFICATE: lambda orphan: cluster_certs.delete_refs(_owner(orphan), [orphan.ref]) == [],
}


def backoff(attempts: int) -> datetime.timedelta:
    """The wait before the next attempt on an orphan that failed ``attempts`` times."""
    seconds = CONF.conductor.cleanup_backoff * 2 ** min(attempts, 20)
    return datetime.timedelta(seconds=max(1.0, min(seconds, MAX_BACKOFF)))


def sweep() -> int:
    """One run of the sweeper: retry every due orphan; the number removed."""
    removed = 0
    for orphan in orphans.claim_due(hold_seconds=MAX_BACKOFF):
        error = "refused"
        try:
            gone = _REMOVERS[orphan.kind](orphan)
        except Exception as exc:
            gone, error = False, str(exc) or type(exc).__name__
        if gone:
            LOG.info("Removed orphan %s %s of cluster %s", orphan.kind, orphan.ref,
                     orphan.cluster_id)
            orphans.remove(orphan.uuid)
            removed += 1
        else:
            orphans.failed_again(orphan.uuid, error, backoff(orphan.attempts))
    return removed

