"""Node groups, certificates, credentials, services, stats, quotas and federations."""

from __future__ import annotations

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from magnum_api.controllers.base import OPERATION_HEADER
from magnum_common import states
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.services import magnum_services
from tests.functional.api import support
from tests.functional.api.conftest import OTHER_PROJECT, PROJECT, headers
from tests.functional.api.test_api_clusters import complete, create, template


@pytest.fixture
def cluster(api, recorder):
    uuid = create(api, template(api), name="c1", node_count=2,
                  labels={"kube_tag": "v1"}).json["uuid"]
    recorder.wait_for("cluster_create")  # the recorder clears the operation, then records
    complete(uuid)
    recorder.reset()
    return uuid


def make_csr() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    csr = x509.CertificateSigningRequestBuilder().subject_name(x509.Name([
        x509.NameAttribute(NameOID.COMMON_NAME, "admin"),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "system:masters")])).sign(
        key, hashes.SHA256())
    return csr.public_bytes(serialization.Encoding.PEM).decode()


# --- node groups ------------------------------------------------------------------------
def test_nodegroup_list_show_and_version_gate(api, cluster):
    url = f"/v1/clusters/{cluster}/nodegroups"
    api.get(url, headers=headers(version="1.8"), status=406)
    listed = api.get(url + "/", headers=headers()).json["nodegroups"]
    assert [ng["name"] for ng in listed] == ["default-master", "default-worker"]
    assert listed[1]["merge_labels"] is False and "labels" not in listed[1]
    workers = api.get(url + "?role=worker", headers=headers()).json["nodegroups"]
    assert [ng["name"] for ng in workers] == ["default-worker"]
    page = api.get(url + "?limit=1&role=master", headers=headers()).json
    assert "role=master" in page["next"]
    show = api.get(f"{url}/default-worker", headers=headers()).json
    assert show["node_count"] == 2 and show["is_default"] is True
    assert show["node_labels"] == {} and show["node_taints"] == []
    assert show["labels_added"] == {} and show["cluster_id"] == cluster
    resp = api.get(f"{url}/detail", headers=headers(), status=404)
    assert resp.json["errors"][0]["detail"] == "Nodegroup detail could not be found."
    api.get(url, headers=headers(project=OTHER_PROJECT), status=404)


def test_nodegroup_create(api, cluster, recorder):
    url = f"/v1/clusters/{cluster}/nodegroups/"
    body = {"name": "ng1", "node_count": 2, "min_node_count": 1, "max_node_count": 5,
            "labels": {"q": "r"}, "merge_labels": True,
            "node_labels": {"workload": "gpu"},
            "node_taints": [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]}
    resp = api.post_json(url, body, headers=headers(), status=202).json
    assert resp["name"] == "ng1" and resp["flavor_id"] == "m1.small"
    assert resp["image_id"] == support.IMAGE_ID
    assert resp["labels"] == {"kube_tag": "v1", "q": "r"}
    assert resp["labels_added"] == {"q": "r"} and "status" not in resp
    [call] = recorder.wait_for("nodegroup_create")
    assert call["operation_args"]["nodegroup_uuid"] == resp["uuid"]
    row = nodegroups.get_by_uuid(None, resp["uuid"])
    assert row.status == states.CREATE_IN_PROGRESS and row.node_taints[0]["key"] == "gpu"
    resp = api.post_json(url, {"name": "ng1"}, headers=headers(), status=409)
    assert resp.json["errors"][0]["detail"] == \
        "A node group with name ng1 already exists in the cluster c1."


