"""Following the drivers: the partitioned, batched status sync of in-progress clusters.

Every interval each conductor reads the in-progress clusters (a light column query, with
the template columns that choose each one's driver), keeps its own share
(hashring.Partition over the live conductors), and asks the drivers about all their stacks
at once: one ``Driver.stack_states`` call per project and stack service (stack lists are
project-scoped; the Heat drivers answer it with a few ``stacks.list`` requests) instead of
one request per cluster. Only clusters whose state changed are written, under the
cluster's lease; for stacks that finished, the driver reads the outputs, and for failed
stacks it says which resources failed. Clusters whose operation is still recorded belong to
the handlers / reconciler and are skipped, as are clusters that stay in progress past their
timeout (marked failed instead). A stack delete Heat failed is sent again (the delete runs
once more, after a back-off) before the cluster is marked ``DELETE_FAILED``.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import time
from typing import Any

import sqlalchemy as sa
from oslo_log import log as logging

from magnum_common import states
from magnum_common.conductor_api import ConductorAPI
from magnum_common.context import make_admin_context
from magnum_common.db import api as db_api
from magnum_common.db import models
from magnum_common.db.operations import operations as records
from magnum_common.db.services import magnum_services
from magnum_common.drivers import registry
from magnum_common.drivers.base import Driver, StackPoll, StackState
from magnum_conductor.conf import BINARY, CONF
from magnum_conductor.engine import lifecycle, notifications, operations
from magnum_conductor.engine.executor import Executor
from magnum_conductor.engine.handlers.cluster import complete_delete, create_timeout
from magnum_conductor.engine.job import Job, NodeGroupWrite, Outcome
from magnum_conductor.engine.resources import Resources
from magnum_conductor.identity import keystone
from magnum_conductor.status.aggregate import (
    OUTPUT_STATUSES,
    attribute_shared_failures,
    cluster_state,
    deleted,
    nodegroup_state,
)
from magnum_conductor.status.hashring import HashRing, Partition

LOG = logging.getLogger(__name__)

#: Seconds after an operation was sent during which Heat may still show the previous result.
SETTLE_SECONDS = 3

_CLUSTER = models.Cluster.__table__
_TEMPLATE = models.ClusterTemplate.__table__
_NODEGROUP = models.NodeGroup.__table__
_CLUSTER_COLUMNS = (
    "uuid", "project_id", "status", "status_reason", "stack_id", "operation", "operation_at",
    "created_at", "create_timeout", "trust_id", "trustee_user_id", "trustee_password",
    "trustee_username", "name",
)
#: The template columns that choose a cluster's driver (registry.get_driver's arguments).
_DRIVER_COLUMNS = ("server_type", "cluster_distro", "coe", "driver")
_NG_COLUMNS = ("uuid", "name", "cluster_id", "stack_id", "status", "status_reason",
               "is_default", "role")

_IN_PROGRESS = sa.select(
    *(_CLUSTER.c[name] for name in _CLUSTER_COLUMNS),
    *(_TEMPLATE.c[name] for name in _DRIVER_COLUMNS),
).select_from(
    _CLUSTER.outerjoin(_TEMPLATE, _TEMPLATE.c.uuid == _CLUSTER.c.cluster_template_id)
).where(_CLUSTER.c.status.in_(sorted(states.IN_PROGRESS)))
_NODEGROUPS_OF = sa.select(*(_NODEGROUP.c[name] for name in _NG_COLUMNS)).where(
    _NODEGROUP.c.cluster_id.in_(sa.bindparam("uuids", expanding=True))
).order_by(_NODEGROUP.c.id)


@dataclasses.dataclass
class SyncStats:
    polled: int = 0
    polled_uuids: list[str] = dataclasses.field(default_factory=list)
    changed: int = 0
    #: Requests the drivers sent to their backends (stack lists, lookups).
    stack_requests: int = 0
    errors: int = 0
    seconds: float = 0.0


def _in_progress_clusters() -> list[Any]:
    with db_api.reader() as session:
        return list(session.execute(_IN_PROGRESS).all())


def _nodegroups_of(uuids: list[str]) -> dict[str, list[Any]]:
    result: dict[str, list[Any]] = collections.defaultdict(list)
    with db_api.reader() as session:
        for start in range(0, len(uuids), 500):
            for row in session.execute(_NODEGROUPS_OF, {"uuids": uuids[start:start + 500]}):
                result[row.cluster_id].append(row)
    return result


@dataclasses.dataclass(frozen=True)
class _Observed:
    """What the sync saw of a cluster when it read the stacks: its status and the start of
    its last operation (``operation_at``, set anew by every recorded operation). A write
    from that snapshot is refused once either moved (issue 12, point 5)."""

    status: str
    operation_at: datetime.datetime | None

    @classmethod
    def of(cls, row: Any) -> _Observed:
        return cls(row.status, row.operation_at)

    def still(self, row: Any) -> bool:
        return (row.operation is None and row.status == self.status
                and row.operation_at == self.operation_at)

    def expected(self) -> dict[str, Any]:
        """The same, as the conditions of the UPDATE that writes the sync's verdict."""
        return {"operation": None, "status": self.status, "operation_at": self.operation_at}


