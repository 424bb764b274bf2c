"""End-to-end fixtures: the local cloud, and our magnum-api + two conductors on it.

The services are started exactly as ``tools/main-job`` starts them (same module,
``localcloud/scenario``), once per test module and database backend. The catalog gives
Magnum one port (9511), so a module holds a file lock while its services run: xdist workers
and a concurrent ``main-job`` take turns instead of colliding.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager

import pytest

from localcloud.scenario import paths, services
from localcloud.scenario.narrate import Narrator

UP_TIMEOUT = int(os.environ.get("LOCALCLOUD_UP_TIMEOUT", "1500"))
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "gw0")


@pytest.fixture(scope="session")
def cloud() -> dict:
    """The running local cloud (``localcloud up`` when it is not up, or not on the tier
    ``MAGNUM_LOCALCLOUD_TIER`` asks for; idempotent, locked)."""
    import subprocess

    status = paths.cloud_status()
    asked = os.environ.get("MAGNUM_LOCALCLOUD_TIER")
    if not status.get("up") or (asked and status.get("tier") != asked):
        res = subprocess.run([str(paths.LOCALCLOUD), "up", *(["--tier", asked] if asked else [])],
                             capture_output=True, text=True, timeout=UP_TIMEOUT)
        status = paths.cloud_status()
        if res.returncode != 0 or not status.get("up") or \
                (asked and status.get("tier") != asked):
            pytest.fail("the local cloud is not up after `localcloud up`:\n%s\n%s"
                        % (res.stdout[-3000:], res.stderr[-3000:]), pytrace=False)
    return status


def _tails(svc: services.MagnumServices, lines: int = 40) -> str:
    out = []
    for log in sorted(svc.logs.glob("*.log")):
        text = log.read_text(errors="replace").splitlines()[-lines:]
        out.append(f"----- {log} (last {len(text)} lines)\n" + "\n".join(text))
    return "\n".join(out)


@pytest.fixture(scope="session")
def start_magnum(cloud):
    """``with start_magnum(backend, overrides) as svc:`` - our services on a fresh database,
    ``overrides`` (group -> option -> value) winning over the local cloud's options."""

    @contextmanager
    def start(backend: str, overrides: dict[str, dict[str, str]] | None = None):
        kept = services.kept_run()
        if kept is not None:
            pytest.fail(f"a `main-job --keep` run holds port {paths.API_PORT} "
                        f"({kept['run_dir']}); stop it with tools/main-job --stop",
                        pytrace=False)
        lock = services.PortLock(timeout=3600)
        lock.acquire()
        name = f"e2e_{backend}_{WORKER}"
        svc = services.MagnumServices(run_dir=services.new_run_dir(name.replace("_", "-")),
                                      backend=backend, name=name,
                                      overrides=overrides or {})
        try:
            svc.prepare()
            svc.start()
            try:
                svc.wait_ready(timeout=240)
            except services.ServiceError as exc:
                pytest.fail(f"{exc}\n{_tails(svc)}", pytrace=False)
            yield svc
        finally:
            svc.stop()
            lock.release()

    return start


@pytest.fixture
def narrator() -> Narrator:
    return Narrator(t0=time.time())


@pytest.fixture(scope="session")
def run_flow():
    """Run a flow's steps one by one; a failing step fails the test with the services' logs."""

    def run(narrator: Narrator, svc: services.MagnumServices, steps, cleanup=None) -> None:
        for title, step in steps:
            try:
                with narrator.step(title):
                    step()
            except Exception as exc:
                if cleanup is not None:
                    cleanup()
                pytest.fail(f"step {title!r} failed: {type(exc).__name__}: {exc}\n"
                            f"{_tails(svc)}", pytrace=False)

    return run
