"""The API's policy enforcer: registered defaults, and policy file edits seen without a restart
(after the recheck interval, not on every request)."""

from __future__ import annotations

import os
import time

import pytest
from oslo_config import cfg

from magnum_api import policy
from magnum_common.context import RequestContext

CONF = cfg.CONF


@pytest.fixture
def enforcer_reset():
    policy.reset()
    yield
    policy.reset()


def _member() -> RequestContext:
    return RequestContext(user_id="u", project_id="p", roles=["member", "reader"])


def _write(path, body: str, stamp: float) -> None:
    path.write_text(body)
    os.utime(path, (stamp, stamp))


def test_defaults_apply_without_a_policy_file(enforcer_reset):
    ctx = _member()
    assert policy.check(ctx, "cluster:get_all")
    assert not policy.check(ctx, "cluster:get_all_all_projects")
    assert not policy.is_admin(ctx)
    assert policy.is_admin(RequestContext(user_id="a", project_id="p", roles=["admin"]))


def test_policy_file_edit_takes_effect_after_the_recheck_interval(
        enforcer_reset, tmp_path, monkeypatch):
    monkeypatch.setattr(policy, "RECHECK_SECONDS", 0.3)
    path = tmp_path / "policy.yaml"
    _write(path, '"cluster:get_all": "!"\n', time.time() - 100)
    CONF.set_override("policy_file", str(path), "oslo_policy")
    ctx = _member()
    assert not policy.check(ctx, "cluster:get_all")
    assert policy.check(ctx, "cluster:get")  # defaults fill the rules the file omits

    _write(path, '"cluster:get_all": "@"\n', time.time())
    assert not policy.check(ctx, "cluster:get_all")  # within the interval: not looked at
    time.sleep(0.35)
    assert policy.check(ctx, "cluster:get_all")


def test_rules_set_in_code_get_the_defaults_on_next_check(enforcer_reset):
    from oslo_policy import policy as oslo_policy

    ctx = _member()
    enforcer = policy.init()
    assert policy.check(ctx, "cluster:get")
    enforcer.set_rules(oslo_policy.Rules.from_dict({"cluster:get": "!"}), overwrite=True,
                       use_conf=True)
    assert not policy.check(ctx, "cluster:get")
    assert policy.check(ctx, "cluster:get_all")