class StatusSync:
    """One conductor process's share of the status polling."""

    def __init__(self, executor: Executor) -> None:
        self.executor = executor
        #: The ring member: this process's identity (its lease owner), unique per process.
        self.identity = executor.owner
        self.last = SyncStats()

    def partition(self) -> Partition:
        """This process's share of a ring built only from the live conductor processes of
        enabled services in the database (judged on its clock), so that every conductor
        computes the same ring. A conductor never adds itself: one whose own heartbeat
        looks stale, or whose service is disabled, owns nothing, rather than everything a
        ring of one would give it (with every peer also alone in its ring, each cluster was
        polled by all)."""
        return Partition(HashRing(magnum_services.live_processes(BINARY)), self.identity)

    # --- the periodic task ---------------------------------------------------------------
    def run_once(self) -> SyncStats:
        started = time.monotonic()
        stats = SyncStats()
        partition = self.partition()
        now = db_api.now()
        mine = [c for c in _in_progress_clusters()
                if c.operation is None and partition.owns(c.uuid)
                and not self.executor.leases.held(c.uuid)]
        stats.polled = len(mine)
        stats.polled_uuids = [c.uuid for c in mine]
        groups_of = _nodegroups_of([c.uuid for c in mine])
        queued = records.queued_targets_of([c.uuid for c in mine])
        stacks, unknown = self._fetch(mine, groups_of, stats)
        for cluster in mine:
            if cluster.uuid in unknown:
                continue
            if cluster.operation_at and (now - cluster.operation_at).total_seconds() < \
                    SETTLE_SECONDS:
                continue
            try:
                if self._check(cluster, groups_of.get(cluster.uuid, []), stacks, now,
                               queued.get(cluster.uuid, set())):
                    stats.changed += 1
            except Exception:
                stats.errors += 1
                LOG.exception("Status sync of cluster %s failed", cluster.uuid)
        stats.seconds = time.monotonic() - started
        self.last = stats
        return stats

    def _fetch(self, mine: list[Any], groups_of: dict[str, list[Any]],
               stats: SyncStats) -> tuple[dict[str, StackState], set[str]]:
        """Stack states by id, one driver call per project and stack service; the clusters
        whose stacks could not be asked about this round."""
        batches: dict[tuple[str, str], tuple[Driver, list[Any], set[str]]] = {}
        drivers: dict[tuple, Driver | Exception] = {}
        unknown: set[str] = set()
        for cluster in mine:
            ids = {ng.stack_id for ng in groups_of.get(cluster.uuid, []) if ng.stack_id}
            ids |= {cluster.stack_id} if cluster.stack_id else set()
            if not ids:
                continue
            key = tuple(getattr(cluster, name) for name in _DRIVER_COLUMNS)
            if key not in drivers:
                try:
                    drivers[key] = registry.get_driver(*key)
                except Exception as exc:
                    drivers[key] = exc
                    LOG.warning("No driver for the template of cluster %s: %s",
                                cluster.uuid, exc)
            driver = drivers[key]
            if isinstance(driver, Exception):
                stats.errors += 1
                unknown.add(cluster.uuid)
                continue
            _, members, batch_ids = batches.setdefault(
                (cluster.project_id, driver.stack_service), (driver, [], set()))
            members.append(cluster)
            batch_ids |= ids
        stacks: dict[str, StackState] = {}
        for (project_id, _), (driver, members, ids) in batches.items():
            try:
                poll = self._poll(driver, members, sorted(ids))
            except Exception as exc:
                stats.errors += 1
                unknown.update(c.uuid for c in members)
                LOG.warning("Stack states of project %s unavailable this round: %s",
                            project_id, exc)
                continue
            stats.stack_requests += poll.requests
            stacks.update(poll.states)
        return stacks, unknown

    def _poll(self, driver: Driver, members: list[Any], ids: list[str]) -> StackPoll:
        """Ask through the trust of one of the project's clusters, else as the service."""
        for cluster in members:
            resources = Resources(None, cluster)
            if resources.has_trust:
                try:
                    resources.check_auth()
                except Exception as exc:
                    LOG.info("Trust of cluster %s unusable for the sync: %s", cluster.uuid, exc)
                    continue
                return driver.stack_states(resources.session(), ids)
        return driver.stack_states(keystone.admin_session(), ids, as_service=True)

    # --- one cluster ---------------------------------------------------------------------
    def _check(self, cluster: Any, groups: list[Any], stacks: dict[str, StackState],
               now: datetime.datetime, queued: frozenset[str] | set[str] = frozenset()
               ) -> bool:
        """Write the cluster's new state if its stacks changed; True if something was written.
        Node groups that queued requests moved (``queued``) are left to the queue."""
        groups = [ng for ng in groups if ng.uuid not in queued]
        states_now = [nodegroup_state(ng, stacks.get(ng.stack_id or "")) for ng in groups]
        status, reason = cluster_state(cluster.status, states_now)
        changed = status != cluster.status or any(
            (s.status, s.reason) != (ng.status, ng.status_reason) or s.gone
            for s, ng in zip(states_now, groups, strict=True))
        if not changed:
            timeout = self._timed_out(cluster, now)
            if timeout is None:
                return False
            return bool(self.executor.with_lease(
                cluster.uuid, lambda job: self._fail_timeout(job, _Observed.of(cluster),
                                                             timeout)))
        return bool(self.executor.with_lease(
            cluster.uuid, lambda job: self._apply(job, _Observed.of(cluster), stacks)))

    @staticmethod
    def _timed_out(cluster: Any, now: datetime.datetime) -> str | None:
        started = cluster.operation_at or cluster.created_at
        if started is None:
            return None
        if cluster.status == states.CREATE_IN_PROGRESS:
            minutes = create_timeout(cluster)
            what = "created"
        else:
            minutes = CONF.cluster_heat.update_timeout
            what = {states.DELETE_IN_PROGRESS: "deleted"}.get(cluster.status, "updated")
        if not minutes:
            return None
        limit = datetime.timedelta(minutes=minutes, seconds=CONF.conductor.sync_interval)
        if now - started <= limit:
            return None
        return (f"Timed out: the cluster's stacks were not {what} within {minutes} minutes "
                f"(Heat still reports them in progress).")

    def _fail_timeout(self, job: Job, seen: _Observed, reason: str) -> bool:
        if not seen.still(job.cluster):
            return False
        observed = seen.status
        failed = f"{states.action_of(observed)}_FAILED"
        if failed not in states.ALL_STATUSES:
            failed = states.UPDATE_FAILED
        queued = records.queued_targets(job.uuid)
        writes = [NodeGroupWrite(ng, {"status": f"{states.action_of(ng.status)}_FAILED"
                                      if states.action_of(ng.status) != "ROLLBACK"
                                      else states.ROLLBACK_FAILED, "status_reason": reason})
                  for ng in job.nodegroups()
                  if states.is_in_progress(ng.status) and ng.uuid not in queued]
        if not job.save_if(seen.expected(), Outcome(states.OPERATION_FAILED, reason), writes,
                           status=failed, status_reason=reason):
            return False
        lifecycle.stack_verdict(job, failed, reason)
        operations.advance(job.uuid, job.lease.owner)
        notifications.emit(None, notifications.action_for_status(failed),
                           notifications.FAILURE, job.cluster, job.nodegroups())
        return True

    def _apply(self, job: Job, seen: _Observed, stacks: dict[str, StackState]) -> bool:
        if not seen.still(job.cluster):
            return False  # an operation started since we looked: our snapshot is stale
        observed = seen.status
        queued = records.queued_targets(job.uuid)
        ngs = [ng for ng in job.nodegroups() if ng.uuid not in queued]
        groups = [nodegroup_state(ng, stacks.get(ng.stack_id or "")) for ng in ngs]
        unlisted = sorted({ng.stack_id for group, ng in zip(groups, ngs, strict=True)
                           if group.status == states.DELETE_COMPLETE and ng.stack_id
                           and ng.stack_id not in stacks})
        if unlisted and not job.driver.stacks_gone(job.resources, unlisted):
            LOG.warning("Cluster %s: stacks %s missing from Heat's list still exist; not "
                        "taken as deleted", job.uuid, unlisted)
            return False
        if deleted(groups):
            lifecycle.stack_verdict(job, states.DELETE_COMPLETE)
            complete_delete(job)
            return True
        delete_attempts = 0
        if observed == states.DELETE_IN_PROGRESS and any(
                g.status == states.DELETE_FAILED for g in groups):
            retried, delete_attempts = self._delete_again(job, seen, groups)
            if retried is not None:
                return retried
        failure_details: dict[str, str] = {}
        finished = {g.uuid for g in groups if g.status in OUTPUT_STATUSES}
        for group, ng in zip(groups, ngs, strict=True):
            if (group.status or "").endswith("_FAILED") and ng.stack_id and \
                    ng.stack_id not in failure_details and group.status != ng.status:
                failure_details[ng.stack_id] = job.driver.failure_details(job.resources,
                                                                          ng.stack_id)
        values: dict[str, Any] = {}
        if finished:
            outputs = self._outputs(job, ngs, finished)
            if outputs is None:
                return False  # never report *_COMPLETE without the outputs; retry next round
            values.update(outputs)
        # who is at fault is read from Heat's resource paths, before they are summarised
        attribute_shared_failures(groups)
        writes: list[NodeGroupWrite] = []
        for group, ng in zip(groups, ngs, strict=True):
            if group.gone:
                writes.append(NodeGroupWrite(ng, None))
                continue
            details = failure_details.get(ng.stack_id or "")
            if details and not group.bystander:
                group.reason = details
            ng_values = dict(values.pop(f"ng:{ng.uuid}", {}))
            if (group.status, group.reason) != (ng.status, ng.status_reason) or ng_values:
                writes.append(NodeGroupWrite(ng, {"status": group.status,
                                                  "status_reason": group.reason,
                                                  **ng_values}))
        status, reason = cluster_state(observed, groups)
        if delete_attempts > 1 and status == states.DELETE_FAILED:
            reason = f"{reason} (Heat failed the stack delete {delete_attempts} times.)"
        ended = bool(status) and not states.is_in_progress(status)
        settled = Outcome(operations.record_state(status), reason) if ended else None
        if not job.save_if(seen.expected(), settled, writes, status=status,
                           status_reason=reason,
                           **{k: v for k, v in values.items() if not k.startswith("ng:")}):
            return False
        if ended:
            if operations.advance(job.uuid, job.lease.owner) is not None:
                job.reload()  # the next queued operation holds the row now
        if ended and status != observed:
            lifecycle.stack_verdict(job, status, reason)
            outcome = (notifications.FAILURE if status.endswith("_FAILED")
                       else notifications.SUCCESS)
            notifications.emit(None, notifications.action_for_status(status), outcome,
                               job.cluster, job.nodegroups())
        return True

    @staticmethod
    def _delete_again(job: Job, seen: _Observed, groups: list[Any]) -> tuple[bool | None, int]:
        """Heat failed a stack delete of the running cluster delete: the delete runs again
        (its handler, from the stack look-up) once ``[conductor] stack_delete_backoff``
        (doubled per attempt) has passed since the failure was seen, up to
        ``stack_delete_attempts`` in all. (whether something was written, or None once
        the attempts are used up: the cluster then goes DELETE_FAILED; the attempts)."""
        record = next((r for r in records.open_of(job.uuid) if r.kind == states.OP_DELETE
                       and r.state == states.OPERATION_RUNNING), None)
        if record is None:
            return None, 0
        entry = (record.effects or {}).get("stack_delete") or {}
        attempts = int(entry.get("attempts") or 1)
        limit = CONF.conductor.stack_delete_attempts
        if attempts >= limit:
            return None, attempts
        why = next((g.reason for g in groups if g.status == states.DELETE_FAILED and g.reason),
                   "no reason given")
        now = db_api.server_now()
        delay = datetime.timedelta(
            seconds=CONF.conductor.stack_delete_backoff * 2 ** (attempts - 1))
        failed_at = entry.get("failed_at")
        if failed_at is None:
            progress = (f"Heat failed to delete the stacks ({why}); deleting them again in "
                        f"{delay.total_seconds():.0f} s (attempt {attempts + 1} of {limit}).")
            records.effect(record.uuid, "stack_delete", entry.get("state") or
                           states.EFFECT_DONE, failed_at=now.isoformat())
            records.note(record.uuid, progress)
            LOG.warning("Cluster %s: %s", job.uuid, progress)
            return job.save_if(seen.expected(), status_reason=progress), attempts
        if now < datetime.datetime.fromisoformat(failed_at) + delay:
            return False, attempts
        attempt = (f"Deleting the stacks again (attempt {attempts + 1} of {limit}) after Heat "
                   f"failed: {why}")
        args = {**(record.arguments or {}), "operation_id": record.uuid, "phase": "started"}
        if not job.save_if(seen.expected(), operation=states.OP_DELETE, operation_args=args,
                           operation_at=db_api.now(), status_reason=attempt):
            return False, attempts
        records.effect(record.uuid, "stack_delete", states.EFFECT_DONE, failed_at=None,
                       attempts=attempts + 1)
        records.note(record.uuid, attempt)
        ConductorAPI().cast_recorded(make_admin_context(), states.OP_DELETE, job.uuid)
        return True, attempts

    @staticmethod
    def _outputs(job: Job, ngs: list[Any], finished: set[str]) -> dict[str, Any] | None:
        """Row values the driver read from the finished stacks.

        None when a finished stack could not be read (Heat restarting, a transient 404):
        the caller then leaves the rows as they are and looks again next round.
        """
        values: dict[str, Any] = {}
        seen: set[str] = set()
        view = job.view(ngs)
        for ng in ngs:
            if ng.uuid not in finished or not ng.stack_id or ng.stack_id in seen:
                continue
            seen.add(ng.stack_id)
            try:
                outputs = job.driver.read_outputs(job.resources, view, ng.stack_id)
            except Exception as exc:
                LOG.warning("Could not read the outputs of stack %s (%s); retrying next round",
                            ng.stack_id, exc)
                return None
            for name in ("api_address", "coe_version", "container_version"):
                if getattr(outputs, name) is not None:
                    values[name] = getattr(outputs, name)
            for ng_uuid, addresses in outputs.node_addresses.items():
                values.setdefault(f"ng:{ng_uuid}", {})["node_addresses"] = addresses
            for ng_uuid, count in outputs.node_counts.items():
                values.setdefault(f"ng:{ng_uuid}", {})["node_count"] = count
        return values
