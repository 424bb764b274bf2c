"""The walk of one cluster create, measured: from the create controller to ``stacks.create``.

Usage: ``python bench/bench_walk_create.py``

One ``POST /v1/clusters`` in this process, through the real pieces: the API's paste
pipeline (noauth, webtest) with the API tests' stub Glance / Nova / Neutron, the cast on the
real RabbitMQ, one conductor (``magnum_conductor.service.Conductor``) with the real
``k8s_fedora_coreos_v1`` driver, against the conductor tests' Keystone + Heat stand-in, on a
migrated SQLite database. A profiler watches every call into the four packages
(``magnum_api``, ``magnum_common``, ``magnum_conductor``, ``drivers``) and prints:

* the walk: the functions on the stack when the API casts (from the controller), then those
  on the stack when the driver calls heatclient's ``stacks.create`` (from the RPC endpoint),
  with the file of each; the architecture guide's table is this list
  (``doc/source/contributor/architecture.rst``);
* every function and file entered on the way, side calls included (validation, database,
  trust, certificates, parameters, rendering).

Printed, never asserted.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile
import threading
import time
import uuid
from typing import Any

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from report import result  # noqa: E402

PACKAGES = tuple(f"{REPO / name}/" for name in ("magnum_api", "magnum_common",
                                                "magnum_conductor", "drivers"))
#: Where each half of the walk starts (file suffix, function qualname).
API_START = ("magnum_api/controllers/v1/clusters.py", "ClustersController.post")
API_END = ("magnum_common/conductor_api.py", "ConductorAPI._cast")
CONDUCTOR_START = ("magnum_conductor/engine/endpoints.py", "ConductorEndpoint.cluster_create")
HEAT_CREATE = ("heatclient/v1/stacks.py", "StackManager.create")


def _ours(filename: str) -> str | None:
    """The repository-relative path of a module of the four packages (not a template
    Jinja compiled), else None."""
    ours = filename.startswith(PACKAGES) and filename.endswith(".py")
    return filename[len(str(REPO)) + 1:] if ours else None


class Walk:
    """The profiler: the two chains, and every function entered inside either half."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.api_chain: list[tuple[str, str]] = []
        self.conductor_chain: list[tuple[str, str]] = []
        self.entered: set[tuple[str, str]] = set()

    @staticmethod
    def _chain(frame: Any) -> list[tuple[str, str]]:
        """Our frames on the stack, outermost first."""
        chain = []
        while frame is not None:
            path = _ours(frame.f_code.co_filename)
            if path:
                chain.append((path, frame.f_code.co_qualname))
            frame = frame.f_back
        return chain[::-1]

    @staticmethod
    def _within(chain: list[tuple[str, str]], start: tuple[str, str]) -> list[tuple[str, str]]:
        return chain[chain.index(start):] if start in chain else []

    def profile(self, frame: Any, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        key = (code.co_filename, code.co_qualname)
        if key[0].endswith(HEAT_CREATE[0]) and key[1] == HEAT_CREATE[1]:
            with self.lock:
                if not self.conductor_chain:
                    self.conductor_chain = self._within(self._chain(frame.f_back),
                                                        CONDUCTOR_START)
            return
        path = _ours(code.co_filename)
        if path is None:
            return
        chain = self._chain(frame)
        api = self._within(chain, API_START)
        conductor = self._within(chain, CONDUCTOR_START)
        with self.lock:
            if api and not self.api_chain:
                self.entered.add((path, code.co_qualname))
                if (path, code.co_qualname) == API_END:
                    self.api_chain = api
            elif conductor and not self.conductor_chain:
                self.entered.add((path, code.co_qualname))


def _configure(workdir: pathlib.Path) -> tuple[Any, Any, str]:
    """The stand-ins, the options of both services and a migrated database."""
    sys.path.insert(0, str(REPO / "tests" / "functional" / "conductor"))
    import support as conductor_support
    from oslo_config import cfg

    from magnum_api import conf as api_conf  # noqa: F401 - registers the API's options
    from magnum_common import config as magnum_config
    from magnum_common.db import api as db_api
    from magnum_common.db import migration
    from tests.functional.api import support as api_support

    standin = conductor_support.Standin()
    stub = api_support.StubCloud()
    try:
        topic = f"walk-{uuid.uuid4().hex[:8]}"
        magnum_config.parse_args([], default_config_files=[])
        conductor_support.apply_options(conductor_support.options(standin.url, topic))
        conf = cfg.CONF
        conf.set_override("connection", f"sqlite:///{workdir / 'magnum.sqlite'}", "database")
        conf.set_override("auth_strategy", "noauth")
        for name, value in stub.overrides().items():
            conf.set_override(name, value, "api")
        stub.projects.add("demo-project")
        db_api.reset_engine()
        migration.upgrade()
    except BaseException:
        standin.stop()  # a process of its own: it would outlive this one
        stub.stop()
        raise
    return standin, stub, api_support.IMAGE_ID


def main() -> None:
    import webtest

    workdir = pathlib.Path(tempfile.mkdtemp(prefix="walk-create-"))
    standin, stub, image = _configure(workdir)
    from magnum_api import app as api_app
    from magnum_common import rpc
    from magnum_conductor.service import Conductor

    walk = Walk()
    threading.setprofile(walk.profile)
    conductor = Conductor()
    conductor.start()
    headers = {"X-User-Id": "demo-user", "X-Project-Id": "demo-project",
               "X-Roles": "member,reader", "X-Auth-Token": "user-demo-user-walk",
               "OpenStack-API-Version": "container-infra latest"}
    try:
        api = webtest.TestApp(api_app.load_app())
        template = api.post_json("/v1/clustertemplates", {
            "name": "walk", "coe": "kubernetes", "image_id": image, "flavor_id": "m1.small",
            "master_flavor_id": "m1.medium", "external_network_id": "public",
            "labels": {"kube_tag": "v1.31.4"}}, headers=headers).json
        sys.setprofile(walk.profile)
        try:
            api.post_json("/v1/clusters", {"cluster_template_id": template["uuid"],
                                           "name": "walk", "node_count": 1},
                          headers=headers, status=202)
        finally:
            sys.setprofile(None)
        deadline = time.monotonic() + 60
        while not walk.conductor_chain and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        threading.setprofile(None)
        conductor.stop()
        rpc.cleanup()
        standin.stop()
        stub.stop()
    steps = walk.api_chain + walk.conductor_chain
    if not walk.conductor_chain:
        sys.exit("the conductor never reached stacks.create (see the conductor's log)")
    print("\nThe walk of POST /v1/clusters to heat.stacks.create:")
    for number, (path, function) in enumerate(steps, 1):
        print(f"{number:3d}  {path:48s} {function}")
    files = {path for path, _ in steps}
    print(f"\n{len(steps)} functions in {len(files)} files on the way (the calls on the stack)")
    entered_files = {path for path, _ in walk.entered}
    print(f"{len(walk.entered)} functions in {len(entered_files)} files entered, side calls "
          "included:")
    for path in sorted(entered_files):
        names = sorted(name for p, name in walk.entered if p == path)
        print(f"     {path}: {', '.join(names)}")
    result("create walk: functions on the way", len(steps), "functions")
    result("create walk: files on the way", len(files), "files")
    result("create walk: functions entered (side calls included)", len(walk.entered),
           "functions")
    result("create walk: files entered (side calls included)", len(entered_files), "files")


if __name__ == "__main__":
    main()