@pytest.mark.parametrize("body, status, detail", [
    ({}, 400, "Invalid input for field/attribute name. Value: 'None'. Mandatory field "
     "missing."),
    ({"name": "m", "role": "master"}, 400,
     "Creating master nodegroups is currently not supported."),
    ({"name": "n", "node_count": 1, "min_node_count": 2, "max_node_count": 1}, 409,
     "max_node_count for n is invalid (min_node_count (2) should be less or equal to "
     "max_node_count (1))."),
    ({"name": "n", "node_count": 2, "max_node_count": 1}, 409,
     "max_node_count for n is invalid (node_count (2) should be less or equal to "
     "max_node_count (1))."),
    ({"name": "n", "node_count": 1, "min_node_count": 2}, 409,
     "min_node_count for n is invalid (min_node_count (2) should be less or equal to "
     "node_count (1))."),
    ({"name": "bt", "node_taints": [{"key": "a", "effect": "Bad"}]}, 409,
     "node_taints for bt is invalid (node_taints[0].effect must be one of NoSchedule, "
     "PreferNoSchedule, NoExecute)."),
    ({"name": "bt", "node_taints": ["x"]}, 409, "node_taints for bt is invalid "
     "(node_taints[0] must be an object with key, effect and optional value)."),
    ({"name": "bl", "node_labels": {"kubernetes.io/role": "x"}}, 409,
     "node_labels for bl is invalid (label kubernetes.io/role uses a prefix reserved for "
     "Kubernetes)."),
    ({"name": "f", "flavor_id": "m1.nodisk"}, 400, "Flavor with zero root volume size is "
     "not supported when boot_volume_size is zero."),
])
def test_nodegroup_create_rejections(api, cluster, recorder, body, status, detail):
    resp = api.post_json(f"/v1/clusters/{cluster}/nodegroups", body, headers=headers(),
                         status=status)
    assert resp.json["errors"][0]["detail"] == detail
    assert len(nodegroups.list(None)) == 2 and recorder.calls == []


def test_nodegroup_create_needs_api_address(api, recorder):
    uuid = create(api, template(api)).json["uuid"]
    recorder.wait_for("cluster_create")
    resp = api.post_json(f"/v1/clusters/{uuid}/nodegroups", {"name": "x"}, headers=headers(),
                         status=409)
    assert resp.json["errors"][0]["detail"] == "Cluster API address is not available yet"


def test_nodegroup_patch_and_delete(api, cluster, recorder):
    url = f"/v1/clusters/{cluster}/nodegroups/default-worker"
    resp = api.patch_json(url, [
        {"op": "replace", "path": "/max_node_count", "value": 4},
        {"op": "replace", "path": "/node_labels", "value": "{'a': 'b'}"},
        {"op": "replace", "path": "/node_taints",
         "value": "[{'key': 'k', 'value': '', 'effect': 'NoExecute'}]"},
    ], headers=headers(), status=202).json
    assert resp["max_node_count"] == 4 and resp["node_labels"] == {"a": "b"}
    [call] = recorder.wait_for("nodegroup_update")
    assert call["operation_args"]["values"]["node_taints"] == [
        {"key": "k", "value": "", "effect": "NoExecute"}]
    resp = api.patch_json(url, [{"op": "replace", "path": "/node_count", "value": 3}],
                          headers=headers(), status=400)
    assert resp.json["errors"][0]["detail"] == \
        "'/node_count' is an internal attribute and can not be updated"
    resp = api.patch_json(url, [{"op": "replace", "path": "/max_node_count", "value": 1}],
                          headers=headers(), status=409)
    assert "max_node_count for default-worker is invalid" in resp.json["errors"][0]["detail"]
    resp = api.delete(url, headers=headers(), status=400)
    assert resp.json["errors"][0]["detail"] == "Deleting a default nodegroup is not supported."
    ng = api.post_json(f"/v1/clusters/{cluster}/nodegroups", {"name": "extra"},
                       headers=headers(), status=202).json
    recorder.wait_for("nodegroup_create")
    complete(cluster)
    api.delete(f"/v1/clusters/{cluster}/nodegroups/{ng['uuid']}", headers=headers("reader"),
               status=403)
    api.delete(f"/v1/clusters/{cluster}/nodegroups/{ng['uuid']}", headers=headers(),
               status=204)
    [call] = recorder.wait_for("nodegroup_delete")
    assert call["operation_args"]["nodegroup_uuid"] == ng["uuid"]


