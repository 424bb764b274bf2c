"""Context round-trips, exception codes and messages, identifiers and generated secrets."""

from __future__ import annotations

import json
import string

from oslo_config import cfg

from magnum_common import crypto, exception, states, utils
from magnum_common.context import RequestContext, make_admin_context

CONF = cfg.CONF


def test_the_wire_form_carries_identity_and_no_credential():
    ctx = RequestContext(user_id="u", project_id="p", auth_token="tok-secret", roles=["member"],
                         trust_id="t", password="pw-secret", all_tenants=True,
                         user_name="demo", service_token="svc-secret",
                         auth_token_info={"token": {"catalog": [{"x": 1}]}})
    wire = ctx.to_dict()
    assert not {"auth_token", "auth_token_info", "password", "service_token",
                "trust_id"} & set(wire)
    assert "secret" not in json.dumps(wire) and "catalog" not in json.dumps(wire)
    again = RequestContext.from_dict(wire)
    assert (again.user_id, again.project_id, again.roles, again.all_tenants,
            again.user_name, again.request_id) == ("u", "p", ["member"], True, "demo",
                                                   ctx.request_id)
    assert again.auth_token is None and again.auth_token_info is None
    assert RequestContext.from_dict({**wire, "auth_token": "injected"}).auth_token is None


def test_the_record_seals_the_token_and_gives_it_back():
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    ctx = RequestContext(user_id="u", project_id="p", auth_token="tok-secret",
                         auth_token_info={"token": {"expires_at": "2030-01-01T00:00:00Z",
                                                    "catalog": [{"big": "x" * 10000}]}})
    record = ctx.record()
    text = json.dumps(record)
    assert "tok-secret" not in text and "catalog" not in text and len(text) < 2000
    again = RequestContext.from_record(record)
    assert (again.auth_token, again.token_expires_at, again.user_id) == (
        "tok-secret", "2030-01-01T00:00:00Z", "u")
    assert RequestContext.from_record({}) is None
    noauth = RequestContext(user_id="u", project_id="p").record()
    assert set(noauth) == {"context"}


def test_elevated_and_admin_contexts_see_all_projects():
    ctx = RequestContext(user_id="u", project_id="p", roles=["member"])
    elevated = ctx.elevated()
    assert elevated.is_admin and elevated.all_tenants and "admin" in elevated.roles
    assert not ctx.is_admin and ctx.roles == ["member"]
    assert make_admin_context().all_tenants


def test_exception_messages_and_codes():
    err = exception.ClusterNotFound(cluster="nope")
    assert (str(err), err.code) == ("Cluster nope could not be found.", 404)
    assert exception.ResourceLimitExceeded(msg="x").code == 403
    assert exception.NodeGroupInvalidInput(attr="a", nodegroup="n", expl="e").code == 409
    assert exception.InvalidParameterValue(err="bad value").code == 400
    assert exception.Invalid("custom text").format_message() == "custom text"
    assert exception.ServiceUnavailable(reason="broker").code == 503
    # A template missing its argument still produces a message rather than failing.
    assert str(exception.ClusterNotFound()) == "Cluster %(cluster)s could not be found."


def test_short_id_is_deterministic_for_a_uuid():
    uuid = "0b2b5e6c-6f0e-4f2e-9c56-3e7c4fd2a1b3"
    assert utils.short_id(uuid) == utils.short_id(uuid)
    assert len(utils.short_id(uuid)) == 12 and utils.short_id(uuid).isalnum()
    assert utils.short_id() != utils.short_id()


def test_generated_password_has_every_symbol_group(db):
    for _ in range(20):
        password = utils.generate_password()
        assert len(password) == 18
        assert any(c in "23456789" for c in password)
        assert any(c in string.ascii_uppercase for c in password)
        assert any(c in string.ascii_lowercase for c in password)


def test_generated_names_and_status_helpers():
    assert utils.generate_name().endswith("-cluster")
    assert states.action_of(states.UPDATE_IN_PROGRESS) == "UPDATE"
    assert states.is_in_progress(states.DELETE_IN_PROGRESS)
    assert not states.is_in_progress(states.CREATE_COMPLETE)
    assert states.UPDATE_FAILED in states.RESIZABLE and states.UPDATE_FAILED not in states.STABLE
