"""openstacksdk and Ansible's openstack.cloud collection, from PyPI, against our magnum-api and
conductors on the local cloud (issue 14, point 1). One start of our services serves both.

openstacksdk: the proxy ``conn.container_infrastructure_management`` and the cloud layer
(``create_coe_cluster`` & co.) as the demo user, through the Keystone catalog: templates
created, found by name, listed, patched and deleted; one real cluster created, read, listed,
resized by ``update_coe_cluster``, its CA fetched and a CSR signed, deleted and polled to 404
with the SDK's own waiters. Services are listed as admin (``magnum-service:get_all``).

Ansible: ``ansible/coe.yml`` (template and cluster present / absent, idempotent re-runs,
``wait: false`` on create, ``wait: true`` on delete; the playbook says why) run by
``ansible-playbook`` from ``.venv-ansible`` (``tools/ansible-venv``, pinned requirements).
"""

from __future__ import annotations

import os
import socket
import subprocess
import uuid
from pathlib import Path

import openstack
import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from openstack.config import loader

from localcloud.scenario import paths, services
from localcloud.scenario.coe import ADMIN, DEMO
from localcloud.scenario.life import (
    EXTERNAL_NETWORK,
    FIXED_NETWORK,
    FIXED_SUBNET,
    FLAVOR,
    IMAGE,
    KEYPAIR,
    KUBE_TAG,
    MASTER_FLAVOR,
    check_local_addresses,
)

REPO = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).resolve().parent / "ansible" / "coe.yml"
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
#: Seconds a cluster operation may take on a loaded two-core machine (seconds when idle).
DEADLINE = 900


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((paths.API_HOST, 0))
        return sock.getsockname()[1]


def _connect(clouds_yaml: Path, cloud: str) -> openstack.connection.Connection:
    config = loader.OpenStackConfig(config_files=[str(clouds_yaml)], load_envvars=False)
    return openstack.connection.Connection(config=config.get_one(cloud=cloud))


@pytest.fixture(scope="module")
def magnum(cloud):
    """Our services on a port of their own: the clients reach them by endpoint override (the
    rest through the Keystone catalog), so this module needs no turn at the catalog's port and
    runs beside the other end-to-end modules."""
    svc = services.MagnumServices(run_dir=services.new_run_dir(f"clients-{WORKER}"),
                                  backend="sqlite", name=f"clients_{WORKER}",
                                  api_port=_free_port())
    try:
        svc.prepare()
        svc.start()
        svc.wait_ready(timeout=240)
        yield svc
    finally:
        svc.stop()


@pytest.fixture(scope="module")
def clouds_yaml(magnum, tmp_path_factory) -> Path:
    """The local cloud's clouds.yaml with Magnum's endpoint overridden to this module's API."""
    doc = yaml.safe_load(paths.clouds_yaml().read_text())
    for name in (DEMO, ADMIN):
        doc["clouds"][name]["container_infrastructure_management_endpoint_override"] = \
            f"http://{paths.API_HOST}:{magnum.api_port}/v1"
    path = tmp_path_factory.mktemp("clients") / "clouds.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


@pytest.fixture(scope="module")
def conn(clouds_yaml):
    connection = _connect(clouds_yaml, DEMO)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def tag() -> str:
    return f"clients-sdk-{uuid.uuid4().hex[:4]}"


@pytest.fixture(scope="module")
def template(conn, tag):
    """One template for the module's cluster, made through the cloud layer."""
    made = conn.create_cluster_template(
        f"{tag}-k8s", image_id=IMAGE, keypair_id=KEYPAIR, coe="kubernetes",
        external_network_id=EXTERNAL_NETWORK, fixed_network=FIXED_NETWORK,
        fixed_subnet=FIXED_SUBNET, flavor_id=FLAVOR, master_flavor_id=MASTER_FLAVOR,
        network_driver="flannel", labels={"kube_tag": KUBE_TAG, "etcd_volume_size": "1"})
    yield made
    conn.delete_cluster_template(made.id)


def test_template_calls_of_proxy_and_cloud_layer(conn, template, tag):
    coe = conn.container_infrastructure_management
    assert template.id and template.name == f"{tag}-k8s"
    assert template.labels == {"kube_tag": KUBE_TAG, "etcd_volume_size": "1"}
    assert template.cluster_distro == "fedora-coreos" and template.coe == "kubernetes"
    # Found by name, the SDK keeps the name as the resource's id (its _find GETs
    # /clustertemplates/<name> first, as upstream answers too); the uuid is the template's.
    assert conn.get_cluster_template(template.name).uuid == template.id
    assert coe.find_cluster_template(template.name).uuid == template.id
    assert template.id in {t.id for t in conn.list_cluster_templates()}
    assert [t.id for t in conn.search_cluster_templates(template.name)] == [template.id]

    # A second one through the proxy: patched both ways, then deleted by name.
    other = coe.create_cluster_template(
        name=f"{tag}-other", image_id=IMAGE, keypair_id=KEYPAIR, coe="kubernetes",
        external_network_id=EXTERNAL_NETWORK, flavor_id=FLAVOR,
        master_flavor_id=MASTER_FLAVOR, labels={"kube_tag": KUBE_TAG})
    try:
        patched = coe.update_cluster_template(other, docker_volume_size=7,
                                              labels={"kube_tag": KUBE_TAG, "x": "y"})
        assert patched.docker_volume_size == 7
        assert patched.labels == {"kube_tag": KUBE_TAG, "x": "y"}
        renamed = conn.update_cluster_template(other.id, name=f"{tag}-renamed")
        assert renamed.name == f"{tag}-renamed"
        assert coe.get_cluster_template(other.id).docker_volume_size == 7
    finally:
        assert conn.delete_cluster_template(f"{tag}-renamed")
    assert conn.get_cluster_template(f"{tag}-renamed") is None
    assert conn.delete_cluster_template(f"{tag}-renamed") is False


