"""Schemathesis against the running API (gunicorn, MariaDB, RabbitMQ): every operation of
the OpenAPI document the API serves, with valid and invalid data, then stateful runs that
follow the document's links (templates -> clusters -> node groups and the cluster actions,
certificates, credentials, federations, quotas) and really create what they link.

Asserted for every answer: no 5xx; status code, content type, headers and body as the
document says; invalid data refused; and a rejected request (4xx) changed no row of any
table (``updated_at`` included) and sent nothing to the conductor (``fuzz_hooks``). The
run is bounded by examples per operation and derandomised, so CI time is stable.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import urllib.parse
import uuid
from collections.abc import Callable

import pytest
import requests
from jsonschema import Draft202012Validator

from magnum_common.db import migration
from tests import conftest as root_conftest
from tests.functional.api import support
from tests.functional.tooling.test_api_server import magnum_api

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCHEMATHESIS = pathlib.Path(sys.executable).parent / "schemathesis"
TRANSPORT = "rabbit://guest:guest@127.0.0.1:5672/"
PROJECT = "project-fuzz"
IDENTITY = {"X-User-Id": "fuzzer", "X-Project-Id": PROJECT, "X-Roles": "admin,member,reader"}
#: Examples per operation and phase.
MAX_EXAMPLES = int(os.environ.get("MAGNUM_FUZZ_EXAMPLES", 5))
#: Stateful scenarios (noauth; the Keystone run a third, too few to count on a node
#: group: what the links reach is asserted in noauth) and the steps of each.
SCENARIOS = int(os.environ.get("MAGNUM_FUZZ_SCENARIOS", 45))
STEPS = 20
#: Operations whose acceptance the stateful noauth run must reach: the chain of creates...
CHAIN = {"POST /v1/clustertemplates", "POST /v1/clusters",
         "POST /v1/clusters/{cluster_ident}/nodegroups"}
#: ...and at least one of the cluster's actions.
ACTIONS = {"POST /v1/clusters/{cluster_ident}/actions/resize",
           "POST /v1/clusters/{cluster_ident}/actions/upgrade",
           "PATCH /v1/certificates/{cluster_ident}", "PATCH /v1/credentials/{cluster_ident}",
           "PATCH /v1/clusters/{cluster_ident}/nodegroups/{ident}"}
#: Checks that do not apply: an operation answering 2xx to every valid input cannot hold
#: for ids that name nothing; noauth has no authentication to ignore.
EXCLUDED_CHECKS = ("positive_data_acceptance", "ignored_auth")


class EverythingExists(support.StubCloud):
    """Glance, Nova, Neutron and Keystone where every name asked for exists (a
    fedora-coreos image, a flavor with a disk, a keypair, an external network, a project),
    so the generated bodies that the schemas accept go on to create resources."""

    def answer(self, path: str, query: dict) -> tuple[int, dict]:
        parts = [urllib.parse.unquote(p) for p in path.strip("/").split("/")]
        service, rest = parts[0], parts[1:]
        if service == "image" and rest[:2] == ["v2", "images"]:
            ident = rest[2] if len(rest) == 3 else query.get("name", "")
            image = {"id": ident, "name": ident, "os_distro": "fedora-coreos",
                     "status": "active"}
            return (200, image) if len(rest) == 3 else (200, {"images": [image]})
        if service == "compute" and rest[:1] == ["flavors"] and len(rest) == 2:
            if rest[1] == "detail":
                return 200, {"flavors": []}
            return 200, {"flavor": {"id": rest[1], "name": rest[1], "disk": 20}}
        if service == "compute" and rest[:1] == ["os-keypairs"]:
            return 200, {"keypair": {"name": rest[-1]}}
        if service == "network" and rest[:1] == ["v2.0"] and len(rest) == 2:
            ident = query.get("name") or query.get("id") or ""
            return 200, {rest[1]: [{"id": ident, "name": ident, "router:external": True}]}
        if service == "identity" and rest[:2] == ["v3", "projects"]:
            return 200, {"project": {"id": rest[-1]}}
        return 404, {}


@pytest.fixture(scope="module")
def mariadb():
    name = f"magnum_fuzz_{root_conftest.WORKER}_{os.getpid()}"
    url = root_conftest._server_database(root_conftest.MYSQL_SERVER, name)
    root_conftest._use(url)
    migration.upgrade()
    yield url
    root_conftest._drop_database(root_conftest.MYSQL_SERVER, name)


def _without_security(document: dict) -> None:
    """The served document as a noauth deployment answers: no token is asked for."""
    document["components"].pop("securitySchemes")
    for item in document["paths"].values():
        for spec in item.values():
            spec.pop("security", None)
            spec["responses"].pop("401", None)


def _settings(tmp: pathlib.Path, scenarios: int) -> pathlib.Path:
    """schemathesis.toml of a run: the stateful phase's size; only the links the document
    declares (none inferred); and no ``use_after_free`` on a quota's GET, which answers the
    default limit when the project has no quota row (the contract: a deleted quota is the
    default again)."""
    path = tmp / "schemathesis.toml"
    path.write_text(f"""