# --- certificates and credentials ----------------------------------------------------------
def test_certificates(api, cluster, recorder):
    resp = api.get(f"/v1/certificates/{cluster}", headers=headers()).json
    assert resp["pem"] == support.CA_PEM and resp["cluster_uuid"] == cluster
    assert resp["links"][0]["href"].endswith(f"/v1/certificates/{cluster}")
    csr = make_csr()
    resp = api.post_json("/v1/certificates", {"cluster_uuid": "c1", "csr": csr},
                         headers=headers(), status=201).json
    assert resp["pem"] == support.SIGNED_PEM and resp["csr"] == csr
    assert resp["cluster_uuid"] == cluster and "ca_cert_type" not in resp
    [call] = recorder.wait_for("sign_certificate")
    assert call["kwargs"]["csr"] == csr
    for body, detail in [
        ({"cluster_uuid": cluster}, "Invalid input for field/attribute csr. Value: 'None'. "
         "Mandatory field missing."),
        ({"cluster_uuid": "nope", "csr": csr}, "Cluster nope could not be found."),
        ({"cluster_uuid": cluster, "csr": "junk"}, "Received invalid csr junk."),
    ]:
        resp = api.post_json("/v1/certificates", body, headers=headers(), status=400)
        assert resp.json["errors"][0]["detail"] == detail
    api.get(f"/v1/certificates/{cluster}", headers=headers(project=OTHER_PROJECT),
            status=404)
    resp = api.patch(f"/v1/certificates/{cluster}", b"", headers={
        **headers(), "Content-Type": "application/octet-stream"}, status=202)
    assert resp.json == {"uuid": cluster}
    recorder.wait_for("rotate_ca_certificate")


def test_credentials(api, cluster, recorder):
    url = f"/v1/credentials/{cluster}"
    api.patch(url, headers=headers(version="1.11"), status=406)
    resp = api.get(url, headers=headers(), status=405)
    assert resp.headers["Allow"] == "PATCH"
    api.patch(url, headers=headers("reader"), status=403)
    # the new trust is the rotator's, on the cluster's project: other projects see no cluster
    api.patch(url, headers=headers("admin", OTHER_PROJECT), status=404)
    resp = api.patch(url, headers={**headers(), "Content-Type": "application/json"},
                     status=202)
    assert resp.json == {"uuid": cluster}
    # a recorded operation like the others (a cast, the record named in the answer)
    [call] = recorder.wait_for("credential_rotate")
    assert call["operation"] == states.OP_ROTATE_CREDENTIAL
    record = resp.headers[OPERATION_HEADER]
    assert call["operation_args"]["operation_id"] == record
    # the rotator must hold what the new trust delegates
    from oslo_config import cfg

    cfg.CONF.set_override("roles", ["member", "heat_stack_owner"], "trust")
    try:
        resp = api.patch(url, headers=headers(), status=400)
    finally:
        cfg.CONF.clear_override("roles", "trust")
    assert "'heat_stack_owner' ([trust] roles)" in resp.json["errors"][0]["detail"]


# --- services, stats, quotas ---------------------------------------------------------------
def test_mservices(api):
    magnum_services.heartbeat("host1", "magnum-conductor")
    body = api.get("/v1/mservices", headers=headers("admin")).json["mservices"]
    assert body[0]["state"] == "up" and body[0]["report_count"] == 1
    assert set(body[0]) == {"id", "host", "binary", "state", "disabled", "disabled_reason",
                            "report_count", "created_at", "updated_at"}
    api.get("/v1/mservices", headers=headers(), status=403)
    api.get("/v1/mservices?limit=1", headers=headers("admin"), status=400)


