"""Bad input of every kind the fuzzer of issue 13 found: a 4xx in the error envelope, and
not one row changed (``updated_at`` included), on SQLite, MariaDB and PostgreSQL."""

from __future__ import annotations

import json
import urllib.parse

import pytest

from magnum_common.db.clusters import clusters
from tests.functional.api import support
from tests.functional.api.conftest import headers
from tests.functional.api.test_api_clusters import complete, create, template

ANY_BODY = ("NaN", "-Infinity", "1", "true", "[]", "null", '["op"]', '"x"')


def make_world(api, recorder) -> dict:
    """A template, a complete cluster with an extra node group, a federation; the
    recorder emptied, so a test sees only the casts its own requests make."""
    tpl = template(api)
    cluster = create(api, tpl, name="c1").json["uuid"]
    recorder.wait_for("cluster_create")
    complete(cluster)
    api.post_json(f"/v1/clusters/{cluster}/nodegroups", {"name": "ng1"}, headers=headers(),
                  status=202)
    recorder.wait_for("nodegroup_create")
    complete(cluster)
    fed = api.post_json("/v1/federations", {"hostcluster_id": cluster,
                                            "properties": {"dns-zone": "z."}},
                        headers=headers("admin"), status=202).json["uuid"]
    recorder.reset()
    return {"api": api, "tpl": tpl["uuid"], "cluster": cluster, "fed": fed,
            "recorder": recorder}


@pytest.fixture
def world(api_any, recorder):
    """:func:`make_world` and a quota, on every backend."""
    api_any.post_json("/v1/quotas", {"project_id": "project-a", "hard_limit": 5},
                      headers=headers("admin"), status=201)
    return make_world(api_any, recorder)


