"""Keystone sessions for the conductor: as the requester, as the service, as the trustee admin.

Which identity the conductor uses for what:

* ``session_for_context(context)``: the requesting user (the token recorded sealed with the
  operation, re-authenticated here so the catalog comes from Keystone, not from a record),
  or the trustee with a trust (context carrying ``trust_id`` + password),
  or the service itself for admin contexts. Creating a trust needs this one.
* ``admin_session()``: Magnum's service user from ``[keystone_auth]`` (catalog look-ups,
  Barbican, deleting what a user left behind).
* ``domain_admin_session()``: the trustee domain's admin (``[trust] trustee_domain_admin_*``),
  the only identity allowed to create and delete trustee users.
* ``trust_session(user_id, password, trust_id)``: the trustee acting for the cluster owner
  through the trust (Heat and OpenStack calls after the owner's token expired).

Sessions are cached per process (admin, domain admin, and trust sessions keyed by trustee
and trust) so a token is fetched once and re-fetched only when it expires. ``reset_cache()``
drops them (tests, configuration reloads).

Options: ``[keystone_auth]`` (keystoneauth's auth and session options, auth_type defaulting
to ``password``) and the trustee-domain options of ``[trust]``; ``[keystone_authtoken]
www_authenticate_uri`` is a fallback for the Keystone URL when keystonemiddleware's options
are registered in the process.

Public API: ``auth_url()``, ``session_for_context(context)``, ``admin_session()``,
``domain_admin_session()``, ``trust_session(user_id, password, trust_id)``,
``service_session(session, service, timeout)``,
``client(session)`` (python-keystoneclient v3), ``trustee_domain_id()``,
``url_for(service_type, interface, region)``, ``forget_trust_session(user_id, trust_id)``,
``reset_cache()``.
"""

from __future__ import annotations

import collections
import hashlib
import threading

from keystoneauth1 import access
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import access as access_plugin
from keystoneauth1.identity import v3
from keystoneclient.v3 import client as kc_v3
from oslo_log import log as logging

from magnum_common import exception, outbound
from magnum_common.context import RequestContext
from magnum_conductor.conf import AUTH_GROUP, CONF, TRUST_GROUP

LOG = logging.getLogger(__name__)


_lock = threading.Lock()
_admin: ks_session.Session | None = None
_domain_admin: ks_session.Session | None = None
_trustee_domain_id: str | None = None
_TRUST_SESSIONS_MAX = 512
_trust_sessions: collections.OrderedDict[tuple[str, str, str], ks_session.Session] = (
    collections.OrderedDict()
)


def reset_cache() -> None:
    """Forget every cached session and the trustee domain id."""
    global _admin, _domain_admin, _trustee_domain_id
    with _lock:
        _admin = _domain_admin = _trustee_domain_id = None
        _trust_sessions.clear()


def auth_url() -> str:
    """Keystone's v3 URL: ``[keystone_auth] auth_url``, else ``www_authenticate_uri``."""
    _admin_auth_plugin_opts()
    url = getattr(CONF[AUTH_GROUP], "auth_url", None)
    if not url and "keystone_authtoken" in CONF:
        group = CONF.keystone_authtoken
        url = getattr(group, "www_authenticate_uri", None) or getattr(group, "auth_uri", None)
    if not url:
        raise exception.AuthorizationFailure(
            client="keystone", message="No Keystone URL: set [keystone_auth] auth_url."
        )
    url = url.rstrip("/")
    if url.endswith("/v2.0"):
        url = url[: -len("/v2.0")]
    return url if url.endswith("/v3") else url + "/v3"


def _admin_auth_plugin_opts() -> None:
    """Register the options of the configured ``[keystone_auth]`` plugin (auth_url...)."""
    try:
        plugin = ks_loading.get_plugin_loader(CONF[AUTH_GROUP].auth_type or "password")
    except ks_exc.NoMatchingPlugin:
        return
    opts = ks_loading.get_auth_plugin_conf_options(plugin)
    CONF.register_opts(opts, group=AUTH_GROUP)


def _session(auth: object) -> ks_session.Session:
    """A session with ``[keystone_auth]``'s TLS and timeout settings; its requests are
    tracked (``magnum_common.outbound``) so a stuck call names Keystone."""
    url = getattr(auth, "auth_url", None)
    if url:
        outbound.name_endpoint(url, "Keystone")
    return ks_loading.load_session_from_conf_options(CONF, AUTH_GROUP, auth=auth,
                                                     session=outbound.tracked("Keystone"))


def service_session(sess: ks_session.Session, service: str, timeout: float,
                    verify: bool | str | None = None,
                    cert: str | tuple[str, str] | None = None) -> ks_session.Session:
    """``sess``'s identity (same auth plugin, so the same cached token) for talking to
    another service, with that service's own timeout; its requests name ``service``. It
    shares ``sess``'s version-discovery cache too: a client that negotiates its API version
    (Barbican's) asks the service once per process, not once per client."""
    return ks_session.Session(auth=sess.auth,
                              verify=sess.verify if verify is None else verify,
                              cert=sess.cert if cert is None else cert, timeout=timeout,
                              session=outbound.tracked(service),
                              discovery_cache=getattr(sess, "_discovery_cache", None))


