"""Request shapes of the clients that cannot run here, replayed over the real pipeline:
terraform-provider-openstack on gophercloud and Horizon's magnum-ui (issue 14, point 1):
magnum-ui's launch form, resize, upgrade, lists, cluster config, CA and credential rotation,
stats and quotas; and one terraform apply's parallel requests (issue 14, point 2).

Each test sends exactly what the client sends (field spellings, types, microversions) and
checks what the client then reads: gophercloud unmarshals into typed Go structs, so a
field of the wrong JSON type breaks the whole apply; its OkCodes are exact per call.
"""

from __future__ import annotations

import datetime
import urllib.parse

import pytest

from magnum_common import states
from magnum_common.db.clusters import clusters
from tests.functional.api import support
from tests.functional.api.conftest import PROJECT, headers
from tests.functional.api.test_api_clusters import complete
from tests.functional.api.test_api_resources import make_csr

TF_BOOLEANS = ("floating_ip_enabled", "master_lb_enabled", "public", "hidden",
               "registry_enabled", "tls_disabled")


def tf_headers(version: str = "1.9") -> dict[str, str]:
    return headers(version=version)


def tf_template(api, **fields) -> dict:
    """terraform's create: the six booleans always, empty strings left out."""
    body = {"name": "tf", "coe": "kubernetes", "image_id": support.IMAGE_ID,
            "flavor_id": "m1.small", "master_flavor_id": "m1.medium",
            "external_network_id": "public", "network_driver": "flannel",
            "labels": {"kube_tag": "v1.31.4"}, **{b: False for b in TF_BOOLEANS},
            "floating_ip_enabled": True, **fields}
    resp = api.post_json("/v1/clustertemplates", body, headers=tf_headers(), status=201)
    return resp.json


def check_go_types(cluster: dict) -> None:
    """What gophercloud's containerinfra/v1/clusters.Cluster unmarshals without error."""
    for key in ("node_count", "master_count", "create_timeout"):
        assert isinstance(cluster[key], int), key
    assert cluster["docker_volume_size"] is None or isinstance(cluster["docker_volume_size"],
                                                               int)
    assert all(isinstance(v, str) for v in cluster["labels"].values())
    for key in ("labels_added", "labels_skipped", "labels_overridden"):
        assert isinstance(cluster[key], dict), key
    assert cluster["health_status_reason"] is None or isinstance(
        cluster["health_status_reason"], dict)
    assert all(set(link) == {"href", "rel"} for link in cluster["links"])
    for key in ("created_at", "updated_at"):
        if cluster[key] is not None:
            assert datetime.datetime.fromisoformat(cluster[key]).tzinfo is not None
    assert isinstance(cluster["master_lb_enabled"], bool)
    assert isinstance(cluster["floating_ip_enabled"], bool)


def test_terraform_template_create_and_update_shapes(api):
    tpl = tf_template(api, labels={"kube_tag": "v1.31.4", "x": "y"}, dns_nameserver="8.8.8.8")
    assert all(isinstance(tpl[b], bool) for b in TF_BOOLEANS)
    url = f"/v1/clustertemplates/{tpl['uuid']}"
    # booleans as strings, labels as one Python-literal string, remove for an emptied field
    patch = [{"op": "replace", "path": "/master_lb_enabled", "value": "true"},
             {"op": "replace", "path": "/registry_enabled", "value": "false"},
             {"op": "replace", "path": "/labels", "value": "{'kube_tag': 'v1.32.1'}"},
             {"op": "remove", "path": "/dns_nameserver"}]
    resp = api.patch_json(url, patch, headers=tf_headers(), status=200)
    assert resp.json["master_lb_enabled"] is True and resp.json["registry_enabled"] is False
    assert resp.json["labels"] == {"kube_tag": "v1.32.1"}
    assert resp.json["dns_nameserver"] is None
    resp = api.patch_json(url, [{"op": "replace", "path": "/labels", "value": "{}"}],
                          headers=tf_headers(), status=200)
    assert resp.json["labels"] == {}


