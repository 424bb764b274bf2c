"""(a) Keystone: tokens, roles, catalog and the identities Magnum needs."""

from __future__ import annotations

import pytest

REGION = "RegionOne"


def _catalog(session):
    return session.auth.get_access(session).service_catalog.catalog


def _endpoints(catalog, service_type):
    for svc in catalog:
        if svc["type"] == service_type:
            return svc
    return None


def test_demo_token_and_catalog_has_container_infra(demo_session):
    access = demo_session.auth.get_access(demo_session)
    assert access.username == "demo"
    assert access.project_name == "demo"
    assert set(access.role_names) >= {"member", "reader", "heat_stack_owner", "creator",
                                      "load-balancer_member"}
    assert "admin" not in access.role_names
    magnum = _endpoints(_catalog(demo_session), "container-infra")
    assert magnum is not None, "container-infra missing from the catalog"
    assert magnum["name"] == "magnum"
    by_interface = {e["interface"]: e for e in magnum["endpoints"]}
    assert set(by_interface) == {"public", "internal", "admin"}
    for e in by_interface.values():
        assert e["url"] == "http://127.0.0.1:9511/v1"
        assert e["region_id"] == REGION or e.get("region") == REGION
    url = demo_session.get_endpoint(service_type="container-infra", interface="public",
                                    region_name=REGION)
    assert url == "http://127.0.0.1:9511/v1"


@pytest.mark.parametrize("stype, name", [
    ("identity", "keystone"), ("orchestration", "heat"), ("key-manager", "barbican"),
    ("image", "glance"),
])
def test_catalog_services_answer(demo_session, stype, name):
    svc = _endpoints(_catalog(demo_session), stype)
    assert svc is not None and svc["name"] == name
    url = demo_session.get_endpoint(service_type=stype, interface="public", region_name=REGION)
    resp = demo_session.get(url, authenticated=True, raise_exc=False)
    assert resp.status_code < 500, (url, resp.status_code, resp.text[:300])


def test_magnum_service_user_and_trustee_domain_admin(localcloud):
    from keystoneauth1 import session
    from keystoneauth1.identity import v3

    conf = (localcloud["state_dir"] / "magnum-localcloud.conf").read_text()
    values = {}
    section = None
    for line in conf.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]")
        elif "=" in line and not line.startswith("#"):
            k, v = (x.strip() for x in line.split("=", 1))
            values[(section, k)] = v
    auth_url = values[("keystone_authtoken", "auth_url")]
    svc = session.Session(auth=v3.Password(
        auth_url=auth_url, username=values[("keystone_auth", "username")],
        password=values[("keystone_auth", "password")], project_name="service",
        user_domain_name="Default", project_domain_name="Default"))
    roles = svc.auth.get_access(svc).role_names
    assert "admin" in roles and "service" in roles
    trustee = session.Session(auth=v3.Password(
        auth_url=auth_url, username=values[("trust", "trustee_domain_admin_name")],
        password=values[("trust", "trustee_domain_admin_password")],
        user_domain_name="magnum", domain_name=values[("trust", "trustee_domain_name")]))
    access = trustee.auth.get_access(trustee)
    assert access.domain_name == "magnum"
    assert "admin" in access.role_names
    assert values[("trust", "cluster_user_trust")] == "true"
    assert values[("certificates", "cert_manager_type")] == "barbican"


def test_heat_domain_and_roles(admin_session):
    from keystoneclient.v3 import client as ks_client

    ks = ks_client.Client(session=admin_session, interface="public")
    domains = {d.name: d for d in ks.domains.list()}
    assert {"heat", "magnum"} <= set(domains)
    roles = {r.name for r in ks.roles.list()}
    assert {"heat_stack_user", "heat_stack_owner", "creator", "load-balancer_member",
            "service", "member", "reader", "admin"} <= roles
    users = {u.name for u in ks.users.list(domain=domains["heat"].id)}
    assert "heat_domain_admin" in users
    service = ks.projects.list(name="service")[0]
    for name in ("heat", "barbican", "glance", "magnum"):
        user = ks.users.list(name=name, domain="default")[0]
        granted = {ks.roles.get(a.role["id"]).name
                   for a in ks.role_assignments.list(user=user, project=service)}
        assert {"admin", "service"} <= granted, (name, granted)
