"""Schemathesis hooks for the fuzz run of ``test_api_fuzz`` (loaded by the schemathesis
process through ``SCHEMATHESIS_HOOKS``).

In that process: a conductor that finishes every operation at once (a real RPC server on
RabbitMQ, writing the rows as a conductor would), a snapshot of every table before each
request, and a check that a rejected request (4xx) changed no row, ``updated_at``
included, and sent nothing to the conductor. After an accepted request that casts, the next
request waits until the conductor has finished it, so a change always belongs to the request
that made it. What was seen is written to ``MAGNUM_FUZZ_STATS`` at exit.
"""

from __future__ import annotations

import atexit
import collections
import json
import os
import threading
import time
from typing import Any

import oslo_messaging
import schemathesis
import sqlalchemy as sa
from oslo_config import cfg

from magnum_common import config as magnum_config
from magnum_common import exception, states
from magnum_common.db import api as db_api
from magnum_common.db import models
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations
from tests.functional.api import support

CONF = cfg.CONF
DB_URL = os.environ["MAGNUM_FUZZ_DB"]
#: Operations whose accepted answer is followed by a cast the conductor finishes later.
CASTING = {("POST", "/v1/clusters"), ("PATCH", "/v1/clusters/{ident}"),
           ("DELETE", "/v1/clusters/{ident}"),
           ("POST", "/v1/clusters/{cluster_ident}/actions/resize"),
           ("POST", "/v1/clusters/{cluster_ident}/nodegroups"),
           ("PATCH", "/v1/clusters/{cluster_ident}/nodegroups/{ident}"),
           ("DELETE", "/v1/clusters/{cluster_ident}/nodegroups/{ident}")}


class FinishingConductor(support.RpcRecorder):
    """Takes every cast and call and leaves the rows as a successful conductor would."""

    def __init__(self, topic: str) -> None:
        self.finished: set[str] = set()
        super().__init__(topic)

    def record(self, ctxt, method: str, kwargs: dict) -> None:
        uuid = kwargs.get("cluster_uuid")
        try:
            if uuid:
                _finish(method, uuid)
        except exception.ClusterNotFound:
            pass
        with self._cond:
            self.finished.add(ctxt.request_id)
            self._cond.notify_all()

    def wait_finished(self, request_id: str, timeout: float = 30.0) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: request_id in self.finished, timeout=timeout)


def _finish(method: str, uuid: str) -> None:
    row = clusters.get_by_uuid(None, uuid)
    operation, args = row.operation, row.operation_args or {}
    ng_uuid = args.get("nodegroup_uuid")
    if method == "cluster_delete":
        for record in operations.open_of(uuid):
            operations.finish(record.uuid, states.OPERATION_SUCCEEDED)
        nodegroups.destroy_all_of(uuid)
        clusters.destroy(None, uuid)
        return
    if method == "cluster_create":
        clusters.update(None, uuid, {"status": states.CREATE_COMPLETE,
                                     "stack_id": "stack-" + uuid[:8],
                                     "api_address": "https://127.0.0.1:6443"})
        for ng in clusters.nodegroups_of(None, [uuid])[uuid]:
            nodegroups.update(None, ng.uuid, {"status": states.CREATE_COMPLETE})
    elif method in ("cluster_update", "cluster_resize", "cluster_upgrade"):
        clusters.update(None, uuid, {"status": states.UPDATE_COMPLETE})
        if method == "cluster_resize" and ng_uuid:
            nodegroups.update(None, ng_uuid, {"node_count": args["node_count"]})
    elif method == "nodegroup_create" and ng_uuid:
        nodegroups.update(None, ng_uuid, {"status": states.CREATE_COMPLETE})
    elif method == "nodegroup_update" and ng_uuid:
        nodegroups.update(None, ng_uuid, {**args.get("values", {}),
                                          "status": states.UPDATE_COMPLETE})
    elif method == "nodegroup_delete" and ng_uuid:
        nodegroups.destroy(None, ng_uuid)
    if operation:
        clusters.clear_operation(uuid, operation)
    for record in operations.open_of(uuid):  # the operation records, as a conductor ends them
        operations.finish(record.uuid, states.OPERATION_SUCCEEDED)


