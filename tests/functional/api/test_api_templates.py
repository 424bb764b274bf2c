"""Cluster templates over the real pipeline: create, list, show, patch, delete, policy."""

from __future__ import annotations

import pytest

from magnum_common.db.cluster_templates import cluster_templates
from tests.functional.api import support
from tests.functional.api.conftest import OTHER_PROJECT, headers


def create(api, role="member", project="project-a", expect=201, **fields):
    body = {"coe": "kubernetes", "image_id": support.IMAGE_ID, **fields}
    return api.post_json("/v1/clustertemplates", body, headers=headers(role, project),
                         status=expect)


def test_create_minimal_fills_defaults(api):
    resp = create(api)
    body = resp.json
    assert resp.headers["Location"].endswith("/v1/clustertemplates/" + body["uuid"])
    assert body["cluster_distro"] == "fedora-coreos"
    assert body["network_driver"] == "flannel"
    assert body["driver"] == "fake_k8s"
    assert body["server_type"] == "vm"
    assert body["labels"] == {}
    assert body["floating_ip_enabled"] is True and body["public"] is False
    assert body["name"].endswith("-template")
    assert body["project_id"] == "project-a" and body["user_id"] == "user-a"
    assert body["updated_at"] is None and body["created_at"].endswith("+00:00")
    assert [link["rel"] for link in body["links"]] == ["self", "bookmark"]
    for key in ("flavor_id", "volume_driver", "apiserver_port", "tags", "dns_nameserver"):
        assert body[key] is None


def test_create_accepts_strings_and_stringifies_labels(api):
    body = create(api, docker_volume_size="5", tls_disabled="yes",
                  labels={"n": 3, "t": True}, flavor_id="m1.small").json
    assert body["docker_volume_size"] == 5
    assert body["tls_disabled"] is True
    assert body["labels"] == {"n": "3", "t": "True"}


@pytest.mark.parametrize("fields, detail", [
    ({"coe": "swarm"}, "Invalid input for field/attribute coe. Value: 'swarm'. "
     "Value should be one of: kubernetes"),
    ({"bogus": 1}, "Unknown attribute for argument cluster_template: bogus"),
    ({"project_id": "x"}, "Invalid input for field/attribute project_id. Value: 'x'. "
     "Cannot set read only field."),
    ({"network_driver": "weave"}, "Network driver type weave is not supported, expecting "
     "a flannel/calico/cilium/unspecified network driver."),
    ({"network_driver": "cilium"}, "Network driver type cilium is not allowed, expecting "
     "a flannel/calico/unspecified network driver. "),
    ({"volume_driver": "rexray"}, "Volume driver type rexray is not supported, expecting "
     "a cinder/unspecified volume driver."),
    ({"docker_storage_driver": "devicemapper", "docker_volume_size": 2},
     "docker volume size 2 GB is not valid, expecting minimum value 3GB for devicemapper "
     "storage driver."),
    ({"apiserver_port": 80}, "Invalid input for field/attribute apiserver_port. Value: "
     "'80'. Value should be greater or equal to 1024"),
    ({"dns_nameserver": "8.8.8.8,nope"}, "Expected a single dns address or comma separated "
     "dns list, but received 8.8.8.8,nope."),
    ({"image_id": "missing"}, "Image missing could not be found."),
    ({"image_id": support.NOOS_IMAGE_ID},
     f"Image {support.NOOS_IMAGE_ID} doesn't contain os_distro field."),
    ({"flavor_id": "m9.huge"}, "Unable to find flavor m9.huge."),
    ({"flavor_id": "m1.nodisk"}, "Flavor with zero root volume size is not supported when "
     "boot_volume_size is zero."),
    ({"external_network_id": "nope"}, "Unable to find external network nope."),
    ({"driver": "nope"}, "Cluster driver (nope) not supported."),
])
def test_create_rejects_bad_input(api, fields, detail):
    resp = create(api, expect=400, **fields)
    error = resp.json["errors"][0]
    assert error["detail"] == detail
    assert error["title"] == detail.split(".")[0]
    assert error["code"] == "client" and error["status"] == 400
    assert cluster_templates.list(None) == []


def test_create_rejects_list_labels(api):
    resp = create(api, expect=400, labels=["a"])
    assert resp.json["errors"][0]["detail"].endswith("Value not a valid dict: ['a']")


