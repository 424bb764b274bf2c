"""A single master without an etcd volume (terraform's default cluster) is upgraded, and
etcd's data survives the master's replacement: a ConfigMap written through the cluster's API
before the upgrade is read from the new master after it (the node simulator's etcd, handed
over as the node scripts do it: ``drivers/heat/etcd_handover.py``, ``40-etcd.sh``).

Then the failure: the master stopped (its handover timer does not run), a second upgrade fails
with a clear status_reason and replaces nothing; the master, started again, still serves the
data. The delete leaves no snapshot in Glance.

Full tier (the lead runs it): ``MAGNUM_LOCALCLOUD_TIER=full MAGNUM_LOCALCLOUD_DIR=...
pytest tests/localcloud/e2e/test_single_master_upgrade.py``.
"""

from __future__ import annotations

import json
import ssl
import subprocess
import urllib.error
import urllib.request
import uuid

import pytest

from localcloud.scenario import paths
from localcloud.scenario.life import ClusterLife, Deadlines, StepFailed

#: Short enough for a test, several rounds of the simulated handover timer (10 s).
HANDOVER_TIMEOUT = 45


@pytest.fixture(scope="module")
def magnum(start_magnum):
    with start_magnum("sqlite", overrides={
            "drivers": {"etcd_handover_timeout": str(HANDOVER_TIMEOUT)}}) as svc:
        yield svc


