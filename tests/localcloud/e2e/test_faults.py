"""Bad input and a failing Heat stack, end to end through ``openstack coe``.

* a template whose image is missing: template create and cluster create answer 400
  ``Image <name> could not be found.`` (the image check runs again at cluster create);
* a cluster whose Heat stack fails (the local cloud's ``fail.`` flavor switch) ends
  CREATE_FAILED with the failing resource in status_reason, and deletes without leftovers;
* a cluster deleted while Heat still creates its stack (issue 12 point 3) leaves no stack,
  trust or trustee behind, checked as admin.
"""

from __future__ import annotations

import uuid

import pytest

from localcloud.scenario.life import Faults


@pytest.fixture(scope="module")
def magnum(start_magnum):
    with start_magnum("sqlite") as svc:
        yield svc


@pytest.fixture
def faults(narrator, tmp_path) -> Faults:
    return Faults(narrator, tmp_path, tag=f"e2f-{uuid.uuid4().hex[:4]}")


def test_missing_image_is_a_400(magnum, narrator, faults, run_flow):
    run_flow(narrator, magnum, [("missing image", faults.missing_image)])
    assert narrator.steps[-1].ok


def test_failing_stack_ends_create_failed_and_deletes_cleanly(magnum, narrator, faults,
                                                              run_flow):
    run_flow(narrator, magnum, [("failing stack", faults.failing_stack)])
    assert narrator.steps[-1].ok


def test_delete_during_create_leaves_nothing(magnum, narrator, faults, run_flow):
    run_flow(narrator, magnum, [("delete during create", faults.delete_during_create)])
    assert narrator.steps[-1].ok