def test_create_public_needs_publish_rule(api):
    resp = create(api, public=True, expect=403)
    assert resp.json["errors"][0]["detail"] == \
        "Not authorized to set public or hidden flag for cluster template."
    assert create(api, role="admin", public=True).json["public"] is True


def test_create_as_reader_is_forbidden(api):
    resp = create(api, role="reader", expect=403)
    assert resp.json["errors"][0]["detail"] == \
        "Policy doesn't allow clustertemplate:create to be performed."


def test_wrong_content_type_and_bad_json(api):
    resp = api.post("/v1/clustertemplates", "x", headers={
        **headers(), "Content-Type": "text/plain"}, status=415)
    assert resp.json["errors"][0]["detail"] == "Unknown mimetype: text/plain"
    resp = api.post("/v1/clustertemplates", "{nope", headers={
        **headers(), "Content-Type": "application/json"}, status=400)
    assert resp.json["errors"][0]["detail"] == "Request is not in valid JSON format"


def test_list_show_and_visibility(api):
    own = create(api, name="own").json
    create(api, project=OTHER_PROJECT, name="foreign")
    public = create(api, role="admin", project=OTHER_PROJECT, name="pub", public=True).json
    create(api, role="admin", project=OTHER_PROJECT, name="hid", public=True, hidden=True)
    names = {t["name"] for t in api.get("/v1/clustertemplates", headers=headers()).json[
        "clustertemplates"]}
    assert names == {"own", "pub"}
    admin_names = {t["name"] for t in api.get("/v1/clustertemplates/detail",
                                              headers=headers("admin")).json["clustertemplates"]}
    assert admin_names == {"own", "foreign", "pub", "hid"}
    assert api.get(f"/v1/clustertemplates/{own['uuid']}", headers=headers()).json["name"] == \
        "own"
    assert api.get("/v1/clustertemplates/pub", headers=headers()).json["uuid"] == \
        public["uuid"]
    resp = api.get("/v1/clustertemplates/hid", headers=headers(), status=404)
    assert resp.json["errors"][0]["detail"] == "ClusterTemplate hid could not be found."
    api.get("/v1/clustertemplates/foreign", headers=headers(), status=404)
    api.get("/v1/clustertemplates/foreign", headers=headers("admin"), status=200)


def test_name_conflict_is_409(api):
    create(api, name="dup")
    create(api, name="dup")
    resp = api.get("/v1/clustertemplates/dup", headers=headers(), status=409)
    assert resp.json["errors"][0]["detail"] == (
        "Multiple ClusterTemplates exist with same name. Please use the ClusterTemplate uuid "
        "instead.")


def test_pagination(api):
    uuids = [create(api, name=f"t{i}").json["uuid"] for i in range(5)]
    page = api.get("/v1/clustertemplates/?limit=2", headers=headers()).json
    assert [t["uuid"] for t in page["clustertemplates"]] == uuids[:2]
    assert page["next"] == ("http://localhost/v1/clustertemplates?sort_key=id&sort_dir=asc"
                            f"&limit=2&marker={uuids[1]}")
    page = api.get(page["next"].replace("http://localhost", ""), headers=headers()).json
    assert [t["uuid"] for t in page["clustertemplates"]] == uuids[2:4]
    desc = api.get("/v1/clustertemplates?sort_key=name&sort_dir=desc", headers=headers()).json
    assert [t["name"] for t in desc["clustertemplates"]] == ["t4", "t3", "t2", "t1", "t0"]
    assert "next" not in desc
    for query, detail in [
        ("limit=0", "Limit must be positive"),
        ("marker=abc", "Invalid input for field/attribute marker. Value: 'abc'. unable to "
         "convert to uuid. Error: Expected a uuid but received abc."),
        ("sort_key=nope", 'The sort_key value "nope" is an invalid field for sorting'),
        ("sort_dir=up", "Invalid sort direction: up. Acceptable values are 'asc' or 'desc'"),
        ("name=x", 'Unknown argument: "name"'),
    ]:
        resp = api.get(f"/v1/clustertemplates?{query}", headers=headers(), status=400)
        assert resp.json["errors"][0]["detail"] == detail


