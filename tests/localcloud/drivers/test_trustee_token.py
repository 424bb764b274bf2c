"""The nodes' trustee token (``trustee_token`` of drivers/common/fragments/lib.sh) against the
local cloud's real Keystone and Glance: the etcd hand-over timer runs every 15 s, and logs
in to Keystone only when its kept token is for another trust, about to expire, or was refused.
"""

from __future__ import annotations

import os
import stat
import subprocess
import time
import uuid

import pytest

from drivers.heat import bootstrap


@pytest.fixture
def trust(admin_session, demo_session):
    """A trustee user and demo's trust to it, as a node holding the trust has them."""
    from keystoneclient import exceptions
    from keystoneclient.v3 import client

    admin = client.Client(session=admin_session, interface="public")
    demo = client.Client(session=demo_session, interface="public")
    password = uuid.uuid4().hex
    user = admin.users.create(name=f"trustee-{uuid.uuid4().hex[:8]}", domain="default",
                              password=password)
    made = demo.trusts.create(trustor_user=demo_session.get_user_id(), trustee_user=user.id,
                              project=demo_session.get_project_id(), role_names=["member"],
                              impersonation=True)
    yield {"TRUSTEE_USER_ID": user.id, "TRUSTEE_PASSWORD": password, "TRUST_ID": made.id,
           "AUTH_URL": demo_session.get_endpoint(service_type="identity", interface="public"),
           "GLANCE_URL": demo_session.get_endpoint(service_type="image", interface="public")}
    try:
        demo.trusts.delete(made)
    except exceptions.NotFound:
        pass
    admin.users.delete(user)


def _bash(script: str, env: dict[str, str], cache, check: bool = True):
    result = subprocess.run(
        ["bash", "-c", f". ./lib.sh; . ./40-etcd.sh; {script}"], cwd=bootstrap.FRAGMENTS_DIR,
        env={"PATH": "/usr/bin:/bin", "TRUSTEE_TOKEN_CACHE": str(cache), **env},
        capture_output=True, text=True, timeout=60)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def _token(env: dict[str, str], cache) -> str:
    return _bash("trustee_token", env, cache).stdout.strip()


def _kept(cache) -> tuple[str, int, str]:
    trust, expires, token = cache.read_text().split()
    return trust, int(expires), token


def test_the_token_is_kept_until_near_its_expiry(trust, admin_session, tmp_path):
    cache = tmp_path / "run" / "trustee-token"
    first = _token(trust, cache)
    shown = admin_session.get("/auth/tokens", headers={"X-Subject-Token": first},
                              endpoint_filter={"service_type": "identity",
                                               "interface": "public"}).json()["token"]
    assert shown["OS-TRUST:trust"]["id"] == trust["TRUST_ID"]
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o600
    kept_trust, expires, kept_token = _kept(cache)
    assert (kept_trust, kept_token) == (trust["TRUST_ID"], first)
    assert expires > time.time() + 600  # Keystone's expires_at, read from its answer
    # Keystone issues a new token on every login: the same one means no login.
    assert _token(trust, cache) == first
    # within the margin before its expiry: a new login, kept in its place
    cache.write_text(f"{trust['TRUST_ID']} {int(time.time()) + 60} {first}\n")
    second = _token(trust, cache)
    assert second != first and _kept(cache)[2] == second
    # a token kept for another trust (the credentials were rotated) is not used
    cache.write_text(f"{uuid.uuid4().hex} {expires} {second}\n")
    third = _token(trust, cache)
    assert third not in (first, second) and _kept(cache)[0] == trust["TRUST_ID"]


def test_a_refused_token_is_forgotten_and_the_next_call_logs_in(trust, tmp_path):
    cache = tmp_path / "trustee-token"
    cache.write_text(f"{trust['TRUST_ID']} {int(time.time()) + 3600} not-a-token\n")
    refused = _bash('glance_call "$GLANCE_URL/v2/images?limit=1"', trust, cache, check=False)
    assert refused.returncode != 0 and "401" in refused.stderr
    assert not cache.exists()
    listed = _bash('glance_call "$GLANCE_URL/v2/images?limit=1"', trust, cache)
    assert '"images"' in listed.stdout and _kept(cache)[2] != "not-a-token"
