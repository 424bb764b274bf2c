"""Which Keystone identity a session gets, the Keystone URL, caching and config errors.

Building a session contacts nobody; behaviour against a real Keystone is covered by
tests/localcloud/conductor/test_trust.py.
"""

from __future__ import annotations

import pytest
from keystoneauth1 import loading as ks_loading
from keystoneauth1.identity import access as access_plugin
from keystoneauth1.identity import v3
from keystonemiddleware import opts as ks_opts
from oslo_config import cfg

from magnum_common import exception
from magnum_common.context import RequestContext, make_admin_context
from magnum_conductor import conf
from magnum_conductor.identity import keystone

CONF = cfg.CONF

TOKEN_INFO = {"token": {
    "methods": ["password"], "expires_at": "2099-01-01T00:00:00.000000Z",
    "user": {"id": "u1", "name": "demo", "domain": {"id": "default", "name": "Default"}},
    "project": {"id": "p1", "name": "demo", "domain": {"id": "default", "name": "Default"}},
    "roles": [{"id": "r1", "name": "member"}], "catalog": [],
}}


@pytest.fixture(autouse=True)
def _fresh():
    CONF.register_opts(ks_loading.get_auth_plugin_conf_options("password"), "keystone_auth")
    keystone.reset_cache()
    yield
    keystone.reset_cache()


def _configure_service(url: str = "http://keystone.test:5000/v3") -> None:
    for name, value in (("auth_url", url), ("username", "magnum"), ("password", "pw"),
                        ("project_name", "service"), ("user_domain_name", "Default"),
                        ("project_domain_name", "Default")):
        CONF.set_override(name, value, "keystone_auth")


@pytest.mark.parametrize(("configured", "expected"), [
    ("http://ks:5000/v3", "http://ks:5000/v3"),
    ("http://ks:5000/v3/", "http://ks:5000/v3"),
    ("http://ks:5000/v2.0", "http://ks:5000/v3"),
    ("http://ks/identity", "http://ks/identity/v3"),
])
def test_auth_url_is_normalised_to_v3(configured, expected):
    CONF.set_override("auth_url", configured, "keystone_auth")
    assert keystone.auth_url() == expected


def test_auth_url_falls_back_to_authtoken_then_fails_clearly():
    # keystonemiddleware's own options, as the API registers them (another test of this
    # process may have registered them already; registering the same objects is a no-op).
    for group, opts in ks_opts.list_auth_token_opts():
        CONF.register_opts(opts, group)
    with pytest.raises(exception.AuthorizationFailure, match="auth_url"):
        keystone.auth_url()
    CONF.set_override("www_authenticate_uri", "http://public-ks:5000", "keystone_authtoken")
    assert keystone.auth_url() == "http://public-ks:5000/v3"


def test_token_body_from_the_api_is_used_as_is():
    ctx = RequestContext(auth_token="tok", auth_token_info=TOKEN_INFO, user_id="u1",
                         project_id="p1", auth_url="http://ks:5000/v3")
    sess = keystone.session_for_context(ctx)
    assert isinstance(sess.auth, access_plugin.AccessInfoPlugin)
    assert sess.get_token() == "tok"  # no round trip: the body is already an auth
    assert sess.get_user_id() == "u1" and sess.get_project_id() == "p1"


def test_bare_token_becomes_a_token_plugin_scoped_to_the_project():
    _configure_service()
    sess = keystone.session_for_context(RequestContext(auth_token="tok", project_id="p1"))
    assert isinstance(sess.auth, v3.Token)
    assert sess.auth.auth_url == "http://keystone.test:5000/v3"
    assert sess.auth.project_id == "p1"


def test_trust_context_authenticates_as_trustee_with_the_trust():
    _configure_service()
    ctx = RequestContext(user_id="trustee", password="pw", trust_id="t1")
    sess = keystone.session_for_context(ctx)
    assert isinstance(sess.auth, v3.Password)
    assert sess.auth.trust_id == "t1"
    assert sess is keystone.trust_session("trustee", "pw", "t1")


def test_admin_context_uses_the_service_user_once():
    _configure_service()
    sess = keystone.session_for_context(make_admin_context())
    assert sess is keystone.admin_session()
    assert sess.auth.auth_url == "http://keystone.test:5000/v3"
    keystone.reset_cache()
    assert keystone.admin_session() is not sess


def test_context_without_credentials_is_refused():
    with pytest.raises(exception.AuthorizationFailure, match="no usable credentials"):
        keystone.session_for_context(RequestContext(user_id="u", project_id="p"))


def test_incomplete_service_credentials_are_reported():
    with pytest.raises(exception.AuthorizationFailure, match=r"\[keystone_auth\]"):
        keystone.admin_session()


def test_domain_admin_needs_its_options():
    _configure_service()
    with pytest.raises(exception.ConfigInvalid, match="trustee_domain_admin"):
        keystone.domain_admin_session()
    CONF.set_override("trustee_domain_admin_name", "tda", "trust")
    with pytest.raises(exception.ConfigInvalid, match="trustee_domain_id"):
        keystone.domain_admin_session()
    CONF.set_override("trustee_domain_name", "magnum", "trust")
    CONF.set_override("trustee_domain_admin_password", "pw", "trust")
    sess = keystone.domain_admin_session()
    assert sess.auth.auth_methods[0].user_domain_name == "magnum"
    assert sess.auth.domain_name == "magnum"
    assert keystone.domain_admin_session() is sess


def test_configured_trustee_domain_id_needs_no_keystone():
    CONF.set_override("trustee_domain_id", "d-123", "trust")
    assert keystone.trustee_domain_id() == "d-123"


def test_trust_sessions_are_cached_per_credentials_and_forgotten():
    _configure_service()
    first = keystone.trust_session("trustee", "pw", "t1")
    assert keystone.trust_session("trustee", "pw", "t1") is first
    assert keystone.trust_session("trustee", "new-pw", "t1") is not first
    keystone.forget_trust_session("trustee", "t1")
    assert keystone.trust_session("trustee", "pw", "t1") is not first


def test_options_are_listed():
    groups = dict(conf.list_opts())
    names = {opt.dest for opt in groups["keystone_auth"]}
    assert {"auth_type", "auth_url", "password", "cafile", "insecure"} <= names
    assert {opt.name for opt in groups["trust"]} >= {
        "trustee_domain_id", "trustee_domain_admin_password"}