[phases.stateful]
max-steps = {STEPS}
[phases.stateful.generation]
max-examples = {scenarios}
[phases.stateful.inference]
algorithms = []
[[operations]]
include-operation-id = "get_v1_quotas_project_id_resource"
checks.use_after_free.enabled = false
""")
    return path


def _run(tmp: pathlib.Path, url: str, cloud: support.StubCloud, headers: dict[str, str],
         auth: str = "noauth", extra: str = "", options: tuple[str, ...] = (),
         probe: Callable[[str, dict], None] | None = None, scenarios: int = SCENARIOS
         ) -> tuple[subprocess.CompletedProcess, dict, dict]:
    """Schemathesis against a magnum-api started for it; (its result, the hooks' stats,
    the document as tested). ``probe(base_url, document)`` runs on the same API after.
    The project may have as many clusters as the run creates (the quota's default)."""
    topic = f"magnum-fuzz-{uuid.uuid4().hex[:12]}"
    overrides = "".join(f"{k} = {v}\n" for k, v in cloud.overrides().items())
    config = (f"{overrides}\n[conductor]\ntopic = {topic}\n"
              f"[quotas]\nmax_clusters_per_project = 100000\n{extra}")
    stats = tmp / f"stats-{topic}.json"
    with magnum_api(tmp, url, extra=config, auth=auth) as (base, log):
        env = {**os.environ, "MAGNUM_FUZZ_DB": url, "MAGNUM_FUZZ_TOPIC": topic,
               "MAGNUM_FUZZ_TRANSPORT": TRANSPORT, "MAGNUM_FUZZ_STATS": str(stats),
               "SCHEMATHESIS_HOOKS": "tests.functional.api.fuzz_hooks",
               "PYTHONPATH": str(ROOT)}
        document = requests.get(f"{base}/v1/openapi.json", timeout=30).json()
        if auth == "noauth":
            _without_security(document)
        schema = tmp / f"openapi-{topic}.json"
        schema.write_text(json.dumps(document))
        command = [str(SCHEMATHESIS), "--config-file", str(_settings(tmp, scenarios)),
                   "run", str(schema), "--url", base, "--workers", "1",
                   "--max-examples", str(MAX_EXAMPLES), "--seed", "13",
                   "--exclude-checks", ",".join(
                       EXCLUDED_CHECKS if auth == "noauth" else EXCLUDED_CHECKS[:1]),
                   "--no-color", *options,
                   "--suppress-health-check", "all", "--request-timeout", "30",
                   *[arg for k, v in headers.items() for arg in ("-H", f"{k}: {v}")]]
        result = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True,
                                timeout=900)
        if probe is not None:
            probe(base, document)
    return result, json.loads(stats.read_text()) if stats.exists() else {}, document


def _phases(*names: str) -> list[str]:
    return ["--phases", ",".join(names)]