def admin_session() -> ks_session.Session:
    """Magnum's service identity from ``[keystone_auth]``."""
    global _admin
    with _lock:
        if _admin is None:
            if CONF[AUTH_GROUP].auth_section:
                # Plugin options live in another section: register auth_type there too.
                ks_loading.register_auth_conf_options(CONF, AUTH_GROUP)
            try:
                auth = ks_loading.load_auth_from_conf_options(CONF, AUTH_GROUP)
            except (ks_exc.MissingRequiredOptions, ks_exc.NoMatchingPlugin) as exc:
                raise exception.AuthorizationFailure(
                    client="keystone", message=f"[keystone_auth] is incomplete: {exc}"
                ) from exc
            if auth is None:
                raise exception.AuthorizationFailure(
                    client="keystone", message="[keystone_auth] auth_type is not set."
                )
            _admin = _session(auth)
        return _admin


def domain_admin_session() -> ks_session.Session:
    """The trustee domain admin, domain-scoped to the trustee domain."""
    global _domain_admin
    opts = CONF[TRUST_GROUP]
    with _lock:
        if _domain_admin is None:
            if not (opts.trustee_domain_admin_id or opts.trustee_domain_admin_name):
                raise exception.ConfigInvalid(
                    error_msg="[trust] trustee_domain_admin_id or trustee_domain_admin_name "
                    "must be set."
                )
            if not (opts.trustee_domain_id or opts.trustee_domain_name):
                raise exception.ConfigInvalid(
                    error_msg="[trust] trustee_domain_id or trustee_domain_name must be set."
                )
            auth = v3.Password(
                auth_url=auth_url(),
                user_id=opts.trustee_domain_admin_id,
                username=opts.trustee_domain_admin_name,
                user_domain_id=opts.trustee_domain_admin_domain_id or opts.trustee_domain_id,
                user_domain_name=(opts.trustee_domain_admin_domain_name
                                  or opts.trustee_domain_name),
                password=opts.trustee_domain_admin_password,
                domain_id=opts.trustee_domain_id,
                domain_name=None if opts.trustee_domain_id else opts.trustee_domain_name,
            )
            _domain_admin = _session(auth)
        return _domain_admin


def trustee_domain_id() -> str:
    """The trustee domain's id: configured, else the domain admin token's scope (cached)."""
    global _trustee_domain_id
    if CONF[TRUST_GROUP].trustee_domain_id:
        return CONF[TRUST_GROUP].trustee_domain_id
    if _trustee_domain_id is None:
        sess = domain_admin_session()
        domain_id = sess.auth.get_access(sess).domain_id
        if not domain_id:
            raise exception.AuthorizationFailure(
                client="keystone", message="the trustee domain admin token is not domain-scoped"
            )
        _trustee_domain_id = domain_id
    return _trustee_domain_id


def trust_session(user_id: str, password: str, trust_id: str) -> ks_session.Session:
    """The trustee's trust-scoped session (it acts as the trustor, impersonation on)."""
    key = (user_id, trust_id, hashlib.sha256(password.encode("utf-8")).hexdigest())
    with _lock:
        sess = _trust_sessions.get(key)
        if sess is not None:
            _trust_sessions.move_to_end(key)
            return sess
    sess = _session(v3.Password(auth_url=auth_url(), user_id=user_id, password=password,
                                trust_id=trust_id))
    with _lock:
        _trust_sessions[key] = sess
        while len(_trust_sessions) > _TRUST_SESSIONS_MAX:
            _trust_sessions.popitem(last=False)
    return sess


def forget_trust_session(user_id: str, trust_id: str) -> None:
    """Drop cached sessions of a trust that is being deleted."""
    with _lock:
        for key in [k for k in _trust_sessions if k[0] == user_id and k[1] == trust_id]:
            del _trust_sessions[key]


def session_for_context(context: RequestContext) -> ks_session.Session:
    """A session acting as the context's identity (see module docstring for the order)."""
    if context.auth_token_info:
        auth_ref = access.create(body=context.auth_token_info, auth_token=context.auth_token)
        return _session(access_plugin.AccessInfoPlugin(
            auth_ref, auth_url=context.auth_url or auth_url()))
    if context.auth_token:
        return _session(v3.Token(auth_url=context.auth_url or auth_url(),
                                 token=context.auth_token, project_id=context.project_id))
    if context.trust_id and context.user_id and context.password:
        return trust_session(context.user_id, context.password, context.trust_id)
    if context.is_admin:
        return admin_session()
    raise exception.AuthorizationFailure(
        client="keystone", message="the request context carries no usable credentials"
    )


def client(sess: ks_session.Session) -> kc_v3.Client:
    """python-keystoneclient v3 on ``sess``, talking to the Keystone we authenticate with."""
    return kc_v3.Client(session=sess, endpoint_override=auth_url())


def url_for(service_type: str, interface: str = "public",
            region: str | None = None) -> str | None:
    """A catalog endpoint seen by the service user, or None when the catalog lacks it."""
    sess = admin_session()
    try:
        return sess.get_endpoint(service_type=service_type, interface=interface,
                                 region_name=region)
    except ks_exc.EndpointNotFound:
        return None
