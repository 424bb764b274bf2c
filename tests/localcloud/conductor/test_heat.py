"""The conductor's Heat access on the local cloud's real Keystone and Heat.

What the handlers and the status sync rely on, checked against real Heat: a stack create
goes out with the requester's token even once the trust exists (Heat makes its own trust
from it), the trust-scoped client sees and deletes the owner's stacks without any user
token, and one ``stacks.list(filters={'id': [...]})`` returns exactly the stacks asked for
(the batching that replaces one GET per cluster).
The shared ``localcloud`` fixture starts the cloud when it is down.
"""

from __future__ import annotations

import types
import uuid

import pytest
from oslo_config import cfg

from drivers.heat import client
from magnum_common.context import RequestContext, make_admin_context
from magnum_common.drivers import registry
from magnum_conductor.engine.executor import Executor
from magnum_conductor.engine.resources import Resources
from magnum_conductor.identity import keystone, trust
from magnum_conductor.status.sync import StatusSync

CONF = cfg.CONF
TEMPLATE = {"heat_template_version": "queens",
            "resources": {"nothing": {"type": "OS::Heat::None"}},
            "outputs": {"api_address": {"value": "127.10.0.5"}}}


@pytest.fixture
def demo_cluster(localcloud_token, localcloud_conf):
    token, info = localcloud_token("demo")
    demo = RequestContext(auth_token=token, auth_token_info=info,
                          user_id=info["token"]["user"]["id"],
                          project_id=info["token"]["project"]["id"],
                          roles=[r["name"] for r in info["token"]["roles"]])
    row = types.SimpleNamespace(uuid=str(uuid.uuid4()), project_id=demo.project_id,
                                user_id=demo.user_id, name="lc", trustee_username=None,
                                trustee_user_id=None, trustee_password=None, trust_id=None)
    for key, value in trust.create_trustee_and_trust(demo, row).items():
        setattr(row, key, value)
    yield demo, row
    trust.delete_trustee_and_trust(make_admin_context(), row)
    keystone.reset_cache()


def test_trust_scoped_heat_and_batched_stack_list(demo_cluster):
    demo, cluster = demo_cluster
    creator = Resources(demo, cluster, prefer_requester=True)
    assert not creator.session().auth.get_access(creator.session()).trust_id
    tag = uuid.uuid4().hex[:6]
    ids = [client.heat(creator.session()).stacks.create(
        stack_name=f"conductor-lc-{tag}-{i}", template=TEMPLATE)["stack"]["id"]
        for i in range(3)]
    # No requester context: the trust alone.
    heat = client.heat(Resources(None, cluster).session())
    try:
        sync = StatusSync(Executor("lc:0:test"))
        driver = registry.all_drivers()["k8s_fedora_coreos_v1"]
        poll = sync._poll(driver, [cluster], ids[:2])
        assert set(poll.states) == set(ids[:2])
        assert poll.requests == 1
        assert all(s.status in ("CREATE_IN_PROGRESS", "CREATE_COMPLETE")
                   for s in poll.states.values())
        assert {s.id for s in heat.stacks.list(filters={"id": ids})} == set(ids)
    finally:
        for stack_id in ids:
            heat.stacks.delete(stack_id)