def bad_requests(w) -> list[tuple]:
    """(method, path, raw body or JSON, extra headers, expected status)."""
    t, c, f = w["tpl"], w["cluster"], w["fed"]
    ng = f"/v1/clusters/{c}/nodegroups"
    json_h = {"Content-Type": "application/json"}
    cases: list[tuple] = []
    for path in ("/v1/clustertemplates", "/v1/clusters", "/v1/quotas", "/v1/federations",
                 ng):
        cases += [("DELETE", path, None, {}, 405), ("PATCH", path, [], {}, 405)]
    cases.append(("PATCH", "/v1/credentials", None, {}, 404))  # no method on that path
    cases += [("get", "/v1/clusters", None, {}, 405), ("delete", f"/v1/clusters/{c}", None,
                                                        {}, 405),
              ("POST", f"/v1/clusters/{c}?_method=DELETE", None, {}, 400),
              ("GET", f"/v1/clusters/{c}?_method=patch", None, {}, 400)]
    for path in ("/v1/quotas", "/v1/clustertemplates", ng, "/v1/certificates",
                 f"/v1/clusters/{c}/actions/resize", f"/v1/clusters/{c}/actions/upgrade",
                 "/v1/clusters", "/v1/federations"):
        cases += [("POST", path, raw, json_h, 400) for raw in ANY_BODY]
    for path in (f"/v1/clustertemplates/{t}", f"/v1/clusters/{c}", f"{ng}/ng1",
                 f"/v1/federations/{f}", "/v1/quotas/project-a/Cluster"):
        cases += [("PATCH", path, raw, json_h, 400)
                  for raw in ANY_BODY if raw not in ("[]", '["op"]')]
        cases.append(("PATCH", path, '["op"]', json_h, 400))
    cases += [
        ("POST", "/v1/clustertemplates", "[" * 100000, json_h, 400),
        ("POST", "/v1/clustertemplates", '{"labels": ' + '{"a": ' * 40 + "1" + "}" * 41,
         json_h, 400),
        ("POST", "/v1/clustertemplates", json.dumps({"coe": "kubernetes"}).encode("utf-16"),
         {"Content-Type": "application/json; charset=utf-16"}, 415),
        ("POST", "/v1/clustertemplates", b'{"coe": "kubernetes"}',
         {"Content-Type": "text/plain"}, 415),
        ("POST", "/v1/clustertemplates", b"{" + b" " * 200000 + b"}", json_h, 413),
    ]
    tpl_body = {"coe": "kubernetes", "image_id": support.IMAGE_ID}
    for extra in ({"apiserver_port": [1]}, {"apiserver_port": 1e308},
                  {"apiserver_port": True}, {"docker_volume_size": 10**30},
                  {"docker_volume_size": 2.5}, {"labels": {"k": "v" * 70000}},
                  {"labels": {f"k{i}": "v" for i in range(300)}},
                  {"name": "\ud800"}, {"name": "a\x00b"}, {"name": "x" * 256},
                  {"uuid": "0d6e4e8c-1f4e-4b8a-9a57-111111111111"},
                  {"project_id": "other"}, {"http_proxy": {"a": 1}}):
        cases.append(("POST", "/v1/clustertemplates", {**tpl_body, **extra}, {}, 400))
    for extra in ({"node_count": 3e9}, {"create_timeout": 3 * 10**9},
                  {"node_count": 10**20}, {"master_count": [1]},
                  {"discovery_url": "h" * 300}, {"status": "CREATE_COMPLETE"},
                  {"uuid": "0d6e4e8c-1f4e-4b8a-9a57-111111111111"},
                  {"stack_id": "s"}, {"name": "x" * 243}):
        cases.append(("POST", "/v1/clusters", {"cluster_template_id": t, **extra}, {}, 400))
    for extra in ({"max_node_count": 2**31}, {"node_count": -1}, {"is_default": True},
                  {"project_id": "x"}, {"status": "CREATE_COMPLETE"},
                  {"node_labels": {"a": {"b": "c"}}}, {"node_taints": "x"},
                  {"stack_id": "s"}, {"uuid": "0d6e4e8c-1f4e-4b8a-9a57-111111111111"}):
        cases.append(("POST", ng, {"name": "ng2", **extra}, {}, 400))
    cases += [
        ("POST", "/v1/quotas", {"project_id": "project-b", "hard_limit": 2**64}, {}, 400),
        ("POST", "/v1/quotas", {"project_id": "project-b", "hard_limit": "1e3"}, {}, 400),
        ("POST", f"/v1/clusters/{c}/actions/resize", {"node_count": [1]}, {}, 400),
        ("POST", f"/v1/clusters/{c}/actions/resize", {"node_count": 1,
                                                      "nodes_to_remove": [1]}, {}, 400),
        ("POST", "/v1/federations", {"hostcluster_id": c, "member_ids": ["m" * 300],
                                     "properties": {"dns-zone": "z."}}, {}, 400),
        ("PATCH", f"/v1/clustertemplates/{t}", [{"op": "replace", "path": None,
                                                 "value": "x"}], {}, 400),
        ("PATCH", f"/v1/clustertemplates/{t}", [{"op": "replace", "path": "/name",
                                                 "value": {"x": 1}}], {}, 400),
        ("PATCH", f"/v1/clustertemplates/{t}", [{"op": "replace", "path": "/labels",
                                                 "value": "[" * 5000}], {}, 400),
        ("PATCH", f"/v1/clustertemplates/{t}", [{"op": "replace", "path": "/apiserver_port",
                                                 "value": 10**12}], {}, 400),
        ("PATCH", f"{ng}/ng1", [{"op": "add", "path": "/node_labels/" + "-" * 20000 + "1",
                                 "value": "x"}], {}, 400),
        ("PATCH", f"{ng}/ng1", [{"op": "replace", "path": "/max_node_count",
                                 "value": 2**40}], {}, 400),
        ("PATCH", f"/v1/federations/{f}", [{"op": "replace", "path": "/properties",
                                            "value": "not a dict"}], {}, 400),
        ("PATCH", f"/v1/federations/{f}", [{"op": "replace", "path": "/properties",
                                            "value": "[1, 2]"}], {}, 400),
        ("PATCH", f"/v1/clusters/{c}", [{"op": "replace", "path": "/node_count",
                                         "value": 3e9}], {}, 400),
        ("PATCH", f"/v1/clusters/{c}", [{"op": "replace", "path": "/health_status",
                                         "value": "BOGUS"}], {}, 400),
        ("GET", "/v1/quotas?marker=99999999999999999999", None, {}, 400),
        ("GET", "/v1/clusters?limit=1e3", None, {}, 400),
        ("GET", "/v1/clusters/a%00b", None, {}, 400),
        ("GET", "/v1/clusters/%ff", None, {}, 400),
        ("GET", "/v1/clusters/%ed%a0%80", None, {}, 400),
        ("GET", f"{ng}?role=a%00", None, {}, 400),
        ("GET", "/v1/clusters/" + "x" * 300, None, {}, 400),
    ]
    return cases


