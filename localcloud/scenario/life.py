"""A cluster's life through ``openstack coe`` as the demo user, and the fault cases.

Each public method of :class:`ClusterLife` and :class:`Faults` is one step: it says what it
runs, runs it, waits for the outcome within a deadline and checks it, raising
:class:`StepFailed` with what was expected and what was seen. ``main-job`` runs them in
order inside :meth:`Narrator.step`; the end-to-end tests call the same methods one by one.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import secrets
import subprocess
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from localcloud.scenario import kubectl as kubectl_tool
from localcloud.scenario import leftovers, paths
from localcloud.scenario.coe import ADMIN, DEMO, CliError, Openstack, accepted_uuid
from localcloud.scenario.narrate import Narrator

IMAGE = "fedora-coreos-40"
NEW_IMAGE = "fedora-coreos-41"
KUBE_TAG = "v1.31.4"
NEW_KUBE_TAG = "v1.32.1"
FLAVOR = "m1.small"
MASTER_FLAVOR = "m1.medium"
FAILING_FLAVOR = "fail.small"        # the local cloud's failure switch (localcloud/README.md)
KEYPAIR = "localcloud-demo"       # the demo keypair of the local cloud (any name passes in lite)
EXTERNAL_NETWORK = "public"
#: The local cloud's own network (127.10.0.0/16, no DHCP): the drivers' private subnet would
#: have DHCP on, which real Neutron refuses on a loopback subnet (localcloud/README.md).
FIXED_NETWORK = "private"
FIXED_SUBNET = "private-subnet"
LOCAL = ipaddress.ip_network("127.0.0.0/8")


class StepFailed(AssertionError):
    """A step did not end as it must; the message has the evidence."""


@dataclass
class Deadlines:
    """Seconds each kind of wait may take (generous: two cores, everything on them)."""

    create: float = 900.0
    update: float = 900.0
    delete: float = 600.0
    health: float = 180.0
    poll: float = 3.0


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise StepFailed(message)


def _openssl(*args: str) -> str:
    res = subprocess.run(["openssl", *args], capture_output=True, text=True, timeout=60)
    text = (res.stdout + res.stderr).strip()
    return text if res.returncode == 0 else \
        f"refused (exit {res.returncode}): {'; '.join(text.splitlines())}"


def check_local_addresses(cluster: dict) -> None:
    """Every address a cluster reports (API, masters, nodes) is on this machine."""
    api = urllib.parse.urlsplit(str(cluster.get("api_address") or "")).hostname
    addresses = [api] + list(cluster.get("master_addresses") or []) + list(
        cluster.get("node_addresses") or [])
    for address in addresses:
        try:
            local = ipaddress.ip_address(address or "") in LOCAL
        except ValueError:
            local = False
        _check(local, f"cluster {cluster.get('name')} reports {address!r}, not in 127.0.0.0/8: "
               f"api_address={cluster.get('api_address')!r} "
               f"master_addresses={cluster.get('master_addresses')!r} "
               f"node_addresses={cluster.get('node_addresses')!r}")


class _Base:
    """What every flow needs: the two users, the narrator, a scratch directory."""

    def __init__(self, narrator: Narrator, workdir: Path, tag: str | None = None,
                 deadlines: Deadlines | None = None) -> None:
        self.n = narrator
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.tag = tag or f"mj-{secrets.token_hex(2)}"
        self.deadlines = deadlines or Deadlines()
        self.demo = Openstack(DEMO)
        self.admin = Openstack(ADMIN)

    # --- running commands, with narration -------------------------------------------
    def run(self, *args: str, user: Openstack | None = None) -> str:
        user = user or self.demo
        self.n.command(user.display(*args))
        return user.run(*args).stdout

    def json(self, *args: str, user: Openstack | None = None) -> Any:
        user = user or self.demo
        self.n.command(user.display(*args, "-f", "json"))
        return user.json(*args)

    def refused(self, *args: str) -> CliError:
        """Run a command that must fail; return its error."""
        self.n.command(self.demo.display(*args))
        try:
            out = self.demo.run(*args).stdout
        except CliError as err:
            self.n.detail("refused: " + (err.stderr or err.stdout).strip().splitlines()[-1])
            return err
        raise StepFailed(f"`{self.demo.display(*args)}` succeeded but must fail:\n{out}")

    def show(self, cluster: str) -> dict:
        return self.demo.json("coe", "cluster", "show", cluster)

    def node_settings(self, cluster_uuid: str) -> list[dict[str, str]]:
        """What each live server of the cluster's stack (its masters and default workers)
        boots with (its bootstrap settings), read from its user data as the node simulator
        reads it. Only the stack's own servers: the cloud's others belong to other runs and
        may be deleted while they are read."""
        from localcloud.helpers import nodeboot

        cluster = self.show(cluster_uuid)
        stack_id = cluster.get("cluster_id") or cluster.get("stack_id")
        _check(bool(stack_id), f"cluster {cluster_uuid} has no stack: {cluster}")
        texts = [text for server_id in self.stack_servers(stack_id)
                 if (text := self.server_user_data(server_id)) is not None]
        nodes = [nodeboot.read_node("", text) for text in texts]
        return [node.env for node in nodes
                if node is not None and node.env.get("CLUSTER_UUID") == cluster_uuid]

    @staticmethod
    def stack_servers(stack_id: str) -> list[str]:
        """The ids of the stack's servers (its nested stacks' too), as admin."""
        return [r.physical_resource_id
                for r in leftovers._heat().resources.list(stack_id, nested_depth=3)
                if r.resource_type == "OS::Nova::Server" and r.physical_resource_id]

    @staticmethod
    def server_user_data(server_id: str) -> str | None:
        """A server's user data, or None once the server is gone: on the full tier Nova's
        record as admin sees it (microversion 2.3), on the lite tier the file Heat's server
        facade keeps (removed with the server)."""
        if paths.cloud_tier() == "full":
            answer = leftovers.admin_session().get(
                f"/servers/{urllib.parse.quote(server_id)}", raise_exc=False,
                endpoint_filter={"service_type": "compute", "interface": "public",
                                 "region_name": "RegionOne"},
                headers={"OpenStack-API-Version": "compute 2.3"})
            if answer.status_code == 404:
                return None
            _check(answer.ok, f"GET server {server_id}: {answer.status_code} {answer.text}")
            raw = answer.json()["server"].get("OS-EXT-SRV-ATTR:user_data")
            return base64.b64decode(raw).decode(errors="replace") if raw else None
        path = paths.cloud_state_dir() / "data" / "heat" / "servers" / f"{server_id}.user_data"
        try:
            return path.read_text()
        except FileNotFoundError:
            return None

    # --- templates -------------------------------------------------------------------
    def create_template(self, name: str, image: str = IMAGE, kube_tag: str = KUBE_TAG,
                        flavor: str = FLAVOR, etcd_volume: bool = True) -> dict:
        """``etcd_volume``: etcd on a volume of its own (else on the masters' root disks)."""
        ct = self.json("coe", "cluster", "template", "create", name, "--coe", "kubernetes",
                       "--image", image, "--external-network", EXTERNAL_NETWORK,
                       "--fixed-network", FIXED_NETWORK, "--fixed-subnet", FIXED_SUBNET,
                       "--flavor", flavor, "--master-flavor", MASTER_FLAVOR,
                       "--keypair", KEYPAIR, "--network-driver", "flannel",
                       "--labels", f"kube_tag={kube_tag}"
                       + (",etcd_volume_size=1" if etcd_volume else ""))
        _check(ct.get("uuid") and ct.get("name") == name, f"unexpected template: {ct}")
        self.n.detail(f"template {name} = {ct['uuid']} (image {ct.get('image_id')}, "
                      f"distro {ct.get('cluster_distro')}, driver {ct.get('driver')})")
        return ct

    def delete_template(self, name: str) -> None:
        self.run("coe", "cluster", "template", "delete", name)
        try:
            self.demo.run("coe", "cluster", "template", "show", name)
        except CliError as err:
            _check(err.http_status == 404, f"template {name}: expected 404 after delete, "
                   f"got {err}")
            return
        raise StepFailed(f"template {name} still exists after delete")

    # --- waiting ---------------------------------------------------------------------
    def wait_cluster(self, ident: str, target: str, deadline: float,
                     done: Callable[[dict], bool] = lambda c: True,
                     milestone: str | None = None) -> dict:
        """Poll ``cluster show`` until ``status == target`` and ``done(cluster)``.

        Prints each status change and, every 15 s, how far the Heat stacks are. Any other
        terminal status fails the step with the cluster's status_reason and faults; so does
        an address outside 127.0.0.0/8 in the cluster it returns.
        """
        t0 = time.monotonic()
        last_status, last_note = None, 0.0
        while True:
            cluster = self.show(ident)
            status = cluster.get("status")
            elapsed = time.monotonic() - t0
            if status != last_status:
                reason = cluster.get("status_reason")
                self.n.detail(f"{elapsed:6.1f}s  {status}" + (f"  ({reason})" if reason else ""))
                last_status, last_note = status, elapsed
            elif elapsed - last_note >= 15:
                self.n.detail(f"{elapsed:6.1f}s  {status}  {self._stack_progress(cluster)}")
                last_note = elapsed
            if status == target and done(cluster):
                check_local_addresses(cluster)
                if milestone:
                    at = self.n.milestone(milestone)
                    self.n.detail(f"{milestone}: {at:.1f}s after the job started")
                return cluster
            if status != target and str(status).endswith("_FAILED"):
                raise StepFailed(f"cluster {ident} is {status}, expected {target}: "
                                 f"status_reason={cluster.get('status_reason')!r} "
                                 f"faults={cluster.get('faults')!r}")
            if elapsed > deadline:
                seen = {k: cluster.get(k) for k in ("node_count", "node_addresses",
                                                     "cluster_template_id", "coe_version",
                                                     "updated_at", "status_reason")}
                raise StepFailed(f"cluster {ident} is {status} after {deadline:.0f}s, but the "
                                 f"expected outcome ({target} and the change asked for) "
                                 f"never showed: {seen}")
            time.sleep(self.deadlines.poll)

    def _stack_progress(self, cluster: dict) -> str:
        stack_id = cluster.get("cluster_id") or cluster.get("stack_id")
        if not stack_id:
            return "(no Heat stack yet)"
        try:
            res = leftovers._heat().resources.list(stack_id, nested_depth=3)
        except Exception as exc:  # progress is narration only; never fail on it
            return f"(Heat progress unavailable: {type(exc).__name__})"
        done = sum(1 for r in res if r.resource_status.endswith("_COMPLETE"))
        servers = [r for r in res if r.resource_type == "OS::Nova::Server"]
        up = sum(1 for r in servers if r.resource_status.endswith("_COMPLETE"))
        return f"(Heat: {done}/{len(res)} resources complete, {up}/{len(servers)} servers)"

    def wait_gone(self, ident: str, deadline: float) -> float:
        t0 = time.monotonic()
        last = None
        while True:
            try:
                cluster = self.demo.json("coe", "cluster", "show", ident)
            except CliError as err:
                _check(err.http_status == 404, f"cluster show {ident}: {err}")
                self.n.detail(f"{time.monotonic() - t0:6.1f}s  gone (404)")
                return time.monotonic() - t0
            status = cluster.get("status")
            if status != last:
                self.n.detail(f"{time.monotonic() - t0:6.1f}s  {status}")
                last = status
            _check(status != "DELETE_FAILED",
                   f"delete of {ident} failed: {cluster.get('status_reason')!r}")
            _check(time.monotonic() - t0 < deadline,
                   f"cluster {ident} still {status} after {deadline:.0f}s of deleting")
            time.sleep(self.deadlines.poll)

    # --- what a delete must leave behind: nothing --------------------------------------
    def record_footprint(self, cluster: dict, extra_stacks: set[str]) -> leftovers.Footprint:
        stacks = {s for s in {cluster.get("cluster_id"), *extra_stacks} if s}
        fp = leftovers.footprint(cluster["uuid"], stacks, cluster["name"][:20] + "-")
        self.n.detail(f"as admin, cluster {cluster['name']} owns: {fp.summary()}")
        return fp

    def check_nothing_left(self, before: leftovers.Footprint) -> None:
        left = leftovers.remaining(before)
        self.n.detail(f"as admin, left of {before.summary()}: {left.summary()}")
        _check(left.empty(), f"the deleted cluster {before.cluster_uuid} left behind: "
               f"stacks={sorted(left.stack_ids)} trustees={left.trustee_users} "
               f"trusts={sorted(left.trusts)} secrets={left.secrets} "
               f"containers={left.containers}")


class ClusterLife(_Base):
    """Template -> cluster -> config -> resize -> nodegroup -> upgrade -> CA -> delete."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.template = f"{self.tag}-k8s-{KUBE_TAG.replace('.', '-')}"
        self.new_template = f"{self.tag}-k8s-{NEW_KUBE_TAG.replace('.', '-')}"
        self.name = f"{self.tag}-k8s"
        self.uuid: str | None = None
        self.cluster: dict = {}
        self.templates: dict[str, dict] = {}
        self.stacks: set[str] = set()
        self.footprint: leftovers.Footprint | None = None
        self.ca_pem: str | None = None
        self.client_cert: Path | None = None
        self.stopped: dict = {}

    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        """The whole life, in order, as (title, step)."""
        return [
            (f"Create cluster templates ({IMAGE}, {KUBE_TAG}; {NEW_IMAGE}, {NEW_KUBE_TAG})",
             self.create_templates),
            ("Create a cluster (1 master, 1 worker)", self.create_cluster),
            ("Wait for CREATE_COMPLETE", self.wait_created),
            ("Show the cluster: API address and node addresses", self.show_cluster),
            ("Write a kubeconfig and verify it against the cluster CA", self.write_config),
            ("kubectl get --raw /healthz with that kubeconfig", self.kubectl_healthz),
            ("Wait for HEALTHY: the conductors' monitor reads the simulated API",
             self.wait_healthy),
            ("Stop the worker: UNHEALTHY, the reason names it", self.stop_worker),
            ("Start the worker again: HEALTHY", self.start_worker),
            ("Resize up to 3 workers", self.resize_up),
            ("Resize down to 2, removing a named worker", self.resize_down_named),
            ("Create a node group", self.create_nodegroup),
            ("Delete the node group", self.delete_nodegroup),
            (f"Upgrade to {self.new_template}", self.upgrade),
            ("Rotate the cluster CA", self.rotate_ca),
            ("The new CA's kubeconfig works, and HEALTHY again",
             self.wait_healthy_again),
            ("Delete the cluster", self.delete_cluster),
            ("Check as admin that nothing is left", self.nothing_left),
            ("Delete the cluster templates", self.delete_templates),
        ]

    def trustless_steps(self) -> list[tuple[str, Callable[[], None]]]:
        """What a deployment with ``[trust] cluster_user_trust = false`` adds, once the
        cluster is HEALTHY (its nodes got their certificates with the node token)."""
        return [
            ("The nodes hold no trust and no trustee password (their user data)",
             self.nodes_hold_no_trust),
            ("Rotate the credentials: only the conductors' trustee and trust change",
             self.rotate_credentials_trustless),
        ]

    # --- steps -----------------------------------------------------------------------
    def create_templates(self) -> None:
        self.templates[self.template] = self.create_template(self.template)
        self.templates[self.new_template] = self.create_template(
            self.new_template, image=NEW_IMAGE, kube_tag=NEW_KUBE_TAG)

    def create_cluster(self) -> None:
        out = self.run("coe", "cluster", "create", self.name, "--cluster-template",
                       self.template, "--master-count", "1", "--node-count", "1",
                       "--timeout", "30")
        self.n.detail(out.strip())
        self.uuid = accepted_uuid(out)

    def wait_created(self) -> None:
        self.cluster = self.wait_cluster(self.uuid, "CREATE_COMPLETE", self.deadlines.create,
                                         milestone="first CREATE_COMPLETE")
        if self.cluster.get("cluster_id"):
            self.stacks.add(self.cluster["cluster_id"])

    def show_cluster(self) -> None:
        c = self.cluster = self.json("coe", "cluster", "show", self.name)
        for key in ("status", "cluster_id", "api_address", "master_addresses",
                    "node_addresses", "coe_version", "node_count", "master_count",
                    "health_status"):
            self.n.detail(f"{key:17} {c.get(key)}")
        _check(str(c.get("api_address") or "").startswith("https://"),
               f"api_address must be an https URL, got {c.get('api_address')!r}")
        _check(len(c.get("master_addresses") or []) == 1,
               f"expected 1 master address, got {c.get('master_addresses')!r}")
        _check(len(c.get("node_addresses") or []) == 1,
               f"expected 1 node address, got {c.get('node_addresses')!r}")
        check_local_addresses(c)
        self.n.detail("every address the cluster reports is in 127.0.0.0/8")

    def _config(self, label: str) -> tuple[Path, dict]:
        target = self.workdir / f"kubeconfig-{label}"
        target.mkdir(exist_ok=True)
        out = self.run("coe", "cluster", "config", self.name, "--dir", str(target),
                       "--force", "--output-certs")
        self.n.detail(out.strip())
        config = yaml.safe_load((target / "config").read_text())
        return target, config

    def _verify(self, target: Path, config: dict, ca_pem: str) -> None:
        cluster = config["clusters"][0]["cluster"]
        _check(cluster["server"] == self.cluster.get("api_address"),
               f"kubeconfig server {cluster['server']!r} != api_address "
               f"{self.cluster.get('api_address')!r}")
        ca_data = base64.b64decode(cluster["certificate-authority-data"]).decode()
        _check(ca_data.strip() == ca_pem.strip(),
               "kubeconfig certificate-authority-data is not the CA `coe ca show` returns")
        _check((target / "ca.pem").read_text().strip() == ca_pem.strip(),
               "ca.pem is not the cluster CA")
        verdict = _openssl("verify", "-CAfile", str(target / "ca.pem"),
                           str(target / "cert.pem"))
        self.n.detail(f"$ openssl verify -CAfile ca.pem cert.pem -> {verdict}")
        _check(verdict.endswith(": OK"), f"client certificate not signed by the CA: {verdict}")
        subject = _openssl("x509", "-in", str(target / "cert.pem"), "-noout", "-subject")
        self.n.detail(f"client certificate {subject}")
        _check("system:masters" in subject and "admin" in subject,
               f"client certificate subject must keep the CSR's: {subject}")
        cert_key = _openssl("x509", "-in", str(target / "cert.pem"), "-noout", "-pubkey")
        own_key = _openssl("pkey", "-in", str(target / "key.pem"), "-pubout")
        _check(cert_key == own_key, "cert.pem does not match key.pem")

    def write_config(self) -> None:
        self.ca_pem = self.run("coe", "ca", "show", self.name)
        target, config = self._config("initial")
        self._verify(target, config, self.ca_pem)
        self.client_cert = target / "cert.pem"

    def kubectl_healthz(self, label: str = "initial") -> None:
        """kubectl checks the API server's certificate against the kubeconfig's CA and the
        simulated API requires the kubeconfig's client certificate: both must be the
        cluster's current ones."""
        kubectl = kubectl_tool.ensure()
        config = self.workdir / f"kubeconfig-{label}" / "config"
        argv = [kubectl, "--kubeconfig", str(config), "get", "--raw", "/healthz"]
        self.n.command(" ".join(argv))
        res = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        self.n.detail(f"-> exit {res.returncode}: {(res.stdout + res.stderr).strip()[:300]}")
        _check(res.returncode == 0 and res.stdout.strip() == "ok",
               f"kubectl get --raw /healthz: exit {res.returncode}, "
               f"{(res.stdout + res.stderr).strip()[:500]!r}")

    def _wait_health(self, wanted: str, deadline: float,
                     accept: Callable[[dict], bool] = lambda reason: True) -> dict:
        """Poll ``cluster show`` until the conductors' monitor saved ``wanted`` health."""
        t0 = time.monotonic()
        seen = None
        while True:
            c = self.show(self.name)
            status, reason = c.get("health_status"), c.get("health_status_reason") or {}
            if isinstance(reason, str):
                reason = yaml.safe_load(reason) or {}
            if (status, reason) != seen:
                self.n.detail(f"{time.monotonic() - t0:6.1f}s  health {status}  {reason}")
                seen = (status, reason)
            if status == wanted and accept(reason):
                return reason
            _check(time.monotonic() - t0 < deadline,
                   f"cluster {self.name} health is {status} ({reason}) after {deadline:.0f}s, "
                   f"expected {wanted}")
            time.sleep(self.deadlines.poll)

    def wait_healthy(self) -> None:
        c = self.show(self.name)
        nodes = int(c.get("master_count") or 0) + int(c.get("node_count") or 0)
        reason = self._wait_health("HEALTHY", self.deadlines.health)
        ready = [k for k in reason if k.endswith(".Ready")]
        _check(reason.get("api") == "ok" and len(ready) == nodes and all(reason[k] for k in ready),
               f"HEALTHY must come from /healthz and all {nodes} nodes Ready: {reason}")

    def _worker_node(self) -> dict:
        nodes = json.loads(subprocess.run([str(paths.LOCALCLOUD), "node", "list", "--json"],
                                          capture_output=True, text=True, check=True).stdout)
        workers = [n for n in nodes if n["cluster"] == self.uuid and n["role"] == "worker"]
        _check(len(workers) == 1, f"expected one simulated worker of {self.uuid}: {nodes}")
        return workers[0]

    def stop_worker(self) -> None:
        node = self.stopped = self._worker_node()
        if paths.cloud_tier() == "full":  # a real Nova server: the simulator follows it
            self.run("server", "stop", node["server_id"])
        else:
            self._localcloud_node("stop", node["name"])
        reason = self._wait_health("UNHEALTHY", self.deadlines.health,
                                   lambda r: r.get(f"{node['name']}.Ready") is False)
        _check(reason.get("api") == "ok", f"the API should still answer: {reason}")
        self.n.detail(f"reason: {node['name']}.Ready is false")

    def start_worker(self) -> None:
        node = self.stopped
        if paths.cloud_tier() == "full":
            self.run("server", "start", node["server_id"])
        else:
            self._localcloud_node("start", node["name"])
        self.wait_healthy()

    def _localcloud_node(self, action: str, name: str) -> None:
        argv = [str(paths.LOCALCLOUD), "node", action, name]
        self.n.command(" ".join(argv[-4:]))
        subprocess.run(argv, capture_output=True, text=True, check=True, timeout=120)

    def wait_healthy_again(self) -> None:
        self.kubectl_healthz("rotated")
        # health saved before the rotation may still show: let a poll with the new CA pass
        interval = paths.health_polling_interval()
        self.n.detail(f"waiting {interval + 2}s: a health poll after the rotation")
        time.sleep(interval + 2)
        self.wait_healthy()

    def _workers(self) -> dict[str, Any]:
        stack_id = self.cluster.get("cluster_id")
        out = self.json("stack", "output", "show", stack_id, "kube_minion_servers")
        value = out.get("output_value") if isinstance(out, dict) else None
        if isinstance(value, str):
            value = yaml.safe_load(value)
        _check(isinstance(value, dict), f"kube_minion_servers output is {out!r}")
        return value

    def resize_up(self) -> None:
        before = self.cluster.get("updated_at")
        self.run("coe", "cluster", "resize", self.name, "3")
        self.cluster = self.wait_cluster(
            self.name, "UPDATE_COMPLETE", self.deadlines.update,
            done=lambda c: c.get("node_count") == 3 and len(c.get("node_addresses") or []) == 3
            and c.get("updated_at") != before)
        self.n.detail(f"node_addresses {self.cluster['node_addresses']}")

    def resize_down_named(self) -> None:
        workers = self._workers()
        self.n.detail(f"workers (Heat output kube_minion_servers): {sorted(workers)}")
        _check(len(workers) == 3, f"expected 3 workers, Heat says {workers}")
        victim = sorted(workers)[1]
        self.run("coe", "cluster", "resize", self.name, "2", "--nodes-to-remove", victim)
        self.cluster = self.wait_cluster(
            self.name, "UPDATE_COMPLETE", self.deadlines.update,
            done=lambda c: c.get("node_count") == 2 and len(c.get("node_addresses") or []) == 2)
        left = self._workers()
        self.n.detail(f"workers now: {sorted(left)}")
        _check(victim not in left and set(left) == set(workers) - {victim},
               f"removing {victim} from {sorted(workers)} left {sorted(left)}")

    def create_nodegroup(self) -> None:
        out = self.run("coe", "nodegroup", "create", self.name, "extra", "--node-count", "1",
                       "--flavor", FLAVOR)
        self.n.detail(out.strip())
        t0 = time.monotonic()
        while True:
            ng = self.demo.json("coe", "nodegroup", "show", self.name, "extra")
            if ng.get("status") == "CREATE_COMPLETE":
                break
            _check(not str(ng.get("status")).endswith("FAILED"),
                   f"nodegroup extra is {ng.get('status')}: {ng.get('status_reason')!r}")
            _check(time.monotonic() - t0 < self.deadlines.update,
                   f"nodegroup extra still {ng.get('status')} after "
                   f"{self.deadlines.update:.0f}s")
            time.sleep(self.deadlines.poll)
        self.n.detail(f"nodegroup extra {ng['status']} after {time.monotonic() - t0:.1f}s: "
                      f"node_addresses {ng.get('node_addresses')}, stack {ng.get('stack_id')}")
        if ng.get("stack_id"):
            self.stacks.add(ng["stack_id"])
        _check(len(ng.get("node_addresses") or []) == 1,
               f"nodegroup extra has addresses {ng.get('node_addresses')!r}")
        self.cluster = self.wait_cluster(self.name, "UPDATE_COMPLETE", self.deadlines.update)
        listed = self.json("coe", "nodegroup", "list", self.name)
        self.n.detail("nodegroups: " + ", ".join(f"{g['name']}({g['node_count']})"
                                                  for g in listed))

    def delete_nodegroup(self) -> None:
        self.run("coe", "nodegroup", "delete", self.name, "extra")
        t0 = time.monotonic()
        while True:
            try:
                ng = self.demo.json("coe", "nodegroup", "show", self.name, "extra")
            except CliError as err:
                _check(err.http_status == 404, f"nodegroup show: {err}")
                break
            _check(ng.get("status") != "DELETE_FAILED",
                   f"nodegroup delete failed: {ng.get('status_reason')!r}")
            _check(time.monotonic() - t0 < self.deadlines.delete,
                   f"nodegroup extra still {ng.get('status')} after {self.deadlines.delete}s")
            time.sleep(self.deadlines.poll)
        self.n.detail(f"nodegroup extra gone after {time.monotonic() - t0:.1f}s")
        self.cluster = self.wait_cluster(self.name, "UPDATE_COMPLETE", self.deadlines.update)

    def upgrade(self) -> None:
        new_uuid = self.templates[self.new_template]["uuid"]
        before = self.cluster.get("updated_at")
        self.run("coe", "cluster", "upgrade", self.name, self.new_template)
        self.cluster = self.wait_cluster(
            self.name, "UPDATE_COMPLETE", self.deadlines.update,
            done=lambda c: c.get("cluster_template_id") == new_uuid
            and c.get("updated_at") != before)
        self.n.detail(f"cluster_template_id {self.cluster['cluster_template_id']}, "
                      f"coe_version {self.cluster.get('coe_version')}")
        _check(self.cluster.get("coe_version") == NEW_KUBE_TAG,
               f"coe_version after the upgrade is {self.cluster.get('coe_version')!r}, "
               f"expected {NEW_KUBE_TAG}")

    def rotate_ca(self) -> None:
        old_ca = self.ca_pem or self.run("coe", "ca", "show", self.name)
        before = self.cluster.get("updated_at")
        self.run("coe", "ca", "rotate", self.name)
        self.cluster = self.wait_cluster(self.name, "UPDATE_COMPLETE", self.deadlines.update,
                                         done=lambda c: c.get("updated_at") != before)
        new_ca = self.run("coe", "ca", "show", self.name)
        _check(new_ca.strip() != old_ca.strip(), "the CA did not change")
        self.n.detail("the CA changed")
        target, config = self._config("rotated")
        self._verify(target, config, new_ca)
        if self.client_cert is not None:
            verdict = _openssl("verify", "-CAfile", str(target / "ca.pem"),
                               str(self.client_cert))
            self.n.detail(f"old client certificate against the new CA -> {verdict}")
            _check(not verdict.endswith(": OK"), "the old client certificate still verifies")
        self.ca_pem = new_ca

    def nodes_hold_no_trust(self) -> None:
        nodes = self.node_settings(self.uuid)
        _check(len(nodes) >= 2, f"expected the master's and the worker's user data, found "
               f"{len(nodes)}")
        for env in nodes:
            held = sorted(k for k in ("TRUSTEE_USER_ID", "TRUSTEE_PASSWORD", "TRUST_ID")
                          if env.get(k))
            _check(not held, f"node {env.get('NODE_NAME')} holds {held}")
            _check(bool(env.get("NODE_TOKEN")), f"node {env.get('NODE_NAME')} has no node token")
        self.n.detail(f"{len(nodes)} nodes: no TRUSTEE_USER_ID, TRUSTEE_PASSWORD or TRUST_ID, "
                      "a NODE_TOKEN each")

    def trustees(self, cluster_uuid: str) -> dict[str, str]:
        """The cluster's trustee users (name -> id), as admin."""
        users = self.admin.json("user", "list", "--domain", "magnum")
        return {u["Name"]: u["ID"] for u in users if u["Name"].startswith(cluster_uuid + "_")}

    def trusts_of(self, user_ids: set[str]) -> list[dict]:
        """Every trust (as admin) whose trustee is one of ``user_ids``."""
        return [t for t in self.admin.json("trust", "list")
                if t.get("Trustee User ID") in user_ids]

    def rotate_credentials_trustless(self) -> None:
        before = self.trustees(self.uuid)
        _check(len(before) == 1 and len(self.trusts_of(set(before.values()))) == 1,
               f"expected one trustee with one trust, found {before}")
        stack = self.json("stack", "show", self.cluster["cluster_id"])
        status = self.show(self.name)["status"]
        self.run("coe", "credential", "rotate", self.name)
        deadline = time.monotonic() + self.deadlines.update
        while True:
            after = self.trustees(self.uuid)
            if set(after) - set(before) and not set(after) & set(before) and \
                    self.show(self.name)["status"] == status:
                break
            _check(time.monotonic() < deadline, f"trustees still {after} (were {before})")
            time.sleep(self.deadlines.poll)
        _check(len(after) == 1, f"expected the new trustee only, found {after}")
        self.n.detail(f"trustee {sorted(before)[0]} replaced by {sorted(after)[0]}")
        _check(not self.trusts_of(set(before.values())), "the old trust is still in Keystone")
        _check(len(self.trusts_of(set(after.values()))) == 1, "the new trustee has no trust")
        again = self.json("stack", "show", self.cluster["cluster_id"])
        _check(again.get("updated_time") == stack.get("updated_time"),
               "the stack was updated, though the nodes hold nothing to rotate")
        self.n.detail(f"status {status} again, the stack untouched")

    def delete_cluster(self) -> None:
        self.footprint = self.record_footprint(self.show(self.name), self.stacks)
        self.run("coe", "cluster", "delete", self.name)
        self.wait_gone(self.name, self.deadlines.delete)

    def nothing_left(self) -> None:
        _check(self.footprint is not None, "no footprint was recorded before the delete")
        self.check_nothing_left(self.footprint)

    def delete_templates(self) -> None:
        for name in (self.template, self.new_template):
            self.delete_template(name)

    def cleanup(self) -> None:
        """Best effort after a failure: delete what this flow created (demo's own)."""
        for args in (("coe", "cluster", "delete", self.name),):
            try:
                self.demo.run(*args)
            except CliError:
                pass
        if self.uuid:
            try:
                self.wait_gone(self.name, self.deadlines.delete)
            except (StepFailed, CliError):
                pass
        for name in self.templates:
            try:
                self.demo.run("coe", "cluster", "template", "delete", name)
            except CliError:
                pass


class Faults(_Base):
    """Bad input and a failing Heat stack."""

    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        return [
            ("Missing image: template and cluster create answer 400", self.missing_image),
            ("Failing stack: CREATE_FAILED naming the resource, then a clean delete",
             self.failing_stack),
        ]

    def missing_image(self) -> None:
        image = f"missing-{self.tag}"
        err = self.refused("coe", "cluster", "template", "create", f"{self.tag}-noimage",
                           "--coe", "kubernetes", "--image", image,
                           "--external-network", EXTERNAL_NETWORK)
        self._check_image_400(err, image)
        # A template whose image disappears afterwards: upload, template, delete the image.
        blob = self.workdir / "blob.raw"
        blob.write_bytes(b"\0" * 1024)
        created = self.json("image", "create", image, "--private", "--disk-format", "raw",
                            "--container-format", "bare", "--property",
                            "os_distro=fedora-coreos", "--file", str(blob))
        template = f"{self.tag}-noimage"
        try:
            self.create_template(template, image=image)
            self.run("image", "delete", created["id"])
            err = self.refused("coe", "cluster", "create", f"{self.tag}-noimage",
                               "--cluster-template", template, "--node-count", "1")
            self._check_image_400(err, image)
        finally:
            for args in (("image", "delete", created["id"]),
                         ("coe", "cluster", "template", "delete", template)):
                try:
                    self.demo.run(*args)
                except CliError:
                    pass

    def _check_image_400(self, err: CliError, image: str) -> None:
        text = err.stderr + err.stdout
        _check(err.http_status == 400, f"expected HTTP 400, got: {text.strip()}")
        _check(f"Image {image} could not be found" in text,
               f"expected 'Image {image} could not be found', got: {text.strip()}")

    def _remove(self, name: str, template: str) -> None:
        """Whatever failed above: the cluster and its template go (best effort)."""
        try:
            self.demo.run("coe", "cluster", "delete", name)
        except CliError:
            pass
        try:
            self.delete_template(template)
        except (CliError, StepFailed) as exc:
            self.n.detail(f"template {template} not deleted: {exc}")

    def delete_during_create(self) -> None:
        """``DELETE`` while Heat still creates the stack (terraform destroy, Ansible
        ``state: absent``): accepted, and the stack, trust and trustee, looked up as admin,
        are gone with the cluster."""
        template = f"{self.tag}-dwc"
        name = f"{self.tag}-dwc"
        self.create_template(template)
        try:
            self.run("coe", "cluster", "create", name, "--cluster-template", template,
                     "--node-count", "1", "--timeout", "30")
            deadline = time.monotonic() + self.deadlines.create
            while not ((cluster := self.show(name)).get("cluster_id")
                       or cluster.get("stack_id")):
                _check(cluster.get("status") == "CREATE_IN_PROGRESS"
                       and time.monotonic() < deadline,
                       f"no stack while CREATE_IN_PROGRESS: {cluster.get('status')} "
                       f"{cluster.get('status_reason')!r}")
                time.sleep(self.deadlines.poll)
            _check(cluster.get("status") == "CREATE_IN_PROGRESS",
                   f"the create ended before the delete: {cluster.get('status')}")
            footprint = self.record_footprint(cluster, set())
            _check(footprint.stack_ids and footprint.trustee_users,
                   f"the create made no stack or trustee yet: {footprint.summary()}")
            self.run("coe", "cluster", "delete", name)
            status = self.show(name).get("status")
            self.n.detail(f"first read after the delete: {status}")
            _check(status == "DELETE_IN_PROGRESS", f"expected DELETE_IN_PROGRESS, got {status}")
            self.wait_gone(name, self.deadlines.delete)
            self.check_nothing_left(footprint)
        finally:
            self._remove(name, template)

    def failing_stack(self) -> None:
        template = f"{self.tag}-failing"
        name = f"{self.tag}-fails"
        self.create_template(template, flavor=FAILING_FLAVOR)
        try:
            out = self.run("coe", "cluster", "create", name, "--cluster-template", template,
                           "--node-count", "1", "--timeout", "30")
            self.n.detail(out.strip())
            cluster = self.wait_cluster(name, "CREATE_FAILED", self.deadlines.create)
            reason = cluster.get("status_reason") or ""
            self.n.detail(f"status_reason: {reason}")
            self.n.detail(f"faults: {cluster.get('faults')}")
            # Lite: the stub names the flavor; full: Nova finds no host for fail.small.
            # Concise: the server resource and its message once, not Heat's nested chain.
            _check("(OS::Nova::Server)" in reason and "resources." not in reason,
                   f"status_reason must name the failing server resource and its message "
                   f"once, got {reason!r}")
            footprint = self.record_footprint(cluster, set())
            self.run("coe", "cluster", "delete", name)
            self.wait_gone(name, self.deadlines.delete)
            self.check_nothing_left(footprint)
        finally:
            self._remove(name, template)
