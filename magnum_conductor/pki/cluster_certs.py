"""A cluster's certificates, end to end: what the conductor's handlers call.

The cluster row keeps four references into the configured certificate backend:
``ca_cert_ref`` (kubernetes CA), ``etcd_ca_cert_ref``, ``front_proxy_ca_cert_ref`` and
``magnum_cert_ref`` (Magnum's admin client certificate, signed by the kubernetes CA). All four
are created together and deleted together (upstream leaks the etcd and front-proxy CAs).

Certificates are stored on behalf of the cluster's owner (its project and user), whoever the
caller is, so the service's recovery paths and the owner's requests see the same rows in the
database backend. With Barbican the four bundles are stored concurrently (each is a few HTTP
requests); a failure removes whatever was stored.

Public API (``cluster`` is a DB row or anything with ``uuid``, ``name``, ``project_id``,
``user_id`` and the four ``*_ref`` attributes):
    ``REF_FIELDS``,
    ``create_for_cluster(context, cluster, on_stored=None) -> dict[str, str]`` (the four
    refs; returns the existing ones when the row already has all four, e.g. a recovered
    create; ``on_stored(field, ref)`` is told each ref before the store when the backend
    lets the caller choose it, else as soon as the backend returned it),
    ``delete_for_cluster(context, cluster) -> list[str]`` (refs that could not be deleted),
    ``delete_refs(cluster, refs) -> list[str]`` (the same for given refs of the cluster's),
    ``forget(cluster)`` (drop its cached client credentials),
    ``get_ca(context, cluster, ca_cert_type=None) -> str`` (CA PEM),
    ``sign(context, cluster, csr, ca_cert_type=None) -> str`` (certificate PEM),
    ``ca_private_key(context, cluster, ca_cert_type=None) -> str`` (decrypted PEM),
    ``rotate_ca(context, cluster, commit=None) -> dict[str, str]`` (new refs),
    ``client_credentials(context, cluster) -> (ca_pem, cert_pem, key_pem)``.
``ca_cert_type``: ``etcd``; ``front_proxy`` / ``front-proxy``; anything else or None is the
kubernetes CA (the API's contract).
"""

from __future__ import annotations

import collections
import concurrent.futures
import threading
from collections.abc import Callable
from typing import Any

from oslo_log import log as logging

from magnum_common import exception, outbound
from magnum_common.context import RequestContext
from magnum_conductor.pki import cert_manager, x509
from magnum_conductor.pki.cert_manager import barbican

LOG = logging.getLogger(__name__)

REF_FIELDS = ("ca_cert_ref", "etcd_ca_cert_ref", "front_proxy_ca_cert_ref", "magnum_cert_ref")

_CA_REF_BY_TYPE = {
    "etcd": "etcd_ca_cert_ref",
    "front_proxy": "front_proxy_ca_cert_ref",
    "front-proxy": "front_proxy_ca_cert_ref",
}

_CREDENTIALS_CACHE_MAX = 256
_credentials_lock = threading.Lock()
_credentials: collections.OrderedDict[tuple[str, str], tuple[str, str, str]] = (
    collections.OrderedDict()
)


def _owner_context(cluster: Any) -> RequestContext:
    return RequestContext(user_id=cluster.user_id, project_id=cluster.project_id)


def _ca_ref_field(ca_cert_type: str | None) -> str:
    return _CA_REF_BY_TYPE.get(ca_cert_type or "", "ca_cert_ref")


#: ref field -> what the bundle is; its name in the backend is "<cluster uuid> <this>".
_BUNDLE_NAMES = {"ca_cert_ref": "kubernetes CA", "etcd_ca_cert_ref": "etcd CA",
                 "front_proxy_ca_cert_ref": "front-proxy CA", "magnum_cert_ref": "Magnum client"}