def snapshot() -> dict[str, list]:
    """Every row of every table, as stored."""
    import sqlalchemy as sa

    from magnum_common.db import api as db_api
    from magnum_common.db import models

    with db_api.reader() as session:
        return {table.name: [tuple(row) for row in session.execute(
            sa.select(table).order_by(table.c.id))]
            for table in models.Base.metadata.sorted_tables}


def send(api, method, path, body, extra):
    if body is None or isinstance(body, (str, bytes)):
        data = body.encode() if isinstance(body, str) else body
        return api.request(path, method=method, body=data or b"",
                           headers={**headers(), **extra}, expect_errors=True)
    return api.request(path, method=method, body=json.dumps(body).encode(),
                       headers={**headers(), "Content-Type": "application/json", **extra},
                       expect_errors=True)


def test_bad_input_is_a_4xx_that_changes_nothing(world):
    api, recorder = world["api"], world["recorder"]
    failures = []
    for method, path, body, extra, status in bad_requests(world):
        before = snapshot()
        resp = send(api, method, path, body, extra)
        label = f"{method} {path[:80]} {str(body)[:80]!r}"
        if resp.status_int != status:
            failures.append(f"{label}: {resp.status_int} {resp.body[:300]!r}")
            continue
        error = resp.json["errors"][0]
        if error["status"] != status or resp.content_type != "application/json":
            failures.append(f"{label}: envelope {resp.body[:200]!r}")
        if status == 405 and not resp.headers.get("Allow"):
            failures.append(f"{label}: 405 without Allow")
        if snapshot() != before:
            failures.append(f"{label}: the database changed")
    assert recorder.calls == []
    assert not failures, "\n".join(failures)


def test_collection_405_names_the_allowed_methods(world):
    api = world["api"]
    resp = api.delete("/v1/clusters", headers=headers(), status=405)
    assert resp.headers["Allow"] == "GET, POST"
    resp = api.patch_json(f"/v1/clusters/{world['cluster']}/nodegroups", [],
                          headers=headers(), status=405)
    assert resp.headers["Allow"] == "GET, POST"
    assert resp.json["errors"][0]["status"] == 405


@pytest.mark.parametrize("path, allow", [
    ("/v1/clusters/{c}", "DELETE, GET, PATCH"), ("/v1/federations/x", "DELETE, GET, PATCH"),
    ("/v1/quotas/project-a/Cluster", "DELETE, GET, PATCH"),
    ("/v1/certificates/{c}", "GET, PATCH"),
    ("/v1/clusters/{c}/nodegroups/ng1", "DELETE, GET, PATCH")])
def test_post_to_an_item_is_405_at_every_microversion(world, path, allow):
    """Not 400 (upstream: WSME could not bind the id) nor the 406 of a version below the
    path's: the method does not exist there, whatever the version."""
    before = snapshot()
    for version in ("1.1", "latest"):
        resp = world["api"].post_json(path.format(c=world["cluster"]), {},
                                      headers=headers(version=version), status=405)
        assert resp.headers["Allow"] == allow
    resp = world["api"].patch_json(f"/v1/clusters/{world['cluster']}/nodegroups", [],
                                   headers=headers(version="1.1"), status=405)
    assert resp.headers["Allow"] == "GET, POST"
    assert snapshot() == before and world["recorder"].calls == []