class SingleMasterLife(ClusterLife):
    """One master, etcd on its root disk; data written, upgraded, read back."""

    third_template = ""

    def create_templates(self) -> None:
        self.third_template = f"{self.tag}-k8s-v1-33-0"
        for name, tag in ((self.template, "v1.31.4"), (self.new_template, "v1.32.1"),
                          (self.third_template, "v1.33.0")):
            self.templates[name] = self.create_template(
                name, image="fedora-coreos-40" if tag == "v1.31.4" else "fedora-coreos-41",
                kube_tag=tag, etcd_volume=False)

    def delete_templates(self) -> None:
        for name in self.templates:
            self.delete_template(name)

    def api(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        """The cluster's API with the kubeconfig's client certificate (as kubectl would)."""
        target = self.workdir / "kubeconfig-initial"
        ctx = ssl.create_default_context(cafile=str(target / "ca.pem"))
        ctx.load_cert_chain(str(target / "cert.pem"), str(target / "key.pem"))
        req = urllib.request.Request(
            self.cluster["api_address"] + path, method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, context=ctx, timeout=20) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def write_data(self) -> None:
        self.secret_value = f"kept-{uuid.uuid4().hex}"
        code, _ = self.api("POST", "/api/v1/namespaces/default/configmaps", {
            "metadata": {"name": "before-upgrade"}, "data": {"value": self.secret_value}})
        if code != 201:
            raise StepFailed(f"ConfigMap create answered {code}")

    def read_data(self) -> None:
        code, obj = self.api("GET", "/api/v1/namespaces/default/configmaps/before-upgrade")
        if code != 200 or obj.get("data") != {"value": self.secret_value}:
            raise StepFailed(f"the ConfigMap written before is gone: {code} {obj}")
        self.n.detail("the ConfigMap written before the upgrade is read back")

    def master(self) -> dict:
        """The booted master as the simulator records it (settings without credentials)."""
        nodes = json.loads((paths.cloud_state_dir() / "run" / "nodesim-nodes.json").read_text())
        masters = [n for n in nodes
                   if n["env"].get("CLUSTER_UUID") == self.uuid
                   and n["env"].get("IS_MASTER") == "true"]
        if len(masters) != 1:
            raise StepFailed(f"expected one booted master, got {masters}")
        return masters[0]


def _glance_images(life: SingleMasterLife) -> list[dict]:
    out = life.demo.json("image", "list", "--hidden", "--long")
    return [i for i in out if i.get("Name") == f"magnum-etcd-handover-{life.uuid}"]


def test_single_master_upgrade_keeps_etcd_data(magnum, narrator, run_flow, tmp_path):
    life = SingleMasterLife(narrator, tmp_path, tag=f"etcd-{uuid.uuid4().hex[:4]}",
                            deadlines=Deadlines(create=900, update=900, delete=600))
    seen: dict = {}

    def upgraded() -> None:
        master = life.master()
        seen["restored_from"] = master["env"].get("ETCD_RESTORE_IMAGE")
        if not seen["restored_from"]:
            raise StepFailed(f"the new master did not restore from a snapshot: {master}")
        images = _glance_images(life)
        if [i["ID"] for i in images] != [seen["restored_from"]]:
            raise StepFailed(f"the snapshot image is not the one restored: {images}")
        blob = subprocess.run(life.demo.argv("image", "save", seen["restored_from"]),
                              capture_output=True, check=True, timeout=120,
                              env=life.demo.env).stdout
        if not blob or life.secret_value.encode() in blob:
            raise StepFailed("the snapshot in Glance is not encrypted")
        life.n.detail(f"restored from image {seen['restored_from']} ({len(blob)} bytes, "
                      "sealed)")

    def stop_master() -> None:
        seen["master"] = life.master()
        life._localcloud_node("stop", seen["master"]["env"]["NODE_NAME"])

    def upgrade_fails() -> None:
        template = life.show(life.name)["cluster_template_id"]
        life.run("coe", "cluster", "upgrade", life.name, life.third_template)
        cluster = life.wait_cluster(life.name, "UPDATE_FAILED", HANDOVER_TIMEOUT + 300)
        reason = cluster.get("status_reason") or ""
        life.n.detail(f"status_reason: {reason}")
        if "did not hand over its etcd snapshot" not in reason or "Nothing was replaced" \
                not in reason:
            raise StepFailed(f"unclear status_reason {reason!r}")
        if cluster["cluster_template_id"] != template:
            raise StepFailed("the failed upgrade changed the cluster's template")
        if life.master()["server_id"] != seen["master"]["server_id"] or \
                life.master()["digest"] != seen["master"]["digest"]:
            raise StepFailed("the master was replaced although the snapshot failed")
        if _glance_images(life) != []:
            raise StepFailed("the unanswered snapshot request was left in Glance")

    def start_master() -> None:
        life._localcloud_node("start", seen["master"]["env"]["NODE_NAME"])

    def snapshots_gone() -> None:
        if _glance_images(life):
            raise StepFailed("the deleted cluster's snapshot is still in Glance")

    steps = [
        ("Templates without an etcd volume", life.create_templates),
        ("Create 1 master + 1 worker", life.create_cluster),
        ("Wait for CREATE_COMPLETE", life.wait_created),
        ("Kubeconfig", life.write_config),
        ("Write a ConfigMap through the API", life.write_data),
        (f"Upgrade to {life.new_template}", life.upgrade),
        ("The new master restored a sealed snapshot", upgraded),
        ("The ConfigMap is read from the new master", life.read_data),
        ("Stop the master", stop_master),
        ("A second upgrade fails, nothing replaced", upgrade_fails),
        ("Start the master again", start_master),
        ("The old master still has the data", lambda: _retry(life.read_data)),
        ("Delete the cluster", life.delete_cluster),
        ("Nothing left behind", life.nothing_left),
        ("No snapshot left in Glance", snapshots_gone),
        ("Delete the templates", life.delete_templates),
    ]
    def cleanup() -> None:
        if "master" in seen:  # never leave a stopped name behind in the simulator
            subprocess.run([str(paths.LOCALCLOUD), "node", "start",
                            seen["master"]["env"]["NODE_NAME"]], capture_output=True,
                           timeout=120)
        life.cleanup()

    run_flow(narrator, magnum, steps, cleanup=cleanup)
    assert all(step.ok for step in narrator.steps)


def _retry(step, attempts: int = 20) -> None:
    """The simulator notices a started node within its poll (a few seconds)."""
    import time

    for _ in range(attempts - 1):
        try:
            return step()
        except (StepFailed, OSError):
            time.sleep(3)
    step()
