"""A cluster's whole life through ``openstack coe`` as the demo user, on SQLite and PostgreSQL.

The steps are main-job's (``scenario.life.ClusterLife``): templates, create, show, kubeconfig
verified against the cluster CA, resize up, resize down removing a named worker, node group
create and delete, upgrade, CA rotation, delete, and nothing left behind (checked as admin).
"""

from __future__ import annotations

import uuid

import pytest

from localcloud.scenario.life import ClusterLife, Deadlines


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def magnum(request, start_magnum):
    with start_magnum(request.param) as svc:
        yield svc


def test_cluster_life_via_openstack_coe(magnum, narrator, run_flow, tmp_path):
    life = ClusterLife(narrator, tmp_path, tag=f"e2e-{uuid.uuid4().hex[:4]}",
                       deadlines=Deadlines(create=900, update=900, delete=600))
    run_flow(narrator, magnum, life.steps(), cleanup=life.cleanup)
    assert "first CREATE_COMPLETE" in narrator.milestones
    assert all(step.ok for step in narrator.steps)
    assert [s.name for s in narrator.steps] == [title for title, _ in life.steps()]