@pytest.mark.parametrize("method, path, allow", [
    *((m, f"/v1/{r}/detail", "GET") for m in ("POST", "PUT", "PATCH", "DELETE")
      for r in ("clusters", "clustertemplates", "federations")),
    ("PUT", "/v1/clusters", "GET, POST"), ("PUT", "/v1/clusters/{c}", "DELETE, GET, PATCH"),
    ("PUT", "/v1/clusters/{c}/nodegroups/", "GET, POST"), ("PUT", "/v1/stats", "GET")])
def test_405_names_the_methods_of_the_path(world, method, path, allow):
    """``detail`` is a path of its own (not a resource named so), and pecan's list of its
    controller's methods is replaced by the path's."""
    before = snapshot()
    resp = world["api"].request(path.format(c=world["cluster"]), method=method,
                                headers=headers(), status=405)
    assert resp.headers["Allow"] == allow and resp.json["errors"][0]["status"] == 405
    assert snapshot() == before and world["recorder"].calls == []


def test_four_byte_utf8_round_trips(world):
    api = world["api"]
    name = "emoji-\U0001F600-\u00e9"
    tpl = api.post_json("/v1/clustertemplates", {
        "coe": "kubernetes", "image_id": support.IMAGE_ID, "name": name,
        "labels": {"note": "\U0001F680"}, "tags": "\U0001F40D"}, headers=headers()).json
    shown = api.get(f"/v1/clustertemplates/{tpl['uuid']}", headers=headers()).json
    assert shown["name"] == name and shown["labels"] == {"note": "\U0001F680"}
    assert shown["tags"] == "\U0001F40D"
    api.get("/v1/clustertemplates/" + urllib.parse.quote(name), headers=headers(), status=200)


def test_read_only_fields_are_refused_with_the_field_named(world):
    api = world["api"]
    resp = api.post_json(f"/v1/clusters/{world['cluster']}/nodegroups",
                         {"name": "d", "is_default": True}, headers=headers(), status=400)
    assert resp.json["errors"][0]["detail"] == \
        "Invalid input for field/attribute is_default. Value: 'True'. Cannot set read only " \
        "field."
    row = clusters.get_by_uuid(None, world["cluster"])
    assert row.status == "CREATE_COMPLETE"


@pytest.mark.parametrize("status, method, path, body, detail", [
    ("UPDATE_FAILED", "POST", "actions/upgrade", {"cluster_template": "TPL"},
     'Upgrading a cluster when status is "UPDATE_FAILED" is not supported.'),
    ("UPDATE_FAILED", "PATCH", "certificates", None,
     'Updating a cluster when status is "UPDATE_FAILED" is not supported.'),
    ("CREATE_IN_PROGRESS", "PATCH", "", [{"op": "replace", "path": "/node_count",
                                          "value": 2}],
     'Updating a cluster when status is "CREATE_IN_PROGRESS" is not supported.'),
    ("DELETE_FAILED", "POST", "actions/resize", {"node_count": 2},
     'Resizing a cluster when status is "DELETE_FAILED" is not supported.'),
    ("DELETE_IN_PROGRESS", "PATCH", "credentials", None,
     'Rotating the credentials of a cluster when status is "DELETE_IN_PROGRESS" is not '
     "supported."),
])
def test_impossible_operations_are_refused_before_recording(world, status, method, path,
                                                             body, detail):
    api, cluster = world["api"], world["cluster"]
    clusters.update(None, cluster, {"status": status})
    url = {"certificates": f"/v1/certificates/{cluster}",
           "credentials": f"/v1/credentials/{cluster}"}.get(path) or \
        f"/v1/clusters/{cluster}/{path}".rstrip("/")
    if isinstance(body, dict) and body.get("cluster_template") == "TPL":
        body = {"cluster_template": world["tpl"]}
    before = snapshot()
    resp = send(api, method, url, body if body is not None else b"", {})
    assert resp.status_int == 400, resp.body
    assert resp.json["errors"][0]["detail"] == detail
    assert snapshot() == before
    assert world["recorder"].calls == []
