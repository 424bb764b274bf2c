"""CADF cluster notifications: the action of a status, the event's shape, sent only when a
notification driver is configured (oslo.messaging's in-memory ``test`` driver here), and a
failure to notify never fails the operation."""

from __future__ import annotations

import datetime
import types

import pytest
from oslo_config import cfg
from oslo_messaging.notify import _impl_test

from magnum_common import rpc, states
from magnum_common.context import RequestContext
from magnum_conductor.engine import notifications

CONF = cfg.CONF
CLUSTER = "0b2b5e6c-6f0e-4f2e-9c56-3e7c4fd2a1b3"
USER = "5b0c6e2f8a4d4e0f9c3b2a1d0e9f8a7b"
CTX = RequestContext(user_id=USER, project_id="p", user_domain_id="d")


def _cluster(**kw):
    values = {name: None for name in notifications._FIELDS}
    values.update(uuid=CLUSTER, name="c1", docker_volume_size=5,
                  created_at=datetime.datetime(2024, 1, 2, 3, 4, 5), status="CREATE_COMPLETE")
    values.update(kw)
    return types.SimpleNamespace(**values)


def _group(role: str, count: int, addresses: list[str]):
    return types.SimpleNamespace(role=role, node_count=count, node_addresses=addresses)


@pytest.fixture
def test_driver():
    rpc.get_notification_transport()
    CONF.set_override("driver", ["test"], "oslo_messaging_notifications")
    notifications._notifier = None
    _impl_test.reset()
    yield _impl_test.NOTIFICATIONS
    _impl_test.reset()
    notifications._notifier = None
    rpc.cleanup()


def test_the_action_of_each_status():
    assert [notifications.action_for_status(s) for s in (
        states.CREATE_FAILED, states.DELETE_IN_PROGRESS, states.UPDATE_COMPLETE,
        states.ROLLBACK_FAILED, states.RESUME_COMPLETE, None)] == [
        "create", "delete", "update", "update", None, None]


def test_the_event_names_who_and_which_cluster_with_its_totals():
    groups = [_group("master", 1, ["127.0.0.10"]), _group("worker", 2, ["127.0.0.11"]),
              _group("worker", 3, ["127.0.0.12", "127.0.0.13"])]
    event = notifications.build_event(CTX, notifications.CREATE, notifications.SUCCESS,
                                      _cluster(), groups)
    assert (event["action"], event["outcome"], event["eventType"]) == (
        "create", "success", "activity")
    assert event["initiator"]["id"] == USER and event["initiator"]["project_id"] == "p"
    assert event["target"]["id"] == CLUSTER and event["target"]["name"] == "c1"
    data = event["target"]["attachments"][0]["content"]
    assert (data["master_count"], data["node_count"]) == (1, 5)
    assert data["node_addresses"] == ["127.0.0.11", "127.0.0.12", "127.0.0.13"]
    assert data["created_at"] == "2024-01-02T03:04:05" and data["status"] == "CREATE_COMPLETE"
    anonymous = notifications.build_event(None, "delete", "pending", _cluster(name=None), [])
    assert anonymous["initiator"]["id"] == "unknown" and anonymous["target"]["name"] == CLUSTER


def test_sent_only_with_a_driver_and_failures_as_errors(test_driver):
    notifications.emit(CTX, notifications.UPDATE, notifications.FAILURE, _cluster())
    notifications.emit(CTX, None, notifications.SUCCESS, _cluster())  # no action: nothing
    assert [(message["event_type"], priority) for _, message, priority, _ in test_driver] == [
        ("magnum.cluster.update", "ERROR")]
    assert test_driver[0][1]["publisher_id"] == f"container-infra.{CONF.host}"
    assert test_driver[0][1]["payload"]["outcome"] == "failure"
    CONF.set_override("driver", [], "oslo_messaging_notifications")
    notifications.emit(CTX, notifications.CREATE, notifications.SUCCESS, _cluster())
    assert len(test_driver) == 1


def test_a_failure_to_notify_is_only_logged(test_driver, caplog):
    unreadable = _cluster(created_at="not a datetime")  # the event cannot be built
    notifications.emit(CTX, notifications.DELETE, notifications.SUCCESS, unreadable)
    assert test_driver == []
    assert f"Could not send the delete/success notification of cluster {CLUSTER}" in caplog.text