def test_schemathesis_noauth(mariadb, tmp_path):
    cloud = EverythingExists()
    try:
        result, stats, document = _run(tmp_path, mariadb, cloud, IDENTITY)
    finally:
        cloud.stop()
    (tmp_path / "report.txt").write_text(result.stdout + result.stderr)
    report = result.stdout[-20000:] + result.stderr[-5000:]
    assert result.returncode == 0, report
    assert not stats["late_casts"], stats["late_casts"]
    # Every operation was exercised, resources were created, and most answers were
    # refusals that the state check compared.
    operations = stats["operations"]
    assert stats["requests"] > 2000 and stats["rejected"] > 1000, report
    tested = {op.rsplit(" ", 1)[0] for op in operations}
    declared = {f"{m.upper()} {p}" for p, item in document["paths"].items() for m in item}
    assert declared <= tested, sorted(declared - tested)
    created = {op.rsplit(" ", 1)[0] for op, n in operations.items()
               if op.startswith("POST") and op.split()[-1] in ("201", "202")}
    assert {"POST /v1/clustertemplates", "POST /v1/quotas"} <= created, operations
    # The stateful phase followed the links to the end: templates, clusters on them, node
    # groups in those, and an action of a cluster were accepted (and every refusal on the
    # way was compared with the snapshot).
    accepted = _accepted(stats["stateful"])
    assert CHAIN <= accepted and accepted & ACTIONS, stats["stateful"]
    assert sum(n for op, n in stats["stateful"].items() if op.endswith(" 400")) > 0


def _accepted(operations: dict[str, int]) -> set[str]:
    """``METHOD path`` of the operations that answered 2xx at least once."""
    return {op.rsplit(" ", 1)[0] for op in operations if op.split()[-1].startswith("2")}


def _localcloud() -> pathlib.Path:
    state = pathlib.Path(os.environ.get("MAGNUM_LOCALCLOUD_DIR", ROOT / ".localcloud"))
    if not (state / "clouds.yaml").exists():
        pytest.fail(f"the local cloud is not up (no {state}/clouds.yaml): tools/localcloud up",
                    pytrace=False)
    return state


def _refused_unless_token(base: str, document: dict) -> None:
    """Every operation that needs a token, asked without one and with one Keystone never
    issued: 401 in the error envelope (as the document says), with the request's id."""
    envelope = Draft202012Validator(document["components"]["schemas"]["Error"])
    asked = 0
    for path, item in document["paths"].items():
        for method, spec in item.items():
            if not spec.get("security"):
                continue
            assert "401" in spec["responses"], (method, path)
            url = base + "/".join(p if not p.startswith("{") else "x" for p in
                                  path.split("/"))
            for headers in ({}, {"X-Auth-Token": "gAAAAABnot-a-token-keystone-issued"}):
                answer = requests.request(method.upper(), url, headers=headers, timeout=30)
                assert answer.status_code == 401, (method, path, answer.text)
                assert answer.headers["Content-Type"] == "application/json"
                body = answer.json()
                assert envelope.is_valid(body), (method, path, body)
                assert body["errors"][0]["request_id"] == \
                    answer.headers["X-OpenStack-Request-Id"]
                assert answer.headers["WWW-Authenticate"].startswith("Keystone uri=")
                asked += 1
    assert asked > 60, asked


def test_schemathesis_keystone(mariadb, tmp_path):
    """The document as served, security included, behind the local cloud's real Keystone:
    the same checks, ``ignored_auth`` included (a request without a valid token is 401),
    then every operation without a token and with a forged one: 401 in the envelope."""
    import configparser

    import yaml
    from keystoneauth1 import loading, session

    state = _localcloud()
    cloud_conf = configparser.ConfigParser(interpolation=None)
    cloud_conf.read(state / "magnum-localcloud.conf")
    authtoken = "[keystone_authtoken]\n" + "".join(
        f"{k} = {v}\n" for k, v in cloud_conf["keystone_authtoken"].items())
    admin = yaml.safe_load((state / "clouds.yaml").read_text())["clouds"]["localcloud-admin"]
    auth = loading.get_plugin_loader("password").load_from_options(**admin["auth"])
    token = session.Session(auth=auth).get_token()
    cloud = EverythingExists()
    try:
        result, stats, document = _run(
            tmp_path, mariadb, cloud, {"X-Auth-Token": token}, auth="keystone",
            extra=authtoken, options=_phases("fuzzing", "stateful"), probe=_refused_unless_token,
            scenarios=SCENARIOS // 3)
    finally:
        cloud.stop()
    (tmp_path / "report.txt").write_text(result.stdout + result.stderr)
    assert result.returncode == 0, result.stdout[-20000:] + result.stderr[-5000:]
    assert not stats["late_casts"], stats["late_casts"]
    assert stats["requests"] > 150, stats["statuses"]
