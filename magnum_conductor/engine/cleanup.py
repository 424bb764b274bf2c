"""Removing what a deleted cluster leaves in other services, without leaking it.

A cluster delete removes every trustee user and trust the cluster ever had (the row's, the
pairs its records journaled: a killed create's, found by name, and each credential
rotation's new and retired pair, and any other trustee named after the cluster, left by a
rotation that failed), its certificate bundles, and what a killed run journaled as a
pending effect but never saved on the row (bundles by their references). Each removal is
retried with a doubling back-off (``[conductor] cleanup_attempts``, ``cleanup_backoff``);
what still fails is recorded as an orphan and the delete goes on, so a broken Keystone or
Barbican never blocks a delete. The sweeper (:func:`sweep`, a periodic task of every
conductor) retries the orphans as the service, backing off per orphan, and drops each
once it is gone.

A stack is an orphan of another kind: a delete that finds no stack where a stack create
was journaled as sent and never confirmed (Heat had not carried it out yet, or its answer
was lost) records the stack's name (:func:`watch_unconfirmed_stacks`); the sweeper deletes
the stack if it appears, and drops the orphan once none exists and the create could no
longer land (the driver's ``stack_create_window``, counted from the delete's look-up).
"""

from __future__ import annotations

import datetime
import time
import types
from collections.abc import Callable
from typing import Any

from oslo_log import log as logging

from magnum_common import exception, states
from magnum_common.context import RequestContext, make_admin_context
from magnum_common.db import api as db_api
from magnum_common.db.operations import operations as records
from magnum_common.db.orphans import orphans
from magnum_common.drivers import registry
from magnum_conductor.conf import CONF
from magnum_conductor.identity import keystone, trust
from magnum_conductor.pki import cluster_certs

LOG = logging.getLogger(__name__)

TRUST, TRUSTEE, CERTIFICATE, STACK = "trust", "trustee", "certificate", "stack"
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


def _looked_up(what: str, lookup: Callable[[], Any]) -> Any:
    """``lookup()``, or None when Keystone fails it: what the records name still goes."""
    try:
        return lookup()
    except Exception as exc:  # Keystone down or refusing: the recorded ones remain
        LOG.warning("Could not look up %s: %s", what, exc)
        return None


def _unsaved(cluster: Any, trust_id: str) -> Any:
    """A trust the row does not hold, in the shape ``trust.delete_trust`` takes."""
    return types.SimpleNamespace(uuid=cluster.uuid, trust_id=trust_id, user_id=cluster.user_id,
                                 trustee_user_id=None, trustee_password=None)


def _identities(cluster: Any) -> tuple[set[str], dict[str, Any]]:
    """Every trustee user id and trust (id -> what deletes it) the cluster ever had."""
    trusts: dict[str, Any] = {cluster.trust_id: cluster} if cluster.trust_id else {}
    trustees = {cluster.trustee_user_id} - {None}
    for name, entry in records.journaled_effects(cluster.uuid):
        if name != TRUST:
            continue
        for pair in (entry, entry.get("retiring") or {}):
            trustees |= {pair.get("trustee_user_id")} - {None}
            if pair.get("trust_id"):
                trusts.setdefault(pair["trust_id"], _unsaved(cluster, pair["trust_id"]))
        if entry.get("state") == states.EFFECT_PENDING and entry.get("trustee_username"):
            found = _looked_up(f"trustee {entry['trustee_username']}",
                               lambda entry=entry: trust.find_trustee(entry["trustee_username"]))
            trustees |= {found} - {None}
    trustees |= set(_looked_up(f"the trustees of cluster {cluster.uuid}",
                               lambda: trust.trustees_of(cluster)) or ())
    for user_id in sorted(trustees):
        for trust_id in _looked_up(f"the trusts to {user_id}",
                                   lambda user_id=user_id: trust.trusts_to(user_id)) or ():
            trusts.setdefault(trust_id, _unsaved(cluster, trust_id))
    return trustees, trusts


def remove_identity(context: RequestContext, cluster: Any) -> bool:
    """Every trust, then every trustee user of the cluster (see the module's docstring);
    True when nothing was left to the sweeper."""
    clean = True
    trustees, trusts = _identities(cluster)
    for trust_id, holder in trusts.items():
        if not _retried(lambda holder=holder: trust.delete_trust(context, holder)):
            _orphan(TRUST, trust_id, cluster, "Keystone")
            clean = False
    if cluster.trust_id and cluster.trustee_user_id:
        keystone.forget_trust_session(cluster.trustee_user_id, cluster.trust_id)
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


def watch_unconfirmed_stacks(job: Any, ngs: list[Any], found: dict[str, str]) -> int:
    """Stack creates the cluster's records journaled as sent, never confirmed, whose stack
    the delete did not find (``found``): Heat may still make them after the cluster is
    gone. Each is recorded as a stack orphan, by the driver's name for it, watched until
    the driver's ``stack_create_window`` has passed; returns how many."""
    default = next((ng.uuid for ng in ngs if ng.is_default), None)
    sent = {entry.get("nodegroup") or default for effect, entry in
            records.pending_effects(job.uuid) if effect == "stack_create"}
    names = job.driver.stack_names(job.view(ngs))
    missing = sorted({names[ng] for ng in sent if ng in names and ng not in found})
    if not missing:
        return 0
    driver = next((name for name, loaded in registry.all_drivers().items()
                   if loaded is job.driver), None)
    until = db_api.server_now() + datetime.timedelta(seconds=job.driver.stack_create_window())
    known = {o.ref for o in orphans.list(None, {"kind": STACK, "cluster_id": job.uuid})}
    for name in missing:
        if name in known:  # recorded by an earlier run of this delete
            continue
        LOG.warning("Cluster %s: a create of stack %s was sent and never confirmed, and "
                    "Heat has no such stack now; watching for it until %s UTC", job.uuid,
                    name, until.isoformat(sep=" ", timespec="seconds"))
        orphans.record(STACK, name, job.cluster, "A create of this stack was sent before "
                       "the delete; it is deleted if it appears.", 0,
                       detail={"driver": driver, "until": until.isoformat()})
    return len(missing)


class _Waiting(Exception):
    """A stack orphan that is not done with: its stack exists, or may still appear."""


def _remove_stack(orphan: Any) -> bool:
    detail = orphan.detail or {}
    driver = registry.all_drivers().get(detail.get("driver") or "")
    if driver is None:
        raise exception.ClusterDriverNotSupported(driver_name=detail.get("driver"))
    if not driver.remove_orphan_stack(keystone.admin_session(), orphan.ref,
                                      orphan.project_id):
        raise _Waiting("The stack exists; its delete is sent.")
    until = datetime.datetime.fromisoformat(detail["until"])
    if db_api.server_now() < until:
        raise _Waiting("No stack yet; a create sent before the delete could still land "
                       f"until {until.isoformat(sep=' ', timespec='seconds')} UTC.")
    return True


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
    STACK: _remove_stack,
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
            delay = backoff(orphan.attempts)
            if orphan.kind == STACK:  # a stack may appear any time: look at every sweep
                delay = min(delay, datetime.timedelta(
                    seconds=CONF.conductor.orphan_sweep_interval))
            orphans.failed_again(orphan.uuid, error, delay)
    return removed