def test_stats(api, cluster):
    assert api.get("/v1/stats", headers=headers("reader")).json == {"clusters": 1, "nodes": 3}
    api.get(f"/v1/stats?project_id={OTHER_PROJECT}", headers=headers(), status=403)
    assert api.get(f"/v1/stats?project_id={OTHER_PROJECT}", headers=headers("admin")).json \
        == {"clusters": 0, "nodes": 0}
    assert api.get("/v1/stats", headers=headers("admin", OTHER_PROJECT)).json["clusters"] == 1
    resp = api.get("/v1/stats?type=nodes", headers=headers(), status=400)
    assert resp.json["errors"][0]["detail"] == \
        "Invalid stats type. Allowed values are 'cluster'"


def test_quotas(api_any):
    api = api_any
    body = {"project_id": PROJECT, "resource": "Cluster", "hard_limit": 3}
    api.post_json("/v1/quotas", body, headers=headers(), status=403)
    created = api.post_json("/v1/quotas", body, headers=headers("admin"), status=201).json
    assert created["hard_limit"] == 3 and isinstance(created["id"], int)
    api.post_json("/v1/quotas", body, headers=headers("admin"), status=409)
    resp = api.post_json("/v1/quotas", {"project_id": "ghost"}, headers=headers("admin"),
                         status=404)
    assert resp.json["errors"][0]["detail"] == "The project_id ghost could not be found."
    assert api.get(f"/v1/quotas/{PROJECT}/Cluster", headers=headers("reader")).json[
        "hard_limit"] == 3
    api.get(f"/v1/quotas/{OTHER_PROJECT}/Cluster", headers=headers(), status=403)
    assert api.get(f"/v1/quotas/{OTHER_PROJECT}/Cluster", headers=headers("admin")).json == {
        "project_id": OTHER_PROJECT, "resource": "Cluster", "hard_limit": 20}
    resp = api.patch_json(f"/v1/quotas/{PROJECT}/Cluster", {"project_id": PROJECT,
                          "resource": "Cluster", "hard_limit": 5},
                          headers=headers("admin"), status=202)
    assert resp.json["hard_limit"] == 5
    resp = api.patch_json(f"/v1/quotas/{PROJECT}/Cluster", {"project_id": PROJECT},
                          headers=headers("admin"), status=202)
    assert resp.json["hard_limit"] == 5
    api.post_json("/v1/quotas", {"project_id": OTHER_PROJECT}, headers=headers("admin"),
                  status=201)
    mine = api.get("/v1/quotas", headers=headers("admin")).json["quotas"]
    assert [q["project_id"] for q in mine] == [PROJECT]
    page = api.get("/v1/quotas?all_tenants=True&limit=1", headers=headers("admin")).json
    assert page["next"].endswith(f"marker={page['quotas'][0]['id']}&all_tenants=True")
    api.get("/v1/quotas", headers=headers(), status=403)
    api.delete(f"/v1/quotas/{PROJECT}/Cluster", headers=headers("admin"), status=204)
    resp = api.delete(f"/v1/quotas/{PROJECT}/Cluster", headers=headers("admin"), status=404)
    assert resp.json["errors"][0]["detail"] == \
        f"Quota could not be found: project_id {PROJECT} resource Cluster."


