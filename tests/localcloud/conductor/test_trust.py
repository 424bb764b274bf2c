"""Keystone sessions, trustees and trusts against the real Keystone of the local cloud.

Needs ``tools/localcloud`` (the shared ``localcloud`` fixture starts it). The
conductor's options come from the cloud's ``magnum-localcloud.conf`` fragment, applied as
overrides so other tests in the worker keep their configuration.
"""

from __future__ import annotations

import types
import uuid
from pathlib import Path

import pytest
from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg

from magnum_common import crypto, exception
from magnum_common.context import RequestContext, make_admin_context
from magnum_conductor.identity import keystone, trust

CONF = cfg.CONF
REPO = Path(__file__).resolve().parents[3]



@pytest.fixture
def conf(localcloud_conf):
    return localcloud_conf


@pytest.fixture(scope="module")
def demo(localcloud_token) -> RequestContext:
    token, info = localcloud_token("demo")
    body = info["token"]
    return RequestContext(auth_token=token, auth_token_info=info,
                          user_id=body["user"]["id"], project_id=body["project"]["id"],
                          roles=[r["name"] for r in body["roles"]])


@pytest.fixture
def cluster(demo):
    """A cluster row stand-in owned by demo; its trust and trustee are removed afterwards."""
    row = types.SimpleNamespace(uuid=str(uuid.uuid4()), project_id=demo.project_id,
                                user_id=demo.user_id, trustee_username=None,
                                trustee_user_id=None, trustee_password=None, trust_id=None)
    yield row
    if row.trustee_user_id:
        trust.delete_trustee_and_trust(make_admin_context(), row)


def _create(demo, cluster) -> dict:
    values = trust.create_trustee_and_trust(demo, cluster)
    for key, value in values.items():
        setattr(cluster, key, value)
    return values


def _domain_admin():
    return keystone.client(keystone.domain_admin_session())


def _user_exists(user_id: str) -> bool:
    try:
        _domain_admin().users.get(user_id)
    except ks_exc.NotFound:
        return False
    return True


def _trust_exists(trust_id: str) -> bool:
    try:
        keystone.client(keystone.admin_session()).trusts.get(trust_id)
    except ks_exc.NotFound:
        return False
    return True


def test_create_makes_trustee_and_impersonating_trust(conf, demo, cluster):
    values = _create(demo, cluster)
    assert values["trustee_username"] == f"{cluster.uuid}_{demo.project_id}"
    password = crypto.decrypt(values["trustee_password"])
    assert password != values["trustee_password"] and len(password) == 18
    user = _domain_admin().users.get(values["trustee_user_id"])
    assert user.name == values["trustee_username"]
    assert user.domain_id == keystone.trustee_domain_id()
    delegation = keystone.client(keystone.session_for_context(demo)).trusts.get(
        values["trust_id"])
    assert delegation.trustor_user_id == demo.user_id
    assert delegation.trustee_user_id == values["trustee_user_id"]
    assert delegation.project_id == demo.project_id
    assert delegation.impersonation is True
    # [trust] roles' default: the minimum, not every role demo holds
    assert [r["name"] for r in delegation.roles] == ["member"]
    assert len(demo.roles) > 1


def test_trustee_gets_a_trust_scoped_token_acting_as_the_owner(conf, demo, cluster):
    _create(demo, cluster)
    sess = trust.cluster_session(cluster)
    access = sess.auth.get_access(sess)
    assert access.trust_id == cluster.trust_id
    assert access.user_id == demo.user_id  # impersonation
    assert access.project_id == demo.project_id
    ctx = trust.cluster_context(cluster)
    assert keystone.session_for_context(ctx).get_token()


