"""A periodic loop on a thread that no exception can end.

The conductor's background work (heartbeat, reconciler, status sync, health) must survive a
dropped DB connection or an unreachable Heat: each run's exception is logged and the loop
carries on at its next tick (oslo.db reconnects on the next checkout).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class PeriodicLoop:
    """Run ``func`` every ``interval`` seconds (measured start to start) until stopped."""

    def __init__(self, name: str, interval: float, func: Callable[[], object],
                 initial_delay: float = 0.0) -> None:
        self.name = name
        self.interval = interval
        self.func = func
        self.initial_delay = initial_delay
        self.runs = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float | None = 10.0) -> None:
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _run(self) -> None:
        if self._stop.wait(self.initial_delay):
            return
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self.func()
            except Exception:  # a loop outlives any single failure
                LOG.exception("Periodic task %s failed; retrying at the next interval", self.name)
            self.runs += 1
            self._stop.wait(max(0.0, self.interval - (time.monotonic() - started)))