def test_terraform_cluster_create_read_and_delete_shapes(api, recorder):
    tpl = tf_template(api)
    # gophercloud's CreateOpts: name and create_timeout always, the rest omitempty
    body = {"name": "", "cluster_template_id": tpl["uuid"], "create_timeout": None,
            "master_count": 1, "node_count": 2, "merge_labels": False}
    resp = api.post_json("/v1/clusters", body, headers=tf_headers(), status=202)
    uuid = resp.json["uuid"]
    # the first refresh happens at once: the cluster exists and is in a pending state
    first = api.get(f"/v1/clusters/{uuid}", headers=tf_headers()).json
    assert first["status"] == states.CREATE_IN_PROGRESS
    assert first["name"] and first["create_timeout"] == 60
    assert first["flavor_id"] == "m1.small" and first["keypair"] is None
    check_go_types(first)
    complete(uuid)
    shown = api.get(f"/v1/clusters/{uuid}", headers=tf_headers()).json
    check_go_types(shown)
    # node_count is read from the default worker node group at 1.9
    ngs = api.get(f"/v1/clusters/{uuid}/nodegroups", headers=tf_headers()).json["nodegroups"]
    worker = [ng for ng in ngs if ng["is_default"] and ng["role"] != "master"]
    assert [ng["node_count"] for ng in worker] == [2]
    # PATCH node_count to 0 needs 1.10 (200 or 202 accepted by gophercloud)
    patch = [{"op": "replace", "path": "/node_count", "value": 0}]
    api.patch_json(f"/v1/clusters/{uuid}", patch, headers=tf_headers("1.9"), status=400)
    resp = api.patch_json(f"/v1/clusters/{uuid}", patch, headers=tf_headers("1.10"))
    assert resp.status_int in (200, 202) and resp.json == {"uuid": uuid}
    complete(uuid, states.UPDATE_COMPLETE)
    # delete: 202 or 204
    resp = api.delete(f"/v1/clusters/{uuid}", headers=tf_headers())
    assert resp.status_int in (202, 204)


def test_terraform_nodegroup_shapes(api, recorder):
    tpl = tf_template(api)
    uuid = api.post_json("/v1/clusters", {"name": "c", "cluster_template_id": tpl["uuid"],
                                          "node_count": 1}, headers=tf_headers()).json["uuid"]
    complete(uuid)
    url = f"/v1/clusters/{uuid}/nodegroups"
    resp = api.post_json(url, {"name": "ng", "node_count": 2, "min_node_count": 1,
                               "max_node_count": 3, "labels": {}, "merge_labels": True},
                         headers=tf_headers(), status=202)
    ng = resp.json
    assert isinstance(ng["node_count"], int) and ng["uuid"]
    complete(uuid, states.UPDATE_COMPLETE)
    shown = api.get(f"{url}/{ng['uuid']}", headers=tf_headers()).json
    assert isinstance(shown["id"], int) and shown["max_node_count"] == 3
    # max_node_count emptied in the config: 'remove'; node-group update is 202
    resp = api.patch_json(f"{url}/{ng['uuid']}", [
        {"op": "replace", "path": "/min_node_count", "value": 1},
        {"op": "remove", "path": "/max_node_count"}], headers=tf_headers(), status=202)
    assert resp.json["max_node_count"] is None


@pytest.mark.parametrize("version", ["1.13"])
def test_horizon_launch_form_shapes(api, recorder, version):
    """magnum-ui posts every value as a string and maps its form fields to labels."""
    tpl = tf_template(api)
    body = {"name": "hz", "cluster_template_id": tpl["uuid"],
            "master_count": "1", "node_count": "2", "create_timeout": "60",
            "docker_volume_size": "10", "master_flavor_id": "m1.medium",
            "flavor_id": "m1.small", "floating_ip_enabled": "True",
            "master_lb_enabled": "False", "merge_labels": "True",
            "labels": {"auto_scaling_enabled": "true", "min_node_count": "1",
                       "max_node_count": "4", "auto_healing_enabled": "true",
                       "master_lb_floating_ip_enabled": "false"}}
    uuid = api.post_json("/v1/clusters", body, headers=headers(version=version),
                         status=202).json["uuid"]
    shown = api.get(f"/v1/clusters/{uuid}", headers=headers(version=version)).json
    assert shown["node_count"] == 2 and shown["docker_volume_size"] == 10
    assert shown["labels"]["max_node_count"] == "4" and "cluster_id" in shown
    assert shown["labels"]["kube_tag"] == "v1.31.4"  # merged with the template's
    ngs = {ng.name: ng for ng in clusters.nodegroups_of(None, [uuid])[uuid]}
    assert (ngs["default-worker"].min_node_count, ngs["default-worker"].max_node_count) == \
        (1, 4)
    complete(uuid)
    resize = {"node_count": 1, "nodes_to_remove": ["hz-node-1"],
              "nodegroup": "default-worker"}
    api.post_json(f"/v1/clusters/{uuid}/actions/resize", resize,
                  headers=headers(version=version), status=202)