def _bundles(cluster: Any, certs: x509.ClusterCertificates) -> dict[str, tuple[str, Any]]:
    """ref field -> (name in the backend, CertKeyPair)."""
    pairs = {"ca_cert_ref": certs.ca, "etcd_ca_cert_ref": certs.etcd_ca,
             "front_proxy_ca_cert_ref": certs.front_proxy_ca, "magnum_cert_ref": certs.admin}
    return {field: (f"{cluster.uuid} {label}", pairs[field])
            for field, label in _BUNDLE_NAMES.items()}


def stored_by_name(cluster: Any) -> list[str]:
    """What the backend holds under the names of ``cluster``'s bundles, saved on the row or
    not (see ``CertManager.find_named``)."""
    names = [f"{cluster.uuid} {label}" for label in _BUNDLE_NAMES.values()]
    return cert_manager.get_backend().find_named(_owner_context(cluster), names)


def _store_all(cluster: Any, certs: x509.ClusterCertificates,
               on_stored: Callable[[str, str], None] | None = None) -> dict[str, str]:
    backend = cert_manager.get_backend()
    owner = _owner_context(cluster)

    def store(item: tuple[str, tuple[str, x509.CertKeyPair]]) -> tuple[str, str]:
        field, (name, pair) = item
        chosen = backend.new_ref()
        if chosen is not None and on_stored is not None:
            on_stored(field, chosen)  # journaled before the store: nothing unknown is left
        ref = backend.store_cert(owner, pair.certificate, pair.private_key,
                                 passphrase=pair.passphrase, name=name, ref=chosen)
        if chosen is None and on_stored is not None:
            on_stored(field, ref)
        return field, ref

    items = list(_bundles(cluster, certs).items())
    refs: dict[str, str] = {}
    error: BaseException | None = None
    with _pool(backend, len(items)) as pool:
        for future in [pool.submit(outbound.for_caller(store), item) for item in items]:
            try:
                field, ref = future.result()
                refs[field] = ref
            except Exception as exc:
                error = error or exc
    if error is not None:
        _delete_all(backend, owner, list(refs.values()))
        raise error
    return refs


def _pool(backend: cert_manager.CertManager, jobs: int) -> concurrent.futures.Executor:
    """Threads for a remote backend (each bundle is several HTTP requests), else one."""
    remote = isinstance(backend, barbican.CertManager)
    return concurrent.futures.ThreadPoolExecutor(max_workers=jobs if remote else 1)


def _delete_all(backend: cert_manager.CertManager, context: RequestContext,
                refs: list[str]) -> list[str]:
    """Delete bundles (concurrently for a remote backend); the refs that failed."""
    with _pool(backend, max(len(refs), 1)) as pool:
        results = list(pool.map(lambda ref: _delete_quietly(backend, context, ref), refs))
    return [ref for ref, deleted in zip(refs, results, strict=True) if not deleted]


def _delete_quietly(backend: cert_manager.CertManager, context: RequestContext,
                    ref: str) -> bool:
    try:
        backend.delete_cert(context, ref)
    except Exception as exc:
        LOG.warning("Could not delete certificate %s: %s", ref, exc)
        return False
    return True


def create_for_cluster(context: RequestContext, cluster: Any,
                       on_stored: Callable[[str, str], None] | None = None) -> dict[str, str]:
    """Generate and store the cluster's CAs and client certificate; the four refs."""
    existing = {field: getattr(cluster, field, None) for field in REF_FIELDS}
    if all(existing.values()):
        return existing
    certs = x509.generate_cluster_certificates(cluster.name or cluster.uuid)
    return _store_all(cluster, certs, on_stored)


def forget(cluster: Any) -> None:
    """Drop the cached client credentials of ``cluster`` (its bundles are being deleted)."""
    _forget_credentials(_credentials_key(cluster))


def delete_refs(cluster: Any, refs: list[str]) -> list[str]:
    """Delete bundles of ``cluster``'s owner by reference; the refs that failed."""
    return _delete_all(cert_manager.get_backend(), _owner_context(cluster), refs)


