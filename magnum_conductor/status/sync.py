"""Following Heat: the partitioned, batched status sync of in-progress clusters.

Every interval each conductor reads the in-progress clusters (a light column query), keeps
its own share (hashring.Partition over the live conductors), and asks Heat about all their
stacks with a few ``stacks.list(filters={'id': [...]})`` calls per project (stack lists are
project-scoped) instead of one ``stacks.get`` per cluster. Only clusters whose state changed
are written, under the cluster's lease; for stacks that finished, the outputs are parsed
by the driver, and for failed stacks the reason names the failed resources. Clusters whose
operation is still recorded belong to the handlers / reconciler and are skipped, as are
clusters that stay in progress past their timeout (marked failed instead).
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import time
from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from oslo_log import log as logging

from drivers.heat import retry as heat_retry
from magnum_common import states
from magnum_common.db import api as db_api
from magnum_common.db import models
from magnum_common.db.services import is_up, magnum_services
from magnum_conductor.conf import BINARY, CONF
from magnum_conductor.engine import notifications
from magnum_conductor.engine.executor import Executor
from magnum_conductor.engine.handlers.cluster import complete_delete, create_timeout
from magnum_conductor.engine.job import Job
from magnum_conductor.engine.resources import Resources
from magnum_conductor.identity import keystone
from magnum_conductor.status.aggregate import (
    OUTPUT_STATUSES,
    Stack,
    attribute_shared_failures,
    cluster_state,
    deleted,
    nodegroup_state,
)
from magnum_conductor.status.hashring import HashRing, Partition

LOG = logging.getLogger(__name__)

#: Stack ids per stack-list request (keeps the query string well under URL limits).
CHUNK = 80
#: Seconds after an operation was sent during which Heat may still show the previous result.
SETTLE_SECONDS = 3

_CLUSTER_COLUMNS = (
    "uuid", "project_id", "status", "status_reason", "stack_id", "operation", "operation_at",
    "created_at", "create_timeout", "trust_id", "trustee_user_id", "trustee_password",
    "trustee_username", "name",
)
_NG_COLUMNS = ("uuid", "name", "cluster_id", "stack_id", "status", "status_reason",
               "is_default", "role")


@dataclasses.dataclass
class SyncStats:
    polled: int = 0
    polled_uuids: list[str] = dataclasses.field(default_factory=list)
    changed: int = 0
    heat_requests: int = 0
    errors: int = 0
    seconds: float = 0.0


def live_conductor_hosts() -> list[str]:
    now = db_api.now()
    return sorted({s.host for s in magnum_services.list_all()
                   if s.binary == BINARY and not s.disabled and is_up(s, now)})


def _in_progress_clusters() -> list[Any]:
    table = models.Cluster.__table__
    query = sa.select(*(table.c[name] for name in _CLUSTER_COLUMNS)).where(
        table.c.status.in_(sorted(states.IN_PROGRESS)))
    with db_api.reader() as session:
        return list(session.execute(query).all())


def _nodegroups_of(uuids: list[str]) -> dict[str, list[Any]]:
    table = models.NodeGroup.__table__
    result: dict[str, list[Any]] = collections.defaultdict(list)
    with db_api.reader() as session:
        for start in range(0, len(uuids), 500):
            query = sa.select(*(table.c[name] for name in _NG_COLUMNS)).where(
                table.c.cluster_id.in_(uuids[start:start + 500])).order_by(table.c.id)
            for row in session.execute(query):
                result[row.cluster_id].append(row)
    return result


def _chunks(items: list[str], size: int) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def failed_resources(heat: Any, stack_id: str, limit: int = 3) -> str:
    """'Resource a (OS::X) CREATE_FAILED: why; ...' for the deepest failed resources."""
    try:
        resources = heat_retry.call(heat.resources.list, stack_id, nested_depth=2)
    except Exception as exc:  # the stack's own reason still says something
        LOG.debug("Could not list resources of stack %s: %s", stack_id, exc)
        return ""
    failed = [r for r in resources if (r.resource_status or "").endswith("FAILED")]
    # Leaves first: a parent's reason only repeats its child's.
    failed.sort(key=lambda r: getattr(r, "physical_resource_id", None) is None)
    parts = [f"Resource {r.resource_name} ({r.resource_type}) {r.resource_status}: "
             f"{r.resource_status_reason}" for r in failed[-limit:]]
    return "; ".join(parts)


class StatusSync:
    """One conductor process's share of the Heat polling."""

    def __init__(self, executor: Executor, host: str, worker: int = 0,
                 workers: int = 1) -> None:
        self.executor = executor
        self.host = host
        self.worker = worker
        self.workers = workers
        self.last = SyncStats()

    def partition(self) -> Partition:
        hosts = set(live_conductor_hosts()) | {self.host}
        return Partition(HashRing(hosts), self.host, self.worker, self.workers)

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
        stacks, unknown_projects = self._fetch(mine, groups_of, stats)
        for cluster in mine:
            if cluster.project_id in unknown_projects:
                continue
            if cluster.operation_at and (now - cluster.operation_at).total_seconds() < \
                    SETTLE_SECONDS:
                continue
            try:
                if self._check(cluster, groups_of.get(cluster.uuid, []), stacks, now):
                    stats.changed += 1
            except Exception:
                stats.errors += 1
                LOG.exception("Status sync of cluster %s failed", cluster.uuid)
        stats.seconds = time.monotonic() - started
        self.last = stats
        return stats

    def _fetch(self, mine: list[Any], groups_of: dict[str, list[Any]],
               stats: SyncStats) -> tuple[dict[str, Stack], set[str]]:
        """Stack states by id, batched per project; projects Heat could not answer for."""
        by_project: dict[str, list[Any]] = collections.defaultdict(list)
        for cluster in mine:
            by_project[cluster.project_id].append(cluster)
        stacks: dict[str, Stack] = {}
        unknown: set[str] = set()
        for project_id, members in by_project.items():
            ids = sorted({ng.stack_id for c in members for ng in groups_of.get(c.uuid, [])
                          if ng.stack_id} | {c.stack_id for c in members if c.stack_id})
            if not ids:
                continue
            try:
                stacks.update(self._list_stacks(members, ids, stats))
            except Exception as exc:
                stats.errors += 1
                unknown.add(project_id)
                LOG.warning("Heat status of project %s unavailable this round: %s",
                            project_id, exc)
        return stacks, unknown

    def _list_stacks(self, members: list[Any], ids: list[str],
                     stats: SyncStats) -> dict[str, Stack]:
        heat = self._project_heat(members)
        found: dict[str, Stack] = {}
        if heat is None:
            return self._get_each_as_admin(ids, stats)
        for chunk in _chunks(ids, CHUNK):
            stats.heat_requests += 1
            for stack in heat_retry.call(lambda c=chunk: list(
                    heat.stacks.list(filters={"id": c}, limit=len(c)))):
                found[stack.id] = Stack(stack.id, stack.stack_status,
                                        getattr(stack, "stack_status_reason", None))
        return found

    def _project_heat(self, members: list[Any]) -> Any:
        """A Heat client of the project, through the trust of one of its clusters."""
        for cluster in members:
            resources = Resources(None, cluster)
            if resources.has_trust:
                try:
                    resources.check_auth()
                    return resources.heat()
                except Exception as exc:
                    LOG.info("Trust of cluster %s unusable for the sync: %s", cluster.uuid, exc)
        return None

    def _get_each_as_admin(self, ids: list[str], stats: SyncStats) -> dict[str, Stack]:
        """No usable trust in the project: ask for each stack as the service."""
        from heatclient import client as heat_client

        heat = heat_client.Client("1", session=keystone.admin_session(),
                                  service_type="orchestration")
        found: dict[str, Stack] = {}
        for stack_id in ids:
            stats.heat_requests += 1
            try:
                stack = heat_retry.call(heat.stacks.get, stack_id)
            except Exception as exc:
                if heat_retry.is_not_found(exc):
                    continue
                raise
            if stack.stack_status != states.DELETE_COMPLETE:
                found[stack.id] = Stack(stack.id, stack.stack_status,
                                        getattr(stack, "stack_status_reason", None))
        return found

    # --- one cluster ---------------------------------------------------------------------
    def _check(self, cluster: Any, groups: list[Any], stacks: dict[str, Stack],
               now: datetime.datetime) -> bool:
        """Write the cluster's new state if Heat changed it; True if something was written."""
        states_now = [nodegroup_state(ng, stacks.get(ng.stack_id or "")) for ng in groups]
        status, reason = cluster_state(cluster.status, states_now)
        changed = status != cluster.status or any(
            (s.status, s.reason) != (ng.status, ng.status_reason) or s.gone
            for s, ng in zip(states_now, groups, strict=True))
        if not changed:
            timeout = self._timed_out(cluster, now)
            if timeout is None:
                return False
            return self.executor.with_lease(
                cluster.uuid, lambda job: self._fail_timeout(job, cluster.status, timeout)) \
                is not None
        return self.executor.with_lease(
            cluster.uuid, lambda job: self._apply(job, cluster.status, stacks)) is not None

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

    def _fail_timeout(self, job: Job, observed: str, reason: str) -> bool:
        cluster = job.cluster
        if cluster.operation is not None or cluster.status != observed:
            return False
        failed = f"{states.action_of(observed)}_FAILED"
        if failed not in states.ALL_STATUSES:
            failed = states.UPDATE_FAILED
        for ng in job.nodegroups():
            if states.is_in_progress(ng.status):
                job.save_nodegroup(ng.uuid, status=f"{states.action_of(ng.status)}_FAILED"
                                   if states.action_of(ng.status) != "ROLLBACK"
                                   else states.ROLLBACK_FAILED, status_reason=reason)
        job.save(status=failed, status_reason=reason)
        notifications.emit(None, notifications.action_for_status(failed),
                           notifications.FAILURE, job.cluster, job.nodegroups())
        return True

    def _apply(self, job: Job, observed: str, stacks: dict[str, Stack]) -> bool:
        cluster = job.cluster
        if cluster.operation is not None or cluster.status != observed:
            return False  # a handler started something since we looked
        ngs = job.nodegroups()
        groups = [nodegroup_state(ng, stacks.get(ng.stack_id or "")) for ng in ngs]
        if deleted(groups):
            complete_delete(job)
            return True
        heat = None
        failure_details: dict[str, str] = {}
        finished = {g.uuid for g in groups if g.status in OUTPUT_STATUSES}
        for group, ng in zip(groups, ngs, strict=True):
            if (group.status or "").endswith("_FAILED") and ng.stack_id and \
                    ng.stack_id not in failure_details and group.status != ng.status:
                heat = heat or job.resources.heat()
                failure_details[ng.stack_id] = failed_resources(heat, ng.stack_id)
        values: dict[str, Any] = {}
        if finished:
            outputs = self._outputs(job, ngs, finished)
            if outputs is None:
                return False  # never report *_COMPLETE without the outputs; retry next round
            values.update(outputs)
        for group, ng in zip(groups, ngs, strict=True):
            if group.gone:
                job.lease.ensure()
                from magnum_common.db.nodegroups import nodegroups

                nodegroups.destroy(None, ng.uuid)
                continue
            reason = group.reason
            details = failure_details.get(ng.stack_id or "")
            if details and details not in (reason or ""):
                group.reason = reason = f"{reason}; {details}" if reason else details
        attribute_shared_failures(groups)
        for group, ng in zip(groups, ngs, strict=True):
            if group.gone:
                continue
            reason = group.reason
            ng_values = dict(values.pop(f"ng:{ng.uuid}", {}))
            if (group.status, reason) != (ng.status, ng.status_reason) or ng_values:
                job.save_nodegroup(ng.uuid, status=group.status, status_reason=reason,
                                   **ng_values)
        status, reason = cluster_state(observed, groups)
        job.save(status=status, status_reason=reason,
                 **{k: v for k, v in values.items() if not k.startswith("ng:")})
        if status and not states.is_in_progress(status) and status != observed:
            outcome = (notifications.FAILURE if status.endswith("_FAILED")
                       else notifications.SUCCESS)
            notifications.emit(None, notifications.action_for_status(status), outcome,
                               job.cluster, job.nodegroups())
        return True

    @staticmethod
    def _outputs(job: Job, ngs: list[Any], finished: set[str]) -> dict[str, Any] | None:
        """Row values parsed by the driver from the finished stacks (outputs resolved).

        None when a finished stack could not be read (Heat restarting, a transient 404):
        the caller then leaves the rows as they are and looks again next round.
        """
        heat = job.resources.heat()
        values: dict[str, Any] = {}
        seen: set[str] = set()
        for ng in ngs:
            if ng.uuid not in finished or not ng.stack_id or ng.stack_id in seen:
                continue
            seen.add(ng.stack_id)
            try:
                stack = heat_retry.call(heat.stacks.get, ng.stack_id, resolve_outputs=True)
                outputs = job.driver.parse_outputs(job.cluster, job.template, ngs, stack)
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
