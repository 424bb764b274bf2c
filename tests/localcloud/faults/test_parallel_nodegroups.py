"""Three node-group creates, then three deletes, sent at once on one cluster (issue 12,
fault suite; terraform's default parallelism), on the real cloud.

Every request is accepted (202), they run one after the other in the cluster's queue, each
group gets its own stack and goes away with it, and the history records six succeeded
operations. Then a node-group PATCH and a resize back to back, as one terraform apply sends
them: both accepted, both applied.
"""

from __future__ import annotations

import concurrent.futures

import faultharness as fh
import pytest

pytestmark = pytest.mark.localcloud

NAMES = ("pa", "pb", "pc")


def _at_once(call, names):
    with concurrent.futures.ThreadPoolExecutor(len(names)) as pool:
        return list(pool.map(call, names))


def test_three_nodegroup_creates_and_deletes_at_once(fleet, api, template, cloud):
    uuid_ = api.create_cluster(fh.new_name("par"), template["uuid"]).json()["uuid"]
    cluster = api.wait_status(uuid_, "CREATE_COMPLETE", fh.BOUND["create"])
    footprint = fh.assert_owns_once(cloud, cluster)

    answers = _at_once(lambda n: api.create_nodegroup(uuid_, n), NAMES)
    assert [a.status_code for a in answers] == [202] * 3, [a.text for a in answers]
    shown = {ng["name"]: ng["status"] for ng in api.nodegroups(uuid_)}
    assert all(shown[n] == "CREATE_IN_PROGRESS" for n in NAMES), shown

    def settled() -> dict[str, str] | None:
        groups = {ng["name"]: ng for ng in api.nodegroups(uuid_)}
        if any(groups[n]["status"].endswith("_IN_PROGRESS") for n in NAMES):
            return None
        return {n: groups[n]["status"] for n in NAMES}
    assert fh.wait_for(settled, fh.BOUND["update"], "three node groups created", 2) == \
        dict.fromkeys(NAMES, "CREATE_COMPLETE")
    stacks = {n: ng["stack_id"] for n, ng in
              ((ng["name"], ng) for ng in api.nodegroups(uuid_)) if n in NAMES}
    assert len(set(stacks.values())) == 3 and all(stacks.values()), stacks

    answers = _at_once(lambda n: api.delete_nodegroup(uuid_, n), NAMES)
    assert [a.status_code for a in answers] == [204] * 3 or \
        [a.status_code for a in answers] == [202] * 3, [a.text for a in answers]
    fh.wait_for(lambda: not {ng["name"] for ng in api.nodegroups(uuid_)} & set(NAMES),
                fh.BOUND["update"], "three node groups deleted", 2)
    for stack_id in stacks.values():
        assert cloud.stack(stack_id).stack_status == "DELETE_COMPLETE"
    kinds = [kind_state for kind_state in api.history(uuid_)
             if kind_state[0].startswith("nodegroup_")]
    assert kinds == [("nodegroup_delete", "succeeded")] * 3 + \
        [("nodegroup_create", "succeeded")] * 3, kinds

    # terraform's apply of a node-group PATCH and a resize, back to back: both accepted
    api.request("PATCH", f"/v1/clusters/{uuid_}/nodegroups/default-worker",
                [{"op": "replace", "path": "/max_node_count", "value": 4}], expect=(202,))
    api.resize(uuid_, 2, expect=(202,))
    done = api.wait_status(uuid_, "UPDATE_COMPLETE", fh.BOUND["update"],
                           done=lambda c: c["node_count"] == 2)
    worker = api.get(f"/v1/clusters/{uuid_}/nodegroups/default-worker")
    assert (worker["max_node_count"], worker["node_count"]) == (4, 2)
    fh.delete_and_check(api, cloud, done, footprint)
