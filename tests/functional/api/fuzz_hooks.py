"""Schemathesis hooks for the fuzz run of ``test_api_fuzz`` (loaded by the schemathesis
process through ``SCHEMATHESIS_HOOKS``).

In that process: a conductor that finishes every operation at once (a real RPC server on
RabbitMQ, writing the rows as a conductor would), a snapshot of every table before each
request, and a check that a rejected request (4xx) changed no row, ``updated_at``
included, and sent nothing to the conductor. After an accepted request that may cast, the
next request waits until no operation is open, so a change always belongs to the request
that made it. Positive cases of the stateful phase are made valid where the API asks more
than the document's schemas can say (``map_case``). What was seen is written to
``MAGNUM_FUZZ_STATS`` at exit.
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
from magnum_common import exception, states, utils
from magnum_common.db import api as db_api
from magnum_common.db import models
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations
from tests.functional.api import fuzz_bodies, support

CONF = cfg.CONF
DB_URL = os.environ["MAGNUM_FUZZ_DB"]
#: Operations whose accepted answer is followed by a cast the conductor finishes later.
CASTING = {("POST", "/v1/clusters"), ("PATCH", "/v1/clusters/{ident}"),
           ("DELETE", "/v1/clusters/{ident}"),
           ("POST", "/v1/clusters/{cluster_ident}/actions/resize"),
           ("POST", "/v1/clusters/{cluster_ident}/nodegroups"),
           ("PATCH", "/v1/credentials/{cluster_ident}"),
           ("PATCH", "/v1/clusters/{cluster_ident}/nodegroups/{ident}"),
           ("DELETE", "/v1/clusters/{cluster_ident}/nodegroups/{ident}")}

#: The body fields naming another resource, by operation (``_references``).
REFERENCES = {("POST", "/v1/clusters/{cluster_ident}/actions/upgrade"):
              ("cluster_template", "nodegroup"),
              ("POST", "/v1/clusters/{cluster_ident}/actions/resize"): ("nodegroup",)}


class FinishingConductor(support.RpcRecorder):
    """Takes every cast and call and leaves the rows as a successful conductor would."""

    def __init__(self, topic: str) -> None:
        self.finished: set[str] = set()
        #: Held while a message is handled (its operation's record may end before its rows).
        self.busy = threading.Lock()
        super().__init__(topic)

    def record(self, ctxt, method: str, kwargs: dict) -> None:
        uuid = kwargs.get("cluster_uuid")
        try:
            if uuid:
                with self.busy:
                    _finish(method, uuid)
        except exception.ClusterNotFound:
            pass
        with self._cond:
            self.finished.add(ctxt.request_id)
            self._cond.notify_all()


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
    elif method in states.ACCEPTED_STATUS:  # the other operations: UPDATE_IN_PROGRESS
        clusters.update(None, uuid, {"status": states.UPDATE_COMPLETE})
    if method == "cluster_resize" and ng_uuid:
        nodegroups.update(None, ng_uuid, {"node_count": args["node_count"]})
    elif method == "cluster_upgrade" and ng_uuid:
        nodegroups.update(None, ng_uuid, {"status": states.UPDATE_COMPLETE})
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
                         "late_casts": [], "stateful": collections.Counter()}


def _settled(timeout: float = 30.0) -> bool:
    """Whether every recorded operation has ended within ``timeout``: the conductor finished
    what was cast (a request the API applies at once, such as a node group's new bounds,
    casts nothing)."""
    table = models.ClusterOperation.__table__
    query = sa.select(sa.func.count()).select_from(table).where(
        table.c.state.in_(states.OPERATION_OPEN))
    deadline = time.monotonic() + timeout
    while True:
        with ENGINE.connect() as conn:
            if not conn.execute(query).scalar():
                with CONDUCTOR.busy:  # what ended the last record has finished too
                    return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


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


def _references(key: tuple[str, str], path_parameters: dict | None, body: Any) -> None:
    """A positive upgrade names a template that exists (the cluster's own when the generated
    one names none), an upgrade or resize one of the cluster's node groups or none (the
    default): schemathesis reads a 404 after a link from the cluster's create as the cluster
    gone, and here it names the body's reference."""
    ident = (path_parameters or {}).get("cluster_ident")
    if key not in REFERENCES or not isinstance(body, dict) or not utils.is_uuid_like(ident):
        return
    try:
        cluster = clusters.get_by_uuid(None, ident)
    except exception.ClusterNotFound:
        return
    if "cluster_template" in REFERENCES[key]:
        try:
            cluster_templates.get_by_uuid(None, str(body.get("cluster_template")))
        except exception.ClusterTemplateNotFound:
            body["cluster_template"] = cluster.cluster_template_id
    names = {n for ng in clusters.nodegroups_of(None, [ident])[ident] for n in (ng.uuid, ng.name)}
    if body.get("nodegroup") is not None and body["nodegroup"] not in names:
        del body["nodegroup"]


@schemathesis.hook
def map_case(context, case):
    """Positive cases of the stateful phase made valid where the API asks more than JSON
    Schema can say (``fuzz_bodies``), and naming what exists, so that its links reach
    clusters, node groups and the cluster actions."""
    meta = case.meta
    if meta is not None and meta.phase.name == "stateful" \
            and meta.generation.mode == schemathesis.GenerationMode.POSITIVE:
        if case.headers is None:
            case.headers = {}
        key = (case.method.upper(), case.path)
        fuzz_bodies.repair(*key, case.headers, case.body)
        _references(key, case.path_parameters, case.body)
    return case


@schemathesis.hook
def before_call(context, case, kwargs):
    _local.before = snapshot()


@schemathesis.hook
def after_call(context, case, response):
    STATS["requests"] += 1
    STATS["statuses"][str(response.status_code)] += 1
    key = (case.method.upper(), case.path)
    STATS["operations"][f"{key[0]} {key[1]} {response.status_code}"] += 1
    if case.meta is not None and case.meta.phase.name == "stateful":
        STATS["stateful"][f"{key[0]} {key[1]} {response.status_code}"] += 1
    if key in CASTING and 200 <= response.status_code < 300:
        assert _settled(), f"operations still open after {case.method} {case.formatted_path}"


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