# --- Horizon magnum-ui (python-magnumclient underneath, microversion 1.13) ------------------
HZ = "1.13"


def hz_cluster(api, recorder) -> tuple[dict, str]:
    """A finished cluster launched as magnum-ui does (every value a string)."""
    tpl = tf_template(api)
    body = {"name": "hz", "cluster_template_id": tpl["uuid"], "master_count": "1",
            "node_count": "2", "create_timeout": "60", "labels": {}}
    uuid = api.post_json("/v1/clusters", body, headers=headers(version=HZ),
                         status=202).json["uuid"]
    recorder.wait_for("cluster_create")
    complete(uuid)
    recorder.reset()
    return tpl, uuid


def test_horizon_lists_and_upgrade_with_max_batch_size(api, recorder):
    tpl, uuid = hz_cluster(api, recorder)
    hz = headers(version=HZ)
    # the panels read detail lists and the cluster's node groups page by page
    assert [t["uuid"] for t in api.get("/v1/clustertemplates/detail", headers=hz).json[
        "clustertemplates"]] == [tpl["uuid"]]
    [listed] = api.get("/v1/clusters/detail", headers=hz).json["clusters"]
    assert listed["uuid"] == uuid and listed["status"] == states.CREATE_COMPLETE
    page = api.get(f"/v1/clusters/{uuid}/nodegroups?limit=1", headers=hz).json
    assert len(page["nodegroups"]) == 1 and "next" in page
    nxt = urllib.parse.urlsplit(page["next"])
    rest = api.get(f"{nxt.path}?{nxt.query}", headers=hz).json
    assert {ng["role"] for ng in page["nodegroups"] + rest["nodegroups"]} == {"master",
                                                                              "worker"}
    # upgrade: the new template and max_batch_size (1 unless the form says otherwise)
    new = tf_template(api, name="tf-new", labels={"kube_tag": "v1.32.1"})
    resp = api.post_json(f"/v1/clusters/{uuid}/actions/upgrade",
                         {"cluster_template": new["uuid"], "max_batch_size": 2},
                         headers=hz, status=202)
    assert resp.json == {"uuid": uuid}
    [call] = recorder.wait_for("cluster_upgrade")
    assert call["operation_args"]["cluster_template_uuid"] == new["uuid"]
    assert call["operation_args"]["max_batch_size"] == 2


def test_horizon_config_certificates_and_credentials(api, recorder):
    _, uuid = hz_cluster(api, recorder)
    hz = headers(version=HZ)
    # cluster config: the CA, then a CSR made in the dashboard signed for the browser
    ca = api.get(f"/v1/certificates/{uuid}", headers=hz).json
    assert ca["cluster_uuid"] == uuid and ca["pem"] == support.CA_PEM
    csr = make_csr()
    signed = api.post_json("/v1/certificates", {"cluster_uuid": uuid, "csr": csr},
                           headers=hz, status=201).json
    assert signed["pem"] == support.SIGNED_PEM and signed["cluster_uuid"] == uuid
    # CA rotate: python-magnumclient's raw PATCH without a body
    resp = api.patch(f"/v1/certificates/{uuid}", b"", headers={
        **hz, "Content-Type": "application/octet-stream"}, status=202)
    assert resp.json == {"uuid": uuid}
    [call] = recorder.wait_for("rotate_ca_certificate")
    assert call["kwargs"]["cluster_uuid"] == uuid
    # credential rotate: a JSON PATCH without a body (1.12 and later)
    resp = api.patch(f"/v1/credentials/{uuid}", headers={
        **hz, "Content-Type": "application/json"}, status=202)
    assert resp.json == {"uuid": uuid}
    [call] = recorder.wait_for("credential_rotate")
    assert call["kwargs"] == {"cluster_uuid": uuid}  # a cast; the record holds the rest
    assert call["operation"] == "credential_rotate"


