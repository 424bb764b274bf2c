"""A cluster's whole life through ``openstack coe`` as the demo user.

CI runs it on SQLite, the embedded default (MariaDB and PostgreSQL are covered by the
functional tiers on the real servers); ``MAGNUM_E2E_DATABASES=sqlite,postgresql,mysql`` runs
the same life on each (the longer job).

The steps are main-job's (``scenario.life.ClusterLife``): templates, create, show, kubeconfig
verified against the cluster CA, resize up, resize down removing a named worker, node group
create and delete, upgrade, CA rotation, delete, and nothing left behind (checked as admin);
without the nodes' trust, also that no node holds a trustee credential and that a credential
rotation replaces the conductors' trustee and trust only.

Meanwhile every database row and every message on the broker (RPC and notifications) is
captured (``wiretap``): no requester token, trustee password or private key is ever in clear.
"""

from __future__ import annotations

import json
import os
import uuid

import pytest

from localcloud.scenario import services
from localcloud.scenario.life import ClusterLife, Deadlines
from tests.localcloud.e2e import wiretap

#: Notifications on, so they are captured too.
NOTIFY = {"oslo_messaging_notifications": {"driver": "messagingv2"}}


#: ``[trust] cluster_user_trust`` of each run (the local cloud's own setting is true). The
#: CI run (SQLite) gives the nodes no trust: they get their certificates with the node token,
#: hold no trustee credential, and a credential rotation touches no stack. The nodes' side of
#: the trust (trustee tokens on the certificate routes, a rotation pushed to the nodes) is
#: test_credential_rotation.py's; the longer job's other databases run with the trust.
TRUST = {"sqlite": "false"}
RUNS = {db: TRUST.get(db, "true")
        for db in os.environ.get("MAGNUM_E2E_DATABASES", "sqlite").split(",")}


@pytest.fixture(scope="module", params=sorted(RUNS))
def magnum(request, start_magnum):
    overrides = {**NOTIFY, "trust": {"cluster_user_trust": RUNS[request.param]}}
    with start_magnum(request.param, overrides=overrides) as svc:
        yield RUNS[request.param], svc


def test_cluster_life_via_openstack_coe(magnum, narrator, run_flow, tmp_path):
    trust, svc = magnum
    life = ClusterLife(narrator, tmp_path, tag=f"e2e-{uuid.uuid4().hex[:4]}",
                       deadlines=Deadlines(create=900, update=900, delete=600))
    steps = life.steps()
    if trust == "false":
        titles = [title for title, _ in steps]
        at = next(i for i, title in enumerate(titles) if title.startswith("Wait for HEALTHY"))
        steps[at + 1:at + 1] = life.trustless_steps()
    with wiretap.WireTap(svc) as wire, wiretap.RowTap(svc) as rows:
        run_flow(narrator, svc, steps, cleanup=life.cleanup)
    assert "first CREATE_COMPLETE" in narrator.milestones
    assert all(step.ok for step in narrator.steps)
    assert [s.name for s in narrator.steps] == [title for title, _ in steps]
    _assert_no_secret_in_clear(wire, rows)


def _assert_no_secret_in_clear(wire: wiretap.WireTap, rows: wiretap.RowTap) -> None:
    found = wiretap.secrets_in(rows.rows, services.encryption_key())
    # Not vacuous: the sealed tokens and the encrypted trustee password were seen, and so
    # were the create's cast and its notifications.
    assert found["tokens"] and found["secrets"], found.keys()
    payloads = wire.payloads()
    assert any(p.get("method") == "cluster_create" for p in payloads)
    assert any(p.get("event_type") == "magnum.cluster.create" for p in payloads)
    texts = {"row": rows.rows, "message": set(wire.messages)}
    for where, items in texts.items():
        for text in items:
            assert not wiretap.PEM_PRIVATE.search(text), f"private key in a {where}"
            for value in found["tokens"] | found["secrets"]:
                assert value not in text, f"a secret in clear in a {where}: {text[:300]}"
    for payload in payloads:
        context = {k[len("_context_"):]: v for k, v in payload.items()
                   if k.startswith("_context_")}
        assert not {"auth_token", "auth_token_info", "service_token", "password"} & {
            k for k, v in context.items() if v}, sorted(context)
        assert "catalog" not in json.dumps(payload)


