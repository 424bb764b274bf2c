"""The conductors' lifecycle log, read from the log records of real operations (in-process
conductor over RabbitMQ, the Keystone/Heat stand-in): one INFO line per step, one WARNING
with the reason when an operation fails."""

from __future__ import annotations

import logging
import re

import support

from magnum_common import states
from magnum_common.conductor_api import ConductorAPI
from magnum_common.db.clusters import clusters

LINE = re.compile(r"^operation=(?P<operation>\S+) cluster=(?P<cluster>\S+) "
                  r"nodegroup=(?P<nodegroup>\S+) step=(?P<step>\S+) outcome=(?P<outcome>\S+) "
                  r"seconds=(?P<seconds>\d+\.\d{3}) request_id=(?P<request_id>\S+)"
                  r"(?: reason=(?P<reason>.+))?$")


def _lines(caplog, cluster_uuid: str) -> list[dict]:
    found = []
    for record in caplog.records:
        if record.name != "magnum_conductor.lifecycle":
            continue
        match = LINE.match(record.getMessage())
        assert match, record.getMessage()
        if match["cluster"] == cluster_uuid:
            found.append({**match.groupdict(), "level": record.levelname})
    return found


def _wait(uuid_: str, status: str) -> None:
    support.wait_for(lambda: (c := clusters.get_by_uuid(None, uuid_)).status == status
                     and c.operation is None, what=status)


def test_every_step_of_a_create_and_a_delete_is_one_info_line(conductor, standin, caplog):
    caplog.set_level(logging.INFO, logger="magnum_conductor.lifecycle")
    standin.control(create_seconds=0.5)
    api = ConductorAPI()
    ctx = support.requester()
    cluster = support.record_cluster(ctx, support.make_template())
    api.cluster_create(ctx, cluster.uuid)
    _wait(cluster.uuid, states.CREATE_COMPLETE)
    api.cluster_delete(ctx, cluster.uuid)
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == "GONE", what="deleted")

    lines = _lines(caplog, cluster.uuid)
    assert all(line["level"] == "INFO" and line["reason"] is None for line in lines), lines
    steps = [(line["operation"], line["step"], line["outcome"]) for line in lines]
    # the trust, the stack, then the certificates: nothing Heat does not need comes first
    assert steps == [
        ("cluster_create", "trust", "ok"),
        ("cluster_create", "auth", "ok"), ("cluster_create", "stack_create", "ok"),
        ("cluster_create", "certificates", "ok"),
        ("cluster_create", "operation", "ok"),
        ("cluster_create", "stack", "CREATE_COMPLETE"),
        ("cluster_delete", "auth", "ok"), ("cluster_delete", "stack_find", "found"),
        ("cluster_delete", "stack_delete", "ok"),
        ("cluster_delete", "operation", "ok"),
        ("cluster_delete", "stack", "DELETE_COMPLETE"),
        ("cluster_delete", "trust_delete", "ok"),
        ("cluster_delete", "certificates_delete", "ok"),
        ("cluster_delete", "rows_delete", "ok"),
    ]
    # the steps the requester's RPC call ran carry its request id
    handled = [line for line in lines if line["step"] not in
               ("stack", "trust_delete", "certificates_delete", "rows_delete")]
    assert {line["request_id"] for line in handled} == {ctx.request_id}
    create = {line["step"]: float(line["seconds"]) for line in lines
              if line["operation"] == "cluster_create"}
    # the operation's seconds cover its steps; Heat's verdict came after the stand-in's 0.5 s
    assert create["operation"] >= create["trust"] + create["stack_create"]
    assert create["stack"] >= 0.5


def test_a_failed_operation_is_one_warning_naming_the_step_and_reason(conductor, standin,
                                                                     caplog):
    caplog.set_level(logging.INFO)
    standin.control(fail_5xx=1000)
    ctx = support.requester()
    cluster = support.record_cluster(ctx, support.make_template())
    ConductorAPI().cluster_create(ctx, cluster.uuid)
    _wait(cluster.uuid, states.CREATE_FAILED)

    lines = _lines(caplog, cluster.uuid)
    steps = [(line["step"], line["outcome"], line["level"]) for line in lines]
    # no certificates are stored for a stack Heat never took
    assert steps == [("trust", "ok", "INFO"), ("auth", "ok", "INFO"),
                     ("stack_create", "failed", "WARNING")]
    assert "Heat did not answer after 3 attempts" in lines[-1]["reason"]
    assert lines[-1]["request_id"] == ctx.request_id
    # no traceback at ERROR besides it: the reason is the story
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
