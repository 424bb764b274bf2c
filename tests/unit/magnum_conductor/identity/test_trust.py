"""Trust flow guarantees that hold without Keystone: fail fast, never block a delete.

The Keystone round trips themselves run against the local cloud in
tests/localcloud/conductor/test_trust.py.
"""

from __future__ import annotations

import socket
import types

import pytest
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

from magnum_common import config as magnum_config
from magnum_common import crypto, exception
from magnum_common.context import RequestContext, make_admin_context
from magnum_conductor import conf
from magnum_conductor.identity import keystone, trust

CONF = cfg.CONF


@pytest.fixture(autouse=True)
def unreachable_keystone():
    """Keystone configured at a local port where nothing listens: refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    CONF.register_opts(ks_loading.get_auth_plugin_conf_options("password"), "keystone_auth")
    for name, value in (("auth_url", f"http://127.0.0.1:{port}/v3"), ("username", "magnum"),
                        ("password", "pw"), ("project_name", "service"),
                        ("user_domain_name", "Default"), ("project_domain_name", "Default")):
        CONF.set_override(name, value, "keystone_auth")
    for name, value in (("trustee_domain_name", "magnum"),
                        ("trustee_domain_admin_name", "tda"),
                        ("trustee_domain_admin_password", "pw")):
        CONF.set_override(name, value, "trust")
    keystone.reset_cache()
    yield
    keystone.reset_cache()


def _cluster(**kw) -> types.SimpleNamespace:
    values = dict(uuid="c0ffee00-0000-4000-8000-000000000001", project_id="p1", user_id="u1",
                  trustee_user_id=None, trustee_password=None, trust_id=None)
    values.update(kw)
    return types.SimpleNamespace(**values)


OWNER = RequestContext(user_id="u1", project_id="p1", auth_token="tok", roles=["member"])


def test_trustee_name_is_cluster_and_project():
    assert trust.trustee_username(_cluster()) == "c0ffee00-0000-4000-8000-000000000001_p1"


def test_missing_encryption_key_fails_before_any_keystone_call():
    with pytest.raises(exception.ConfigInvalid, match="encryption_key"):
        trust.create_trustee_and_trust(OWNER, _cluster())


def test_keystone_failures_are_reported_as_trust_failures_with_the_cause():
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    with pytest.raises(exception.TrusteeOrTrustToClusterFailed,
                       match="c0ffee00.*(?i:connect|refused)"):
        trust.create_trustee_and_trust(OWNER, _cluster())


def test_missing_trustee_domain_admin_is_a_config_error():
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    CONF.clear_override("trustee_domain_admin_name", "trust")
    with pytest.raises(exception.ConfigInvalid, match="trustee_domain_admin"):
        trust.create_trustee_and_trust(OWNER, _cluster())


def test_delete_of_a_cluster_without_trust_contacts_nobody():
    assert trust.delete_trustee_and_trust(OWNER, _cluster()) is True


def test_delete_never_raises_when_keystone_is_unreachable():
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    cluster = _cluster(trustee_user_id="tu", trustee_password=crypto.encrypt("pw"),
                       trust_id="t1")
    assert trust.delete_trustee_and_trust(OWNER, cluster) is False
    assert trust.delete_trustee_and_trust(make_admin_context(), cluster) is False


def test_delete_with_an_undecryptable_password_still_tries_the_service():
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    cluster = _cluster(trustee_user_id="tu", trustee_password="garbage", trust_id="t1")
    assert trust.delete_trustee_and_trust(make_admin_context(), cluster) is False


def test_cluster_context_carries_the_trust_and_decrypted_password():
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    cluster = _cluster(trustee_user_id="tu", trustee_password=crypto.encrypt("s3cret"),
                       trust_id="t1")
    ctx = trust.cluster_context(cluster)
    assert (ctx.user_id, ctx.project_id, ctx.trust_id, ctx.password) == (
        "tu", "p1", "t1", "s3cret")
    assert not ctx.is_admin
    assert keystone.session_for_context(ctx) is trust.cluster_session(cluster)


def test_options_are_listed():
    opts = dict(conf.list_opts())["trust"]
    assert {o.name for o in opts} >= {"trustee_keystone_interface",
                                      "trustee_keystone_region_name"}
    # cluster_user_trust and the delegated roles are magnum_common's: the API reads them too
    assert {o.name for o in dict(magnum_config.list_opts())["trust"]} >= {
        "cluster_user_trust", "roles", "cloud_provider_roles"}
    assert "roles" not in {o.name for o in opts}
