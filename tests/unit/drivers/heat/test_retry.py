"""Heat calls: transient failures (5xx, connection, timeout) are retried with back-off,
then reported with the reason; a 409 is the contract's StackBusy; nothing else is retried."""

from __future__ import annotations

import pytest
from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg

from drivers.heat import retry
from magnum_common import exception


@pytest.fixture(autouse=True)
def _no_back_off():
    cfg.CONF.set_override("heat_backoff", 0, "conductor")
    cfg.CONF.set_override("heat_attempts", 3, "conductor")


def _failing(*errors):
    """A call that raises ``errors`` in turn, then answers "done"; counts its calls."""
    calls = []

    def call():
        calls.append(1)
        if len(calls) <= len(errors):
            raise errors[len(calls) - 1]
        return "done"
    return call, calls


def test_transient_failures_are_retried_until_the_call_succeeds():
    call, calls = _failing(ks_exc.http.ServiceUnavailable(), ConnectionError("reset"))

    assert retry.call(call) == "done"
    assert len(calls) == 3


def test_after_the_last_attempt_heat_is_reported_unavailable_with_the_reason():
    call, calls = _failing(*[ks_exc.http.InternalServerError("boom")] * 3)

    with pytest.raises(exception.HeatUnavailable, match="after 3 attempts: .*boom"):
        retry.call(call)
    assert len(calls) == 3


def test_a_conflict_is_stack_busy_with_heats_message_and_is_not_retried():
    call, calls = _failing(ks_exc.http.Conflict("stack is in UPDATE_IN_PROGRESS"))

    with pytest.raises(exception.StackBusy, match="UPDATE_IN_PROGRESS"):
        retry.call(call)
    assert len(calls) == 1


def test_a_refused_request_is_not_retried():
    call, calls = _failing(ks_exc.http.BadRequest("bad parameter"))

    with pytest.raises(ks_exc.http.BadRequest):
        retry.call(call)
    assert len(calls) == 1


def test_an_operation_on_a_stack_heat_does_not_know_is_done_only_when_missing_is_ok():
    @retry.operation(missing_ok=True)
    def delete():
        raise ks_exc.http.NotFound("no such stack")

    @retry.operation()
    def update():
        raise ks_exc.http.NotFound("no such stack")

    assert delete() is None
    with pytest.raises(ks_exc.http.NotFound):
        update()