# --- federations -----------------------------------------------------------------------------
def test_federations(api, cluster):
    body = {"name": "fed", "hostcluster_id": cluster, "properties": {"dns-zone": "ex.com."}}
    uuid = api.post_json("/v1/federations", body, headers=headers(), status=202).json["uuid"]
    listed = api.get("/v1/federations", headers=headers()).json["federations"]
    assert listed[0]["uuid"] == uuid and "created_at" not in listed[0]
    assert "created_at" in api.get("/v1/federations/detail", headers=headers()).json[
        "federations"][0]
    api.patch_json(f"/v1/federations/{uuid}", [
        {"op": "add", "path": "/member_ids", "value": cluster}], headers=headers(), status=202)
    assert api.get(f"/v1/federations/{uuid}", headers=headers()).json["member_ids"] == [
        cluster]
    api.patch_json(f"/v1/federations/{uuid}", [
        {"op": "add", "path": "/member_ids", "value": cluster}], headers=headers(), status=409)
    resp = api.patch_json(f"/v1/federations/{uuid}", [
        {"op": "replace", "path": "/name", "value": "x"}], headers=headers(), status=400)
    assert resp.json["errors"][0]["detail"] == "cannot change federation property(ies) name."
    for body, detail in [
        ({"properties": {"dns-zone": "a"}},
         "No hostcluster specified. Please specify a hostcluster_id."),
        ({"hostcluster_id": cluster}, "Please specify a `properties` dict for the "
         "federation."),
        ({"hostcluster_id": cluster, "properties": {"a": "b"}},
         "No DNS zone specified. Please specify a `dns-zone`."),
    ]:
        resp = api.post_json("/v1/federations", body, headers=headers(), status=400)
        assert resp.json["errors"][0]["detail"] == detail
    api.delete(f"/v1/federations/{uuid}", headers=headers(), status=204)
    api.get(f"/v1/federations/{uuid}", headers=headers(), status=404)


def test_clusters_views_on_every_backend(api_any, recorder):
    uuid = create(api_any, template(api_any), node_count=2).json["uuid"]
    complete(uuid)
    assert api_any.get("/v1/clusters/detail", headers=headers()).json["clusters"][0][
        "node_count"] == 2
    assert api_any.get(f"/v1/clusters/{uuid}/nodegroups", headers=headers()).json[
        "nodegroups"][0]["role"] == "master"
    assert clusters.stats(None, PROJECT) == (1, 3)


def test_a_node_token_opens_its_own_clusters_certificate_routes_only(api, cluster, recorder):
    """Nodes without the trust ([trust] cluster_user_trust = false) present their cluster's
    node token instead of any identity; it fits no other cluster and no other route."""
    from magnum_common import crypto

    other = create(api, template(api), name="c2").json["uuid"]
    node = {"X-Magnum-Node-Token": crypto.node_token(cluster),
            "OpenStack-API-Version": "container-infra latest"}
    resp = api.get(f"/v1/certificates/{cluster}", headers=node).json
    assert resp["pem"] == support.CA_PEM
    resp = api.post_json("/v1/certificates", {"cluster_uuid": cluster, "csr": make_csr()},
                         headers=node, status=201).json
    assert resp["pem"] == support.SIGNED_PEM
    api.get(f"/v1/certificates/{other}", headers=node, status=403)
    api.post_json("/v1/certificates", {"cluster_uuid": other, "csr": make_csr()},
                  headers=node, status=403)
    wrong = {**node, "X-Magnum-Node-Token": crypto.node_token(cluster)[:-1] + "0"}
    api.get(f"/v1/certificates/{cluster}", headers=wrong, status=403)
    # Any other route sees no identity at all: the cluster is not found for nobody.
    api.patch(f"/v1/certificates/{cluster}", b"", headers={
        **node, "Content-Type": "application/octet-stream"}, status=404)


def test_cinder_volumes_need_the_nodes_trust(api):
    from oslo_config import cfg

    cfg.CONF.set_override("cluster_user_trust", False, "trust")
    body = {"coe": "kubernetes", "image_id": support.IMAGE_ID, "flavor_id": "m1.small",
            "external_network_id": "public", "volume_driver": "cinder"}
    resp = api.post_json("/v1/clustertemplates", body, headers=headers(), status=400)
    assert "[trust] cluster_user_trust = false" in resp.json["errors"][0]["detail"]
    cfg.CONF.set_override("cluster_user_trust", True, "trust")
    api.post_json("/v1/clustertemplates", body, headers=headers(), status=201)