def test_features_add_their_roles_to_the_trust(conf, demo, cluster):
    """The cloud provider's load balancers: load-balancer_member ([trust]
    cloud_provider_roles), which a trust-scoped token then carries."""
    values = trust.create_trustee_and_trust(demo, cluster, ["cloud_provider", "autoscaler"])
    for key, value in values.items():
        setattr(cluster, key, value)
    delegation = keystone.client(keystone.admin_session()).trusts.get(cluster.trust_id)
    assert {r["name"] for r in delegation.roles} == {"member", "load-balancer_member"}
    sess = trust.cluster_session(cluster)
    assert {"member", "load-balancer_member"} <= set(sess.auth.get_access(sess).role_names)


def test_empty_roles_delegate_every_role_of_the_requester(conf, demo, cluster):
    CONF.set_override("roles", [], "trust")
    _create(demo, cluster)
    delegation = keystone.client(keystone.admin_session()).trusts.get(cluster.trust_id)
    assert {r["name"] for r in delegation.roles} == set(demo.roles)


def test_keystone_refuses_a_role_the_trustor_lacks(conf, demo, cluster):
    """What the API's 400 (magnum_common.trust_roles.check) stands in front of."""
    CONF.set_override("roles", ["member", "admin"], "trust")
    with pytest.raises(exception.TrusteeOrTrustToClusterFailed):
        _create(demo, cluster)
    assert not _domain_admin().users.list(domain=keystone.trustee_domain_id(),
                                          name=trust.trustee_username(cluster))


def test_recovered_create_reuses_trustee_and_trust(conf, demo, cluster):
    first = _create(demo, cluster)
    old_password = crypto.decrypt(first["trustee_password"])
    second = trust.create_trustee_and_trust(demo, cluster)
    assert second["trustee_user_id"] == first["trustee_user_id"]
    assert second["trust_id"] == first["trust_id"]
    new_password = crypto.decrypt(second["trustee_password"])
    assert new_password != old_password
    keystone.reset_cache()
    with pytest.raises(ks_exc.Unauthorized):
        keystone.trust_session(first["trustee_user_id"], old_password,
                               first["trust_id"]).get_token()
    assert keystone.trust_session(first["trustee_user_id"], new_password,
                                  first["trust_id"]).get_token()


def test_owner_deletes_both_and_a_second_delete_is_fine(conf, demo, cluster):
    _create(demo, cluster)
    assert trust.delete_trustee_and_trust(demo, cluster) is True
    assert not _user_exists(cluster.trustee_user_id)
    assert not _trust_exists(cluster.trust_id)
    assert trust.delete_trustee_and_trust(demo, cluster) is True


def test_service_deletes_through_the_trustee(conf, demo, cluster):
    _create(demo, cluster)
    assert trust.delete_trustee_and_trust(make_admin_context(), cluster) is True
    assert not _trust_exists(cluster.trust_id)
    assert not _user_exists(cluster.trustee_user_id)


def test_delete_when_the_trust_is_already_gone(conf, demo, cluster):
    _create(demo, cluster)
    keystone.client(keystone.session_for_context(demo)).trusts.delete(cluster.trust_id)
    assert trust.delete_trustee_and_trust(make_admin_context(), cluster) is True
    assert not _user_exists(cluster.trustee_user_id)


def test_delete_when_the_trustee_is_already_gone(conf, demo, cluster):
    _create(demo, cluster)
    _domain_admin().users.delete(cluster.trustee_user_id)
    assert trust.delete_trustee_and_trust(make_admin_context(), cluster) is True
    assert not _trust_exists(cluster.trust_id)


def test_rotated_trustee_password_replaces_the_old(conf, demo, cluster):
    _create(demo, cluster)
    old = crypto.decrypt(cluster.trustee_password)
    cluster.trustee_password = trust.rotate_trustee_password(cluster)
    keystone.reset_cache()
    assert trust.cluster_session(cluster).get_token()
    with pytest.raises(ks_exc.Unauthorized):
        keystone.trust_session(cluster.trustee_user_id, old, cluster.trust_id).get_token()


