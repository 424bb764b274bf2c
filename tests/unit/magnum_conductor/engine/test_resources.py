"""Which identity a driver's calls use (no request is sent here): the requester while its
token is valid and no trust exists or a stack create prefers it, else the trust; the lease
guard before every session; the trustee's password decrypted only when handed over."""

from __future__ import annotations

import datetime

import pytest
from keystoneauth1.identity import v3
from oslo_config import cfg

from magnum_common import crypto, exception
from magnum_common.context import RequestContext
from magnum_common.db.clusters import clusters
from magnum_conductor.engine import resources
from magnum_conductor.engine.lease import LeaseLost
from magnum_conductor.pki import cluster_certs
from tests.unit.magnum_common.db.support import ALICE, make_cluster

CONF = cfg.CONF


def _at(seconds: int) -> str:
    when = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=seconds)
    return when.isoformat().replace("+00:00", "Z")


def test_a_token_is_valid_until_shortly_before_it_expires():
    ctx = RequestContext(auth_token="t")
    assert resources.requester_token_valid(ctx)
    assert not resources.requester_token_valid(RequestContext())
    assert resources.requester_token_valid(RequestContext(auth_token="t",
                                                          token_expires_at=_at(3600)))
    assert not resources.requester_token_valid(RequestContext(auth_token="t",
                                                              token_expires_at=_at(10)))
    assert resources.requester_token_valid(RequestContext(auth_token="t",
                                                          token_expires_at="unreadable"))


@pytest.fixture
def row(db):
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    return make_cluster(ALICE)


def test_the_requester_until_a_trust_exists(row):
    from magnum_conductor.identity import keystone

    keystone._admin_auth_plugin_opts()  # registers [keystone_auth] auth_url
    CONF.set_override("auth_url", "http://127.0.0.1:5000/v3", "keystone_auth")
    requester = RequestContext(user_id="alice", project_id="p1", auth_token="tok",
                               token_expires_at=_at(3600))
    res = resources.Resources(requester, row)
    assert not res.has_trust and res.context is requester
    session = res.session()
    assert isinstance(session.auth, v3.Token) and res.session() is session
    assert session.auth.auth_url == "http://127.0.0.1:5000/v3"  # built, nothing sent
    with pytest.raises(exception.AuthenticationFailed, match="no trust and no requester"):
        resources.Resources(None, row).context  # noqa: B018 - the property raises
    clusters.update(None, row.uuid, {"trust_id": "trust-1", "trustee_user_id": "tu",
                                     "trustee_username": "trustee",
                                     "trustee_password": crypto.encrypt("pw")})
    trusted = clusters.get_by_uuid(None, row.uuid)
    assert resources.Resources(requester, trusted).has_trust
    assert resources.Resources(requester, trusted, prefer_requester=True).context is requester
    expired = RequestContext(user_id="alice", project_id="p1", auth_token="tok",
                             token_expires_at=_at(-60))
    assert resources.Resources(expired, trusted, prefer_requester=True).context is not expired


def test_the_guard_runs_before_any_session_and_the_trustee_is_decrypted(row):
    def taken_over():
        raise LeaseLost(cluster=row.uuid)

    requester = RequestContext(user_id="alice", project_id="p1", auth_token="tok")
    with pytest.raises(LeaseLost):
        resources.Resources(requester, row, guard=taken_over).session()
    clusters.update(None, row.uuid, {"trust_id": "trust-1", "trustee_user_id": "tu",
                                     "trustee_username": "trustee",
                                     "trustee_password": crypto.encrypt("pw")})
    CONF.set_override("trustee_domain_id", "dom-1", "trust")
    trustee = resources.Resources(requester, clusters.get_by_uuid(None, row.uuid)).trustee()
    assert (trustee.password, trustee.domain_id, trustee.trust_id) == ("pw", "dom-1",
                                                                       "trust-1")
    assert resources.Resources(requester, row).client_certificates() is None


def test_the_ca_key_is_read_once_the_certificates_are_stored(row):
    """A create sends its stack before storing the certificates; a driver that puts the CA
    key in the stack has them stored first, through the create's hook."""
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    CONF.set_override("cert_manager_type", "x509keypair", "certificates")
    res = resources.Resources(ALICE, row)
    with pytest.raises(exception.CertificateNotFound):
        res.ca_private_key()  # nothing stored, no hook: the row names no bundle
    calls = []

    def stored():
        calls.append(1)
        clusters.update(None, row.uuid, cluster_certs.create_for_cluster(ALICE, row))
        return clusters.get_by_uuid(None, row.uuid)

    res.certificates_stored = stored
    key = res.ca_private_key()
    assert calls == [1] and key.startswith("-----BEGIN PRIVATE KEY")
    assert res.cluster.ca_cert_ref and key == cluster_certs.ca_private_key(ALICE, res.cluster)
