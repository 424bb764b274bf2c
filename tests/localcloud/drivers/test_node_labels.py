"""Node labels and taints reach the kubelet of every node of their group, through real Heat.

What the stack hands each node is read back from Heat (the user data of every server of
the group), decoded as the node decodes it, and replayed with the node's own kubelet
script: the ``--node-labels`` and ``--register-with-taints`` the kubelet starts with. A
PATCH of a group's labels rolls its nodes (a new generation, as an upgrade does), and a
replayed update rolls nothing twice.
"""

from __future__ import annotations

import base64
import json
import urllib.parse

import pytest

from drivers.heat import parameters
from magnum_common.drivers import registry
from magnum_common.drivers.view import ClusterView, NodeGroupRow
from tests.localcloud.drivers.test_heat_drivers import _image
from tests.unit.drivers import support
from tests.unit.drivers.common import node_harness, systemd_model

DRIVER = "k8s_fedora_coreos_v1"


def _servers(heat, stack_id: str) -> list:
    return [r for r in heat.resources.list(stack_id, nested_depth=3)
            if r.resource_type == "OS::Nova::Server" and r.physical_resource_id]


@pytest.fixture(scope="module")
def admin_session(localcloud):
    from keystoneauth1 import loading, session

    auth = loading.get_plugin_loader("password").load_from_options(
        **localcloud["clouds"]["localcloud-admin"]["auth"])
    return session.Session(auth=auth)


@pytest.fixture(scope="module")
def heat_db(localcloud):
    """Heat's own database: where a stubbed server's user data is kept (Heat's API masks
    it, a hidden parameter of the stand-in)."""
    import configparser

    import sqlalchemy as sa

    conf = configparser.ConfigParser(interpolation=None)
    conf.read(localcloud["state_dir"] / "etc" / "heat" / "heat.conf")
    engine = sa.create_engine(conf["database"]["connection"])
    yield engine
    engine.dispose()


def _user_data(resources, admin_session, heat_db, server) -> str:
    """The user data Heat gave a server: the stand-in stack's parameter on the lite tier
    (read where Heat keeps it), Nova's record (as the cloud's admin sees it) where Nova is
    real."""
    import sqlalchemy as sa
    from heatclient import exc

    try:
        resources.heat().stacks.get(server.physical_resource_id)
    except exc.HTTPNotFound:  # a real server
        nova = resources.url_for("compute")
        body = admin_session.get(f"{nova}/servers/{server.physical_resource_id}",
                                 headers={"OpenStack-API-Version": "compute 2.3"}).json()
        return base64.b64decode(body["server"]["OS-EXT-SRV-ATTR:user_data"]).decode()
    with heat_db.connect() as conn:
        environment = conn.execute(sa.text(
            "SELECT r.environment FROM stack s JOIN raw_template r ON r.id = s.raw_template_id"
            " WHERE s.id = :id"), {"id": server.physical_resource_id}).scalar_one()
    return json.loads(environment)["parameters"]["user_data"]


def _bootstrap_env(user_data: str) -> str:
    """bootstrap.env (base64) out of an Ignition config, as Ignition writes it."""
    for item in json.loads(user_data)["storage"]["files"]:
        if item["path"] == "/etc/magnum/bootstrap.env":
            return urllib.parse.unquote(item["contents"]["source"]).split("base64,", 1)[1]
    raise AssertionError("no bootstrap.env in the user data")


def _kubelet_flags(tmp_path, blob: str) -> list[str]:
    """The kubelet's command line on a node booted with ``blob``."""
    files = node_harness.write_settings(tmp_path, blob, {"NODE_NAME": "n-0",
                                                         "NODE_IP": "127.10.0.9"})
    env_text, unit = node_harness.sections(tmp_path, files, "60-kubelet.sh", "kubelet_env",
                                           "kubelet_unit")
    exec_start = dict((k, v) for _, k, v in systemd_model.parse_unit(unit))["ExecStart"]
    return systemd_model.exec_argv(exec_start, systemd_model.parse_env_file(env_text))


def _group_flags(tmp_path, resources, admin, stack_id: str, group: str) -> list[list[str]]:
    """The kubelet command line of every server of node group ``group`` in the stack."""
    flags = []
    for server in _servers(resources.heat(), stack_id):
        blob = _bootstrap_env(_user_data(resources, *admin, server))
        if parameters.decode_env(blob)["NODEGROUP_NAME"] == group:
            flags.append(_kubelet_flags(tmp_path, blob))
    return flags


def _registration(argv: list[str]) -> tuple[str, str]:
    labels = next(a for a in argv if a.startswith("--node-labels="))
    taints = next((a for a in argv if a.startswith("--register-with-taints=")), "")
    return labels.split("=", 1)[1], taints.split("=", 1)[1] if taints else ""