def test_a_trust_needs_the_requesters_credentials(conf, cluster):
    anonymous = RequestContext(user_id="someone", project_id=cluster.project_id)
    with pytest.raises(exception.TrusteeOrTrustToClusterFailed):
        trust.create_trustee_and_trust(anonymous, cluster)
    assert not _domain_admin().users.list(domain=keystone.trustee_domain_id(),
                                          name=trust.trustee_username(cluster))


def test_catalog_lookups(conf):
    assert keystone.url_for("orchestration").startswith("http://127.0.0.1:8004/")
    assert keystone.url_for("key-manager", region="RegionOne") == "http://127.0.0.1:9311"
    assert keystone.url_for("no-such-service") is None
    domain_id = keystone.trustee_domain_id()
    assert keystone.client(keystone.admin_session()).domains.get(domain_id).name == "magnum"


def test_a_bare_token_context_works(conf, demo):
    ctx = RequestContext(auth_token=demo.auth_token, project_id=demo.project_id)
    sess = keystone.session_for_context(ctx)
    assert sess.get_user_id() == demo.user_id


@pytest.fixture
def departed_creator(conf, demo):
    """A member of demo's project who creates a cluster's trust and then leaves Keystone."""
    from keystoneauth1 import session as ks_session
    from keystoneauth1.identity import v3

    admin_kc = keystone.client(keystone.admin_session())
    password = uuid.uuid4().hex
    user = admin_kc.users.create(name=f"leaver-{uuid.uuid4().hex[:8]}", password=password,
                                 domain="default", default_project=demo.project_id)
    member = admin_kc.roles.find(name="member")
    admin_kc.roles.grant(member, user=user, project=demo.project_id)
    auth = v3.Password(auth_url=keystone.auth_url(), user_id=user.id, password=password,
                       project_id=demo.project_id)
    sess = ks_session.Session(auth=auth)
    access = auth.get_access(sess)
    ctx = RequestContext(auth_token=access.auth_token, user_id=user.id,
                         project_id=demo.project_id, roles=access.role_names)
    yield ctx, lambda: admin_kc.users.delete(user.id)
    try:
        admin_kc.users.delete(user.id)
    except ks_exc.NotFound:
        pass


def test_rotation_after_the_creator_left(conf, demo, cluster, departed_creator):
    """A project member rotates: a second trustee and a trust from the rotator; the old
    pair keeps working until retired, then only the new one does."""
    creator, leave = departed_creator
    cluster.user_id = creator.user_id
    old = types.SimpleNamespace(**{**vars(cluster), **trust.create_trustee_and_trust(
        creator, cluster)})
    assert trust.cluster_session(old).get_token()
    leave()
    keystone.reset_cache()
    new_values = trust.create_rotated_trustee_and_trust(demo, cluster, "r1")
    assert new_values["trustee_username"] == f"{cluster.uuid}_{demo.project_id}_r1"
    assert new_values["trustee_user_id"] != old.trustee_user_id
    again = trust.create_rotated_trustee_and_trust(demo, cluster, "r1")
    assert (again["trustee_user_id"], again["trust_id"]) == (new_values["trustee_user_id"],
                                                             new_values["trust_id"])
    for key, value in again.items():
        setattr(cluster, key, value)
    sess = trust.cluster_session(cluster)
    access = sess.auth.get_access(sess)
    assert (access.user_id, access.project_id) == (demo.user_id, demo.project_id)
    assert _user_exists(old.trustee_user_id)
    trust.delete_trustee_and_trust(make_admin_context(), old)
    assert not _user_exists(old.trustee_user_id)
    keystone.reset_cache()
    assert trust.cluster_session(cluster).get_token()


def test_rotation_is_refused_from_another_project(conf, cluster):
    outsider = RequestContext(user_id="u", project_id="another", auth_token="t")
    with pytest.raises(exception.TrusteeOrTrustToClusterFailed):
        trust.create_rotated_trustee_and_trust(outsider, cluster, "r1")