def test_patch_rules(api):
    tpl = create(api, name="p", labels={"a": "b"}).json
    url = f"/v1/clustertemplates/{tpl['uuid']}"
    body = api.patch_json(url, [
        {"op": "replace", "path": "/name", "value": "renamed"},
        {"op": "add", "path": "/labels/kube_tag", "value": "v1"},
        {"op": "remove", "path": "/labels/a"},
        {"op": "replace", "path": "/docker_volume_size", "value": "7"},
        {"op": "add", "path": "/flavor_id", "value": "m1.small"},
    ], headers=headers()).json
    assert body["name"] == "renamed" and body["labels"] == {"kube_tag": "v1"}
    assert body["docker_volume_size"] == 7 and body["flavor_id"] == "m1.small"
    assert body["updated_at"] is not None
    body = api.patch_json(url, [{"op": "replace", "path": "/labels",
                                 "value": "{'x': 'y'}"}], headers=headers()).json
    assert body["labels"] == {"x": "y"}
    for ops, detail in [
        ([{"op": "replace", "path": "/uuid", "value": "x"}],
         "'/uuid' is an internal attribute and can not be updated"),
        ([{"op": "remove", "path": "/coe"}], "'/coe' is a mandatory attribute and can not be "
         "removed"),
        ([{"op": "add", "path": "/foo", "value": "x"}],
         "Adding a new attribute /foo to the root of the resource is not allowed."),
        ([{"op": "add", "path": "/image_id", "value": "x"}],
         "The attribute /image_id has existed, please use 'replace' operation instead."),
        ([{"op": "replace", "path": "/name"}], "'add' and 'replace' operations needs value"),
        ([{"op": "move", "path": "/name", "value": "x"}],
         "Invalid input for field/attribute op. Value: 'move'. Value should be one of: "
         "replace, add, remove"),
        ([{"op": "replace", "path": "/public", "value": True}],
         "Not authorized to set public or hidden flag for cluster template."),
        ([{"op": "replace", "path": "/network_driver", "value": "weave"}],
         "Network driver type weave is not supported, expecting a flannel/calico/cilium/"
         "unspecified network driver."),
    ]:
        resp = api.patch_json(url, ops, headers=headers(), expect_errors=True)
        assert resp.status_int in (400, 403), resp.body
        assert resp.json["errors"][0]["detail"] == detail
    resp = api.patch_json(url, [{"op": "remove", "path": "/labels/zzz"}], headers=headers(),
                          status=400)
    assert resp.json["errors"][0]["detail"].startswith("Couldn't apply patch '")


def test_patch_malformed_body_to_unknown_id_is_400(api):
    api.patch_json("/v1/clustertemplates/0d6e4e8c-1f4e-4b8a-9a57-111111111111",
                   {"op": "replace"}, headers=headers(), status=400)
    api.patch_json("/v1/clustertemplates/0d6e4e8c-1f4e-4b8a-9a57-111111111111",
                   [{"op": "replace", "path": "/name", "value": "x"}], headers=headers(),
                   status=404)


def test_admin_can_patch_other_projects_private_template(api):
    tpl = create(api, project=OTHER_PROJECT, name="other").json
    body = api.patch_json(f"/v1/clustertemplates/{tpl['uuid']}",
                          [{"op": "replace", "path": "/name", "value": "fixed"}],
                          headers=headers("admin")).json
    assert body["name"] == "fixed"


def test_delete(api):
    tpl = create(api).json
    api.delete(f"/v1/clustertemplates/{tpl['uuid']}", headers=headers("reader"), status=403)
    resp = api.delete(f"/v1/clustertemplates/{tpl['uuid']}", headers=headers(), status=204)
    assert resp.body == b"" and "Content-Type" not in resp.headers
    api.get(f"/v1/clustertemplates/{tpl['uuid']}", headers=headers(), status=404)


def test_create_on_every_backend(api_any):
    tpl = create(api_any, name="any", labels={"k": "v"}).json
    listed = api_any.get("/v1/clustertemplates", headers=headers()).json["clustertemplates"]
    assert [t["uuid"] for t in listed] == [tpl["uuid"]]
    api_any.delete(f"/v1/clustertemplates/{tpl['uuid']}", headers=headers(), status=204)
