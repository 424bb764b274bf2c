"""A periodic loop survives every failure of its task and stops when asked."""

from __future__ import annotations

import threading

from magnum_conductor.engine.periodic import PeriodicLoop


def test_a_failing_run_does_not_end_the_loop():
    calls: list[int] = []
    third = threading.Event()

    def task():
        calls.append(len(calls))
        if len(calls) >= 3:
            third.set()
        if len(calls) % 2:
            raise ConnectionError("database went away")

    loop = PeriodicLoop("flaky", 0.01, task)
    loop.start()
    assert third.wait(10), calls
    loop.stop()
    stopped_at = loop.runs
    assert stopped_at >= 3 and not loop._thread.is_alive()
    assert loop.runs == stopped_at  # nothing runs after stop


def test_a_loop_stopped_during_its_initial_delay_never_runs():
    ran = threading.Event()
    loop = PeriodicLoop("late", 0.01, ran.set, initial_delay=30)
    loop.start()
    loop.stop(timeout=5)
    assert not loop._thread.is_alive() and not ran.is_set() and loop.runs == 0


def test_a_task_may_stop_its_own_loop():
    holder: dict = {}

    def task():
        holder["loop"].stop()  # from the loop's own thread: no join on itself

    holder["loop"] = loop = PeriodicLoop("self-stopping", 0.01, task)
    loop.start()
    loop._thread.join(10)
    assert loop.runs == 1