def _start() -> tuple[FinishingConductor, sa.Engine]:
    magnum_config.parse_args([], default_config_files=[])
    CONF.register_opts(oslo_messaging.transport._transport_opts)
    CONF.set_override("transport_url", os.environ["MAGNUM_FUZZ_TRANSPORT"])
    CONF.set_override("connection", DB_URL, "database")
    db_api.reset_engine()
    conductor = FinishingConductor(os.environ["MAGNUM_FUZZ_TOPIC"])
    return conductor, sa.create_engine(DB_URL, pool_size=1)


CONDUCTOR, ENGINE = _start()
TABLES = [t for t in models.Base.metadata.sorted_tables]
_local = threading.local()
STATS: dict[str, Any] = {"requests": 0, "rejected": 0, "statuses": collections.Counter(),
                         "operations": collections.Counter(), "rejected_ids": [],
                         "late_casts": []}


def snapshot() -> dict[str, list[str]]:
    """Every row of every table (the schema's), in primary-key order, each as text."""
    with ENGINE.connect() as conn:
        return {t.name: [json.dumps(list(r), default=str, sort_keys=True)
                         for r in conn.execute(sa.select(t).order_by(*t.primary_key.columns))]
                for t in TABLES}


def _diff(before: dict[str, list[str]], after: dict[str, list[str]]) -> list[str]:
    lines = []
    for name in before:
        gone = set(before[name]) - set(after[name])
        new = set(after[name]) - set(before[name])
        lines += [f"{name}: - {row}" for row in gone] + [f"{name}: + {row}" for row in new]
    return lines


def _request_id(response) -> str | None:
    """The answer's request id (schemathesis keeps each header as a list of values)."""
    values = response.headers.get("x-openstack-request-id") or []
    return values[0] if isinstance(values, list) and values else values or None


@schemathesis.hook
def before_call(context, case, kwargs):
    _local.before = snapshot()


@schemathesis.hook
def after_call(context, case, response):
    STATS["requests"] += 1
    STATS["statuses"][str(response.status_code)] += 1
    key = (case.method.upper(), case.path)
    STATS["operations"][f"{key[0]} {key[1]} {response.status_code}"] += 1
    request_id = _request_id(response)
    if key in CASTING and 200 <= response.status_code < 300 and request_id:
        assert CONDUCTOR.wait_finished(request_id), f"no cast for {request_id}"


@schemathesis.check
def rejection_changes_nothing(ctx, response, case):
    """A 4xx left every row as it was, and nothing reached the conductor for it."""
    if not 400 <= response.status_code < 500:
        return None
    STATS["rejected"] += 1
    changes = _diff(_local.before, snapshot())
    if changes:
        raise AssertionError(f"{response.status_code} changed state:\n" + "\n".join(
            changes[:20]))
    request_id = _request_id(response)
    if request_id:
        STATS["rejected_ids"].append(request_id)
    with CONDUCTOR._cond:
        late = CONDUCTOR.finished.intersection(STATS["rejected_ids"])
    if late:
        STATS["late_casts"] = sorted(late)
        raise AssertionError(f"rejected requests reached the conductor: {sorted(late)}")
    return None


@atexit.register
def _write_stats() -> None:
    time.sleep(0.5)  # a cast a rejected request sent would have arrived by now
    with CONDUCTOR._cond:
        STATS["late_casts"] = sorted(CONDUCTOR.finished.intersection(STATS["rejected_ids"]))
    STATS["rejected_ids"] = len(STATS["rejected_ids"])
    with open(os.environ["MAGNUM_FUZZ_STATS"], "w") as stream:
        json.dump(STATS, stream, indent=1, sort_keys=True)
    CONDUCTOR.stop()