def test_node_labels_and_taints_reach_every_kubelet_and_a_patch_rolls_the_group(
        resources, admin_session, heat_db, cleanup, heat_helpers, tmp_path):
    heat = resources.heat()
    admin = (admin_session, heat_db)
    wait = heat_helpers.wait_stack
    driver = registry.all_drivers()[DRIVER]
    image = _image(resources, driver.profile.os_distro)
    # The local cloud hands out addresses of 127.0.0.0/8 only.
    ct = support.template(image_id=image, keypair_id=None,
                          labels={"kube_tag": "v1.31.4", "fixed_subnet_cidr": "127.10.0.0/24"})
    cl = support.cluster(ct, name="lc-labels", keypair=None)
    master, worker = support.default_nodegroups(cl, 1, 2)
    worker.node_labels = {"workload": "web", "example.com/tier": "front"}
    worker.node_taints = [{"key": "dedicated", "value": "web", "effect": "NoSchedule"}]
    ngs = [master, worker]
    for ng in ngs:
        ng.image_id = image

    def view() -> ClusterView:
        """What the conductor hands the driver: the rows as they are now."""
        return ClusterView.of(cl, ct, ngs)

    stack_id = driver.create_cluster(resources, view(), 20)
    cleanup.append(stack_id)
    stack = wait(heat, stack_id)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    cl.stack_id = stack_id

    flags = _group_flags(tmp_path, resources, admin, stack_id, "default-worker")
    assert len(flags) == 2
    for argv in flags:
        labels, taints = _registration(argv)
        assert labels.endswith(",example.com/tier=front,workload=web")
        assert "magnum.openstack.org/nodegroup=default-worker" in labels
        assert taints == "dedicated=web:NoSchedule"
    masters = _group_flags(tmp_path, resources, admin, stack_id, "default-master")
    assert [_registration(a)[1] for a in masters] == [
        "node-role.kubernetes.io/control-plane=:NoSchedule"]

    # A PATCH of the labels: the workers are replaced (next generation) with the new ones.
    before = {s.physical_resource_id for s in _servers(heat, stack_id)}
    worker.node_labels = {"workload": "batch"}
    worker.node_taints = []
    driver.update_nodegroup(resources, view(), NodeGroupRow.of(worker))
    stack = wait(heat, stack_id)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    assert stack.parameters["worker_generation"] == "1"
    assert stack.parameters["master_generation"] == "0"
    assert stack.parameters["worker_node_labels_digest"] == parameters.node_labels_digest(
        worker)
    for argv in _group_flags(tmp_path, resources, admin, stack_id, "default-worker"):
        labels, taints = _registration(argv)
        assert labels.endswith(",workload=batch") and "tier" not in labels and not taints
    assert _group_flags(tmp_path, resources, admin, stack_id, "default-master") == masters
    if resources.url_for("compute"):
        assert len(before - {s.physical_resource_id for s in _servers(heat, stack_id)}) == 2

    # Replayed (a conductor restarted mid-way): nothing to roll, no stack update.
    updated = heat.stacks.get(stack_id).updated_time
    driver.update_nodegroup(resources, view(), NodeGroupRow.of(worker))
    assert heat.stacks.get(stack_id).updated_time == updated

    # An extra group: labels at create, a PATCH rolls its own stack only.
    extra = support.nodegroup(cl, "gpu", "worker", 1, False, image_id=image,
                              node_labels={"accelerator": "a100"},
                              node_taints=[{"key": "gpu", "value": "",
                                            "effect": "NoExecute"}])
    ngs.append(extra)
    ng_stack = driver.create_nodegroup(resources, view(), NodeGroupRow.of(extra))
    cleanup.append(ng_stack)
    extra.stack_id = ng_stack
    stack = wait(heat, ng_stack)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    [argv] = _group_flags(tmp_path, resources, admin, ng_stack, "gpu")
    assert _registration(argv)[0].endswith("magnum.openstack.org/role=worker,accelerator=a100")
    assert _registration(argv)[1] == "gpu=:NoExecute"
    extra.node_taints = []
    driver.update_nodegroup(resources, view(), NodeGroupRow.of(extra))
    stack = wait(heat, ng_stack)
    assert stack.stack_status == "UPDATE_COMPLETE" and stack.parameters["generation"] == "1"
    [argv] = _group_flags(tmp_path, resources, admin, ng_stack, "gpu")
    assert _registration(argv)[1] == ""
    assert heat.stacks.get(stack_id).parameters["worker_generation"] == "1"

    driver.delete_cluster(resources, view())
    for sid in (ng_stack, stack_id):
        assert wait(heat, sid).stack_status == "DELETE_COMPLETE"