def delete_for_cluster(context: RequestContext, cluster: Any) -> list[str]:
    """Delete all four bundles; returns the refs that failed (logged), [] when all gone."""
    _forget_credentials(_credentials_key(cluster))
    refs = [ref for ref in (getattr(cluster, f, None) for f in REF_FIELDS) if ref]
    return _delete_all(cert_manager.get_backend(), _owner_context(cluster), refs)


def _get(cluster: Any, field: str) -> cert_manager.Cert:
    ref = getattr(cluster, field, None)
    if not ref:
        raise exception.CertificateNotFound(certificate=f"{field} of cluster {cluster.uuid}")
    return cert_manager.get_backend().get_cert(_owner_context(cluster), ref)


def get_ca(context: RequestContext, cluster: Any, ca_cert_type: str | None = None) -> str:
    """The PEM of the cluster CA selected by ``ca_cert_type``."""
    return _get(cluster, _ca_ref_field(ca_cert_type)).certificate


def ca_private_key(context: RequestContext, cluster: Any,
                   ca_cert_type: str | None = None) -> str:
    """The selected CA's private key, decrypted (for drivers that hand it to nodes)."""
    return _get(cluster, _ca_ref_field(ca_cert_type)).decrypted_private_key


def sign(context: RequestContext, cluster: Any, csr: str | None,
         ca_cert_type: str | None = None) -> str:
    """Sign ``csr`` with the selected CA (``InvalidCsr`` / ``CertificateValidationError``)."""
    if not csr:
        raise exception.InvalidCsr(csr=csr)
    ca = _get(cluster, _ca_ref_field(ca_cert_type))
    return x509.sign_csr(ca.certificate, ca.private_key, ca.passphrase, csr)


def rotate_ca(context: RequestContext, cluster: Any,
              commit: Callable[[dict[str, str]], None] | None = None) -> dict[str, str]:
    """New CAs and client certificate; the old bundles are deleted once replaced.

    ``commit(new_refs)``, when given, should write the refs to the cluster row: the old
    bundles are deleted only after it returns, and the new ones are removed if it raises,
    so the row never points at deleted certificates.
    """
    old = [getattr(cluster, field, None) for field in REF_FIELDS]
    old_credentials = _credentials_key(cluster)
    new_refs = _store_all(cluster, x509.generate_cluster_certificates(
        cluster.name or cluster.uuid))
    backend = cert_manager.get_backend()
    owner = _owner_context(cluster)
    if commit is not None:
        try:
            commit(new_refs)
        except Exception:
            _delete_all(backend, owner, list(new_refs.values()))
            raise
    _forget_credentials(old_credentials)
    _delete_all(backend, owner, [ref for ref in old if ref])
    return new_refs


def client_credentials(context: RequestContext, cluster: Any) -> tuple[str, str, str]:
    """(CA PEM, client certificate PEM, client key PEM) to call the cluster's API.

    Cached per process by reference: a bundle behind a reference never changes, and the
    health monitor asks for them every polling interval.
    """
    key = _credentials_key(cluster)
    with _credentials_lock:
        cached = _credentials.get(key)
        if cached is not None:
            _credentials.move_to_end(key)
            return cached
    client = _get(cluster, "magnum_cert_ref")
    credentials = (get_ca(context, cluster), client.certificate, client.decrypted_private_key)
    with _credentials_lock:
        _credentials[key] = credentials
        while len(_credentials) > _CREDENTIALS_CACHE_MAX:
            _credentials.popitem(last=False)
    return credentials


def _credentials_key(cluster: Any) -> tuple[str, str]:
    return (getattr(cluster, "ca_cert_ref", None), getattr(cluster, "magnum_cert_ref", None))


def _forget_credentials(key: tuple[str, str]) -> None:
    with _credentials_lock:
        _credentials.pop(key, None)