def _csr(cn: str) -> tuple[rsa.RSAPrivateKey, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    csr = (x509.CertificateSigningRequestBuilder()
           .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn),
                                    x509.NameAttribute(NameOID.ORGANIZATION_NAME,
                                                       "system:masters")]))
           .sign(key, hashes.SHA256()))
    return key, csr.public_bytes(serialization.Encoding.PEM).decode()


def test_cluster_life_through_the_sdk(conn, template, tag):
    coe = conn.container_infrastructure_management
    name = f"{tag}-c1"
    created = conn.create_coe_cluster(name, template.id, master_count=1, node_count=1,
                                      create_timeout=30)
    assert created.id
    try:
        first = coe.get_cluster(created.id)
        assert first.status == "CREATE_IN_PROGRESS" and first.name == name

        done = coe.wait_for_status(first, status="CREATE_COMPLETE",
                                   failures=["CREATE_FAILED"], interval=2, wait=DEADLINE)
        assert done.node_count == 1 and done.master_count == 1
        assert done.stack_id and done.api_address and done.coe_version
        check_local_addresses({"name": name, "api_address": done.api_address,
                               "master_addresses": done.master_addresses,
                               "node_addresses": done.node_addresses})

        assert conn.get_coe_cluster(name).id == created.id
        assert coe.find_cluster(name).uuid == created.id
        assert created.id in {c.id for c in conn.list_coe_clusters()}
        assert [c.id for c in conn.search_coe_clusters(name)] == [created.id]
        assert conn.get_coe_cluster(f"{tag}-absent") is None

        updated = conn.update_coe_cluster(name, node_count=2)
        assert updated.id == created.id
        grown = coe.wait_for_status(coe.get_cluster(created.id), status="UPDATE_COMPLETE",
                                    failures=["UPDATE_FAILED"], interval=2, wait=DEADLINE)
        assert grown.node_count == 2 and len(grown.node_addresses) == 2

        ca_pem = conn.get_coe_cluster_certificate(created.id).pem
        ca = x509.load_pem_x509_certificate(ca_pem.encode())
        key, csr = _csr("admin")
        signed = conn.sign_coe_cluster_certificate(created.id, csr)
        cert = x509.load_pem_x509_certificate(signed.pem.encode())
        assert cert.issuer == ca.subject
        assert cert.public_key().public_numbers() == key.public_key().public_numbers()
        cert.verify_directly_issued_by(ca)
    finally:  # accepted whatever a failed step left running
        assert conn.delete_coe_cluster(name)
        coe.wait_for_delete(created, interval=2, wait=DEADLINE)
    assert conn.get_coe_cluster(name) is None
    assert conn.delete_coe_cluster(name) is False


def test_services_are_listed_for_admin(magnum, clouds_yaml):
    admin = _connect(clouds_yaml, ADMIN)
    try:
        listed = list(admin.list_magnum_services())
    finally:
        admin.close()
    conductors = [s for s in listed if s.binary == "magnum-conductor"]
    assert len(conductors) >= 2 and {s.state for s in conductors} == {"up"}
    assert all(s.host.startswith(magnum.host_prefix) for s in conductors)


def test_ansible_playbook(clouds_yaml, tag, tmp_path):
    subprocess.run([str(REPO / "tools" / "ansible-venv")], check=True, timeout=1800)
    venv = REPO / ".venv-ansible" / "bin"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OS_", "ANSIBLE_"))}
    env.update(OS_CLIENT_CONFIG_FILE=str(clouds_yaml), ANSIBLE_HOME=str(tmp_path),
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_PYTHON_INTERPRETER=str(venv / "python"),
               ANSIBLE_LOCALHOST_WARNING="false", ANSIBLE_INVENTORY_UNPARSED_WARNING="false")
    res = subprocess.run([str(venv / "ansible-playbook"), "-i", "localhost,", "-c", "local",
                          str(PLAYBOOK), "-e", f"tag={tag}-ans"],
                         capture_output=True, text=True, env=env, timeout=3 * DEADLINE)
    assert res.returncode == 0, res.stdout[-6000:] + res.stderr[-3000:]
    assert "failed=0" in res.stdout
