"""Credential rotation through our services on the local cloud's real Keystone and Heat, with
nodes that hold the trust (``[trust] cluster_user_trust = true``).

The cluster is created by a member of demo's project who then leaves (their Keystone user
is deleted); its master got its API certificate with the trustee's token (so the cluster
turned HEALTHY). demo then runs ``openstack coe credential rotate``: a new trustee and a
trust from demo, and a stack update through it that replaces the nodes with user data
carrying them: the stacks' ``trustee_user_id`` parameter and every live server's user data
name the new trustee, the old trustee and trust are gone from Keystone once the update is
complete, and the replaced master's API serves again (it signed its certificate as the new
trustee).
The rotation without the nodes' trust is a step of test_cluster_life.py's CI run.
"""

from __future__ import annotations

import time
import uuid

import pytest
import yaml

from localcloud.scenario import paths
from localcloud.scenario.coe import ADMIN, DEMO, CliError, Openstack
from localcloud.scenario.life import KEYPAIR, ClusterLife, Deadlines, StepFailed


@pytest.fixture(scope="module")
def magnum(start_magnum):
    with start_magnum("sqlite", overrides={"trust": {"cluster_user_trust": "true"}}) as svc:
        yield svc


@pytest.fixture
def creator(tmp_path):
    """A member of demo's project (with demo's roles) and the CLI acting as them."""
    admin = Openstack(ADMIN)
    name, password = f"leaver-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    admin.run("user", "create", "--domain", "default", "--project", "demo", "--password",
              password, name)
    for role in ("member", "load-balancer_member"):
        admin.run("role", "add", "--user", name, "--project", "demo", role)
    clouds = yaml.safe_load(paths.clouds_yaml().read_text())
    entry = clouds["clouds"][DEMO]
    clouds["clouds"]["leaver"] = {**entry, "auth": {**entry["auth"], "username": name,
                                                    "password": password}}
    config = tmp_path / "clouds.yaml"
    config.write_text(yaml.safe_dump(clouds))
    cli = Openstack("leaver")
    cli.env["OS_CLIENT_CONFIG_FILE"] = str(config)
    if paths.cloud_tier() == "full":
        # Nova's keypairs are per user: the template's keypair must be the creator's own
        # (the lite tier's server facade does not look keypairs up).
        cli.run("keypair", "create", "--public-key",
                str(paths.cloud_state_dir() / "demo-key.pub"), KEYPAIR)
    yield name, cli
    if paths.cloud_tier() == "full":
        try:
            cli.run("keypair", "delete", KEYPAIR)
        except CliError:  # removed by the test, before the creator left
            pass
    try:
        admin.run("user", "delete", name)
    except Exception:  # already gone: the test deleted it
        pass


class RotationLife(ClusterLife):
    def __init__(self, *args, creator: tuple[str, Openstack], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.member = self.demo
        self.creator_name, self.demo = creator

    def steps(self):
        return [
            ("Create a cluster template", self.create_one_template),
            ("Create a cluster (1 master, 1 worker)", self.create_cluster),
            ("Wait for CREATE_COMPLETE", self.wait_created),
            ("Write a kubeconfig and verify it against the cluster CA", self.write_config),
            ("Wait for HEALTHY: the master signed its certificate as the trustee",
             self.wait_healthy),
            ("The nodes hold the trustee and its trust", self.nodes_hold_the_trust),
            ("The creator leaves: their Keystone user is deleted", self.creator_leaves),
            ("Rotate the credentials: the nodes get the new pair, then the old one goes",
             self.rotate_credentials),
            ("The replaced master serves its API again", self.serves_again),
            ("Delete the cluster", self.delete_cluster),
            ("Check as admin that nothing is left", self.nothing_left),
            ("Delete the cluster templates", self.delete_templates),
        ]

    def create_one_template(self) -> None:
        self.templates[self.template] = self.create_template(self.template)

    def _only_trustee(self) -> tuple[str, str]:
        trustees = self.trustees(self.uuid)
        if len(trustees) != 1:
            raise StepFailed(f"expected one trustee of the cluster, found {trustees}")
        [user_id] = trustees.values()
        trusts = self.trusts_of({user_id})
        if len(trusts) != 1:
            raise StepFailed(f"expected one trust to trustee {user_id}, found {trusts}")
        return user_id, trusts[0]["ID"]

    def _nodes_hold(self, user_id: str, trust_id: str) -> None:
        nodes = self.node_settings(self.uuid)
        if len(nodes) < 2:
            raise StepFailed(f"expected the master's and the worker's user data: {len(nodes)}")
        for env in nodes:
            held = (env.get("TRUSTEE_USER_ID"), env.get("TRUST_ID"))
            if held != (user_id, trust_id) or not env.get("TRUSTEE_PASSWORD"):
                raise StepFailed(f"node {env.get('NODE_NAME')} holds {held}, expected "
                                 f"{(user_id, trust_id)} and a password")
            if env.get("NODE_TOKEN"):
                raise StepFailed(f"node {env.get('NODE_NAME')} holds a node token too")
        self.n.detail(f"{len(nodes)} nodes hold trustee {user_id} and trust {trust_id}")

    def nodes_hold_the_trust(self) -> None:
        self.old = self._only_trustee()
        self._nodes_hold(*self.old)

    def creator_leaves(self) -> None:
        if paths.cloud_tier() == "full":
            # Nova keeps a deleted user's keypairs: the creator removes theirs before leaving
            # (the rotation's new servers are demo's, with demo's keypair of the same name).
            self.run("keypair", "delete", KEYPAIR)
        self.run("user", "delete", self.creator_name, user=self.admin)
        self.demo = self.member  # demo, another member of the project, carries on

    def rotate_credentials(self) -> None:
        before = self.cluster.get("updated_at")
        self.run("coe", "credential", "rotate", self.name)
        self.cluster = self.wait_cluster(self.name, "UPDATE_COMPLETE", self.deadlines.update,
                                         done=lambda c: c.get("updated_at") != before)
        new = self._only_trustee()
        if new[0] == self.old[0] or new[1] == self.old[1]:
            raise StepFailed(f"the trustee and trust did not change: {new}")
        self.n.detail(f"old trustee {self.old[0]} and trust {self.old[1]} gone from "
                      f"Keystone; new {new[0]}, {new[1]}")
        stack = self.json("stack", "show", self.cluster["cluster_id"])
        parameters = stack.get("parameters") or {}
        if parameters.get("trustee_user_id") != new[0]:
            raise StepFailed(f"stack parameter trustee_user_id is "
                             f"{parameters.get('trustee_user_id')!r}, expected {new[0]}")
        self._nodes_hold(*new)

    def serves_again(self) -> None:
        deadline = time.monotonic() + self.deadlines.health
        self._config("rotated")
        while True:
            try:
                self.kubectl_healthz("rotated")
                return
            except StepFailed:
                if time.monotonic() > deadline:
                    raise
                time.sleep(self.deadlines.poll)


def test_credential_rotation_after_the_creator_left(magnum, creator, narrator, run_flow,
                                                    tmp_path):
    life = RotationLife(narrator, tmp_path, tag=f"rot-{uuid.uuid4().hex[:4]}",
                        deadlines=Deadlines(create=900, update=900, delete=600),
                        creator=creator)
    run_flow(narrator, magnum, life.steps(), cleanup=life.cleanup)
    assert all(step.ok for step in narrator.steps)
    assert [s.name for s in narrator.steps] == [title for title, _ in life.steps()]