def test_horizon_stats_and_quotas(api, recorder):
    _, uuid = hz_cluster(api, recorder)
    # stats for the user's own project (magnum-ui passes project_id)
    stats = api.get(f"/v1/stats?project_id={PROJECT}", headers=headers(version=HZ)).json
    assert stats == {"clusters": 1, "nodes": 3}
    admin = headers("admin", version=HZ)
    # quotas: the create form's values arrive as strings; update sends the plain object
    created = api.post_json("/v1/quotas", {"project_id": PROJECT, "resource": "Cluster",
                                           "hard_limit": "5"}, headers=admin, status=201).json
    assert created["hard_limit"] == 5 and isinstance(created["id"], int)
    listed = api.get("/v1/quotas?all_tenants=True", headers=admin).json["quotas"]
    assert [(q["project_id"], q["hard_limit"]) for q in listed] == [(PROJECT, 5)]
    assert api.get(f"/v1/quotas/{PROJECT}/Cluster", headers=admin).json["hard_limit"] == 5
    resp = api.patch_json(f"/v1/quotas/{PROJECT}/Cluster",
                          {"project_id": PROJECT, "resource": "Cluster", "hard_limit": 1},
                          headers=admin, status=202)
    assert resp.json["hard_limit"] == 1
    # the quota holds: the project has its one cluster
    tpl = api.get("/v1/clustertemplates", headers=headers(version=HZ)).json[
        "clustertemplates"][0]
    api.post_json("/v1/clusters", {"name": "hz2", "cluster_template_id": tpl["uuid"]},
                  headers=headers(version=HZ), status=403)
    api.delete(f"/v1/quotas/{PROJECT}/Cluster", headers=admin, status=204)
    assert api.get("/v1/quotas?all_tenants=True", headers=admin).json["quotas"] == []


# --- one terraform apply, several requests at once (issue 14, point 2) -----------------------
def test_terraform_parallel_nodegroups_resize_after_patch_and_delete_during_create(api,
                                                                                  recorder):
    tpl = tf_template(api)
    uuid = api.post_json("/v1/clusters", {"name": "par", "cluster_template_id": tpl["uuid"],
                                          "node_count": 1}, headers=tf_headers()).json["uuid"]
    complete(uuid)
    url = f"/v1/clusters/{uuid}/nodegroups"
    # three node groups of one cluster applied in parallel: each accepted, each read back at
    # once in its pending state
    made = [api.post_json(url, {"name": f"ng{i}", "node_count": 1}, headers=tf_headers(),
                          status=202).json["uuid"] for i in range(3)]
    for ng in made:
        assert api.get(f"{url}/{ng}", headers=tf_headers()).json["status"] == \
            states.CREATE_IN_PROGRESS
    for ng in made:
        api.delete(f"{url}/{ng}", headers=tf_headers(), status=204)
        assert api.get(f"{url}/{ng}", headers=tf_headers()).json["status"] == \
            states.DELETE_IN_PROGRESS
    # a node-group PATCH, then actions/resize in the same apply
    resp = api.patch_json(f"{url}/default-worker", [
        {"op": "replace", "path": "/max_node_count", "value": 5}], headers=tf_headers(),
        status=202)
    assert resp.json["max_node_count"] == 5
    resp = api.post_json(f"/v1/clusters/{uuid}/actions/resize",
                         {"node_count": 3, "nodegroup": "default-worker"},
                         headers=tf_headers("1.8"))
    assert resp.status_int in (200, 202)
    worker = api.get(f"{url}/default-worker", headers=tf_headers()).json
    assert worker["max_node_count"] == 5 and worker["node_count"] == 3
    # terraform destroy while a create is still running
    other = api.post_json("/v1/clusters", {"name": "late", "cluster_template_id": tpl["uuid"]},
                          headers=tf_headers()).json["uuid"]
    assert api.get(f"/v1/clusters/{other}", headers=tf_headers()).json["status"] == \
        states.CREATE_IN_PROGRESS
    # right after the 202, whether or not a conductor has taken the create yet: accepted
    resp = api.delete(f"/v1/clusters/{other}", headers=tf_headers())
    assert resp.status_int == 204
    assert api.get(f"/v1/clusters/{other}", headers=tf_headers()).json["status"] == \
        states.DELETE_IN_PROGRESS
