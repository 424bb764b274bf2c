"""The request context: the wire form carries identity only, the record seals the token."""

from __future__ import annotations

import json

from oslo_config import cfg

from magnum_common import crypto
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
