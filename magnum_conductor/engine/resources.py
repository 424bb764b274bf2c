"""ClusterResources for the drivers: a session, the catalog, the trustee, the CA key, keypairs.

Which identity a driver's calls use: the cluster's trust (trust-scoped session of the
trustee, impersonating the owner) as soon as the trust exists, else the requester's own
context (its token, recorded sealed with the operation). Acting through the trust is what
lets a replayed or resumed operation, or the status sync, run after the requester's token
has expired.

One exception, imposed by Heat: creating a stack makes Heat create a trust of its own from
the caller's token, which Keystone refuses for a trust-scoped token when the cluster's trust
forbids redelegation. Stack creates (``prefer_requester``) therefore use the requester's
token while it is valid, and the trust only when it has expired.

A cluster being deleted can always be deleted: when neither the trust (revoked, its trustor
gone) nor the requester's token authenticates, the delete acts as Magnum's service identity
(``[keystone_auth]``), which reaches the cluster's stacks by id as an admin.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from oslo_log import log as logging

from magnum_common import crypto, exception, utils
from magnum_common.context import RequestContext
from magnum_common.drivers.base import TrusteeCredentials
from magnum_conductor.conf import CONF
from magnum_conductor.identity import keystone, trust

LOG = logging.getLogger(__name__)


def requester_token_valid(context: RequestContext) -> bool:
    """False when the recorded expiry says the token has expired (or expires now)."""
    expires = context.token_expires_at
    if not expires:
        return bool(context.auth_token or context.auth_token_info)
    try:
        when = datetime.datetime.fromisoformat(expires.replace("Z", "+00:00"))
    except ValueError:
        return True
    return when > datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=30)


#: What a refused identity raises (not an unreachable Keystone: that is retried later).
_REFUSED = (ks_exc.Unauthorized, ks_exc.Forbidden, ks_exc.NotFound, ks_exc.MissingAuthPlugin,
            exception.AuthorizationFailure, exception.AuthenticationFailed,
            exception.DecryptionFailed)


class Resources:
    """ClusterResources for one operation on one cluster (drivers/base.py protocol)."""

    def __init__(self, context: RequestContext | None, cluster: Any,
                 prefer_requester: bool = False, service_fallback: bool = False,
                 guard: Callable[[], None] | None = None) -> None:
        """``service_fallback``: the work is a delete (see the module's docstring);
        ``guard``: raises when the work must stop (its lease was taken over), called each
        time a driver asks for the session, so a driver's retry after a superseding DELETE
        sends nothing more."""
        self.guard = guard
        self.cluster = cluster
        self.requester = context
        self.prefer_requester = prefer_requester
        self.service_fallback = service_fallback
        self._session: ks_session.Session | None = None
        #: Whether the calls act as the service (a delete whose owner's identity is gone).
        self.as_service = False
        #: Set by a create, which stores the certificates after its stack request: stores
        #: them now if need be, returns the cluster row that names the bundles.
        self.certificates_stored: Callable[[], Any] | None = None

    # --- identity --------------------------------------------------------------------
    @property
    def context(self) -> RequestContext:
        if self.has_trust and not self._use_requester():
            return trust.cluster_context(self.cluster)
        if self.requester is None:
            raise exception.AuthenticationFailed(cluster=self.cluster.uuid,
                                                 reason="no trust and no requester context")
        return self.requester

    @property
    def has_trust(self) -> bool:
        c = self.cluster
        return bool(c.trust_id and c.trustee_user_id and c.trustee_password)

    def _use_requester(self) -> bool:
        return (self.requester is not None and (not self.has_trust or self.prefer_requester)
                and requester_token_valid(self.requester))

    def session(self) -> ks_session.Session:
        """The trust-scoped session once the trust exists, else the requester's; for a
        delete, the service's when neither authenticates."""
        if self.guard is not None:
            self.guard()
        if self._session is None:
            if not self.service_fallback:
                self._session = self._owner_session()
            else:
                try:
                    session = self._owner_session()
                    session.get_token()
                except _REFUSED as exc:
                    LOG.warning("Cluster %s: %s; deleting it as the service", self.cluster.uuid,
                                exc)
                    session = keystone.admin_session()
                    self.as_service = True
                self._session = session
        return self._session

    def _owner_session(self) -> ks_session.Session:
        if self.has_trust and not self._use_requester():
            return trust.cluster_session(self.cluster)
        if self.requester is not None:
            return keystone.session_for_context(self.requester)
        raise exception.AuthenticationFailed(cluster=self.cluster.uuid,
                                             reason="no trust and no requester context")

    def check_auth(self) -> None:
        """Authenticate now, so an unusable identity fails with a clear reason early."""
        try:
            self.session().get_token()
        except (ks_exc.Unauthorized, ks_exc.Forbidden, ks_exc.NotFound,
                ks_exc.MissingAuthPlugin, exception.AuthorizationFailure) as exc:
            who = "the cluster's trust" if self.has_trust else "the requesting user's token"
            raise exception.AuthenticationFailed(
                cluster=self.cluster.uuid,
                reason=f"authentication with {who} failed ({exc})") from exc

    # --- ClusterResources --------------------------------------------------------------
    def url_for(self, service_type: str, interface: str = "public") -> str | None:
        try:
            return self.session().get_endpoint(service_type=service_type, interface=interface)
        except ks_exc.EndpointNotFound:
            return None

    def trustee(self) -> TrusteeCredentials:
        c = self.cluster
        return TrusteeCredentials(
            user_id=c.trustee_user_id,
            username=c.trustee_username,
            password=crypto.decrypt(c.trustee_password) if c.trustee_password else None,
            domain_id=keystone.trustee_domain_id(),
            trust_id=c.trust_id,
        )

    def ca_private_key(self) -> str | None:
        from magnum_conductor.pki import cluster_certs

        if self.certificates_stored is not None:
            self.cluster = self.certificates_stored()
        return cluster_certs.ca_private_key(self.context, self.cluster)

    def client_certificates(self) -> tuple[str, str, str] | None:
        """The admin client bundle for the health monitor; None before certificates exist."""
        if not (self.cluster.ca_cert_ref and self.cluster.magnum_cert_ref):
            return None
        from magnum_conductor.pki import cluster_certs

        return cluster_certs.client_credentials(self.context, self.cluster)

    def keypair_public_key(self, name: str | None) -> str | None:
        interface = utils.catalog_interface(CONF.nova_client.endpoint_type)
        if not name or self.url_for("compute", interface) is None:
            return None
        from novaclient import client as nova_client
        from novaclient import exceptions as nova_exc

        session = keystone.service_session(self.session(), "Nova", CONF.nova_client.timeout)
        nova = nova_client.Client(CONF.nova_client.api_version, session=session,
                                  endpoint_type=interface,
                                  region_name=CONF.nova_client.region_name)
        try:
            return nova.keypairs.get(name).public_key
        except nova_exc.NotFound:
            return None
