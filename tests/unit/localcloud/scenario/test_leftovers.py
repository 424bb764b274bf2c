"""How the main job's leftover check reads the local cloud's files (the lookups themselves
run against the cloud in the lives): the admin from clouds.yaml, Magnum's service user and
trustee domain from the Magnum fragment; and what a footprint says and when it is empty."""

from __future__ import annotations

import pytest
import yaml

from localcloud.scenario import leftovers

AUTH = {"auth_url": "http://127.0.0.1:5000/v3", "project_name": "admin",
        "user_domain_name": "Default", "project_domain_name": "Default"}


@pytest.fixture
def state(tmp_path, monkeypatch):
    monkeypatch.setenv("MAGNUM_LOCALCLOUD_DIR", str(tmp_path))
    (tmp_path / "clouds.yaml").write_text(yaml.safe_dump({"clouds": {"localcloud-admin": {
        "auth": {**AUTH, "username": "admin", "password": "admin-pw"}}}}))
    (tmp_path / "magnum-localcloud.conf").write_text(
        "[keystone_auth]\n" + "".join(f"{k} = {v}\n" for k, v in AUTH.items())
        + "username = magnum\npassword = pw%with%percent\n"
        "[trust]\ntrustee_domain_name = magnum\n")
    leftovers.admin_session.cache_clear()
    leftovers.magnum_session.cache_clear()
    yield tmp_path
    leftovers.admin_session.cache_clear()
    leftovers.magnum_session.cache_clear()


def test_the_admin_and_magnums_service_user_come_from_the_clouds_files(state):
    admin = leftovers.admin_session().auth
    assert (admin.auth_url, admin._username, admin._password) == (
        AUTH["auth_url"], "admin", "admin-pw")
    magnum = leftovers.magnum_session().auth
    assert (magnum._username, magnum._password) == ("magnum", "pw%with%percent")  # raw
    assert leftovers._trustee_domain() == "magnum"
    assert leftovers.admin_session() is leftovers.admin_session()  # built once


def test_a_footfoundsays_what_it_holds_and_is_empty_only_with_nothing():
    found = leftovers.Footprint("c-1", stack_ids={"s1", "s2"}, trusts={"t"},
                                 trustee_users={"u": "c-1_trustee"},
                                 secrets={"r1": "c-1 kubernetes CA certificate"})
    assert found.summary() == ("2 Heat stack(s), 1 trustee user(s), 1 trust(s), 1 Barbican "
                                "secret(s) in 0 container(s)")
    assert not found.empty()
    assert leftovers.Footprint("c-1", stack_prefix="c1-").empty()
    assert not leftovers.Footprint("c-1", containers={"ref": "c-1 etcd CA"}).empty()
