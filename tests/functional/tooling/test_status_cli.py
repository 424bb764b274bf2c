"""``magnum-status upgrade check`` as an operator runs it: a process reading magnum.conf."""

from __future__ import annotations

import datetime
import json
import pathlib
import subprocess
import sys
import time
import types

from magnum_common import states
from magnum_common.db import api as db_api
from magnum_common.db.clusters import ClusterRepository
from magnum_common.db.orphans import OrphanRepository
from magnum_common.utils import generate_uuid

MAGNUM_STATUS = pathlib.Path(sys.executable).parent / "magnum-status"
CHECKS = ["Policy file", "Policy file JSON to YAML migration", "Database schema",
          "Clusters stuck in progress", "Orphans of deleted clusters", "Certificate store",
          "Cluster drivers"]


def run_checks(conf: pathlib.Path) -> tuple[int, dict[str, dict]]:
    result = subprocess.run(
        [str(MAGNUM_STATUS), "--config-file", str(conf), "upgrade", "check", "--json"],
        capture_output=True, text=True, timeout=120,
    )
    output = json.loads(result.stdout)
    return result.returncode, {check["check"]: check for check in output["checks"]}


def test_checks_run_against_the_configured_database_and_policy_file(db, tmp_path):
    stuck = generate_uuid()
    ClusterRepository().create(None, {
        "uuid": stuck, "name": "stuck", "project_id": "p1", "status": states.CREATE_IN_PROGRESS,
        "updated_at": db_api.now() - datetime.timedelta(hours=3),
    })
    orphan = OrphanRepository().record("trust", "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
                                       types.SimpleNamespace(uuid=stuck, project_id="p1",
                                                             user_id="u1"),
                                       "Keystone refused.", 3)
    (tmp_path / "policy.yaml").write_text('cluster:get: "role:admin or"\n')
    conf = tmp_path / "magnum.conf"
    conf.write_text(f"[database]\nconnection = {db}\n"
                    f"[oslo_policy]\npolicy_file = {tmp_path / 'policy.yaml'}\n")

    code, checks = run_checks(conf)

    assert list(checks) == CHECKS
    assert checks["Database schema"]["result"] == 0
    assert checks["Clusters stuck in progress"]["result"] == 1
    assert stuck in checks["Clusters stuck in progress"]["details"]
    orphans = checks["Orphans of deleted clusters"]
    assert orphans["result"] == 1
    assert f"trust {orphan.ref} of cluster {stuck} (3 attempts" in orphans["details"]
    assert checks["Policy file"]["result"] == 2
    # The real magnum.drivers entry points are loaded (each is named, loaded or not).
    for driver in ("k8s_fedora_coreos_v1", "k8s_ubuntu_v1", "k8s_fedora_atomic_v1"):
        assert driver in checks["Cluster drivers"]["details"]
    assert code == max(check["result"] for check in checks.values()) == 2


def test_unreachable_database_is_reported_at_once(tmp_path):
    conf = tmp_path / "magnum.conf"
    conf.write_text("[database]\nconnection = mysql+pymysql://root@127.0.0.1:1/magnum\n")

    started = time.monotonic()
    code, checks = run_checks(conf)

    assert time.monotonic() - started < 60
    assert code == 2
    assert "Cannot reach the database" in checks["Database schema"]["details"]
