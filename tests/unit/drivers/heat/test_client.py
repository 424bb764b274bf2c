"""The Heat client: the session's identity, ``[heat_client]``'s TLS, timeout, region and
interface, and requests tracked as Heat's (no request is sent here)."""

from __future__ import annotations

from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
from oslo_config import cfg

from drivers.heat import client
from magnum_common import outbound

CONF = cfg.CONF


def _session(**kw) -> ks_session.Session:
    return ks_session.Session(auth=token_endpoint.Token("http://127.0.0.1:8004/v1/p", "tok"),
                              **kw)


def test_the_client_takes_heat_client_settings():
    CONF.set_override("region_name", "RegionTwo", "heat_client")
    CONF.set_override("endpoint_type", "internalURL", "heat_client")
    CONF.set_override("timeout", 7.5, "heat_client")
    CONF.set_override("ca_file", "/etc/ssl/heat-ca.pem", "heat_client")
    heat = client.heat(_session(verify=True))
    http = heat.http_client
    assert http.session.timeout == 7.5 and http.session.verify == "/etc/ssl/heat-ca.pem"
    assert (http.interface, http.region_name, http.service_type) == (
        "internal", "RegionTwo", "orchestration")
    assert isinstance(http.session.session, outbound.TrackedSession)
    assert http.session.session.service == "Heat"


def test_insecure_and_client_certificates():
    CONF.set_override("insecure", True, "heat_client")
    CONF.set_override("cert_file", "/etc/magnum/heat.crt", "heat_client")
    CONF.set_override("key_file", "/etc/magnum/heat.key", "heat_client")
    http = client.heat(_session(verify="/etc/ssl/other.pem")).http_client
    assert http.session.verify is False
    assert http.session.cert == ("/etc/magnum/heat.crt", "/etc/magnum/heat.key")
    CONF.clear_override("insecure", "heat_client")
    CONF.clear_override("cert_file", "heat_client")
    inherited = client.heat(_session(verify="/etc/ssl/other.pem", cert="/c.pem")).http_client
    assert (inherited.session.verify, inherited.session.cert) == ("/etc/ssl/other.pem",
                                                                  "/c.pem")
