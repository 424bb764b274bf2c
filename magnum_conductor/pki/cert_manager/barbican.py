"""Certificates in Barbican: one secret per part plus a certificate container.

Everything is owned by Magnum's service user (``[keystone_auth]``), so the conductor reaches
a cluster's certificates whoever asks and whenever. Payloads are stored as
``application/octet-stream`` (Barbican strips the trailing newline of ``text/plain``
payloads, which would alter PEM texts). ``get_cert`` only reads: it registers no consumer.
A store that fails midway deletes the secrets it already created.
"""

from __future__ import annotations

import concurrent.futures
from typing import Any

from barbicanclient import client as barbican_client
from barbicanclient import exceptions as barbican_exc
from keystoneauth1 import exceptions as ks_exc
from oslo_log import log as logging

from magnum_common import exception, outbound, utils
from magnum_common.context import RequestContext
from magnum_conductor.conf import CONF
from magnum_conductor.identity import keystone
from magnum_conductor.pki.cert_manager import base

LOG = logging.getLogger(__name__)

GROUP = "barbican_client"


_MISSING = (LookupError, ValueError, ks_exc.NotFound)
#: The parts of a certificate container; each is a secret named "<bundle name> <part>".
_PARTS = ("certificate", "private_key", "private_key_passphrase", "intermediates")


def _is_not_found(exc: Exception) -> bool:
    if isinstance(exc, UnicodeDecodeError):  # a corrupt payload is not a missing one
        return False
    return isinstance(exc, _MISSING) or getattr(exc, "status_code", None) == 404


def client() -> Any:
    """A Barbican client acting as Magnum's service user."""
    return barbican_client.Client(
        session=keystone.service_session(keystone.admin_session(), "Barbican",
                                         CONF[GROUP].timeout),
        region_name=CONF[GROUP].region_name,
        interface=utils.catalog_interface(CONF[GROUP].endpoint_type),
    )


def _text(secret: Any) -> str | None:
    if secret is None:
        return None
    payload = secret.payload
    return payload.decode("utf-8") if isinstance(payload, bytes) else payload


class CertManager(base.CertManager):
    """Barbican secrets and certificate containers."""

    def probe(self) -> None:
        """List one secret as the service user: Keystone, catalog and Barbican all answer."""
        client().secrets.list(limit=1)

    def store_cert(
        self,
        context: RequestContext,
        certificate: str,
        private_key: str,
        passphrase: str | None = None,
        intermediates: str | None = None,
        name: str = "Magnum certificate",
        ref: str | None = None,
    ) -> str:
        bc = client()
        parts = {part: text for part, text in zip(
            _PARTS, (certificate, private_key, passphrase, intermediates), strict=True)
            if text is not None}
        stored: dict[str, Any] = {}

        def store(part: str) -> None:
            secret = bc.secrets.create(name=f"{name} {part}",
                                       payload=parts[part].encode("utf-8"))
            secret.store()
            stored[part] = secret

        try:
            # The parts at once: each is one request, and a cluster stores twelve of them
            # on the way from the API's 202 to Heat.
            with concurrent.futures.ThreadPoolExecutor(len(parts)) as pool:
                for future in [pool.submit(outbound.for_caller(store), p) for p in parts]:
                    future.result()
            return bc.containers.create_certificate(name=name, **stored).store()
        except Exception:
            for secret in stored.values():
                try:
                    secret.delete()
                except Exception as exc:  # keep cleaning; the store error is what matters
                    LOG.warning("Could not remove secret %s after a failed store: %s",
                                secret.secret_ref, exc)
            raise

    def find_named(self, context: RequestContext, names: list[str]) -> list[str]:
        """Certificate containers named ``names``, then the secrets of those names' parts
        (a store cut short leaves secrets without their container)."""
        bc = client()
        containers = [c.container_ref for name in names
                      for c in bc.containers.list(name=name, limit=100)]
        secrets = [s.secret_ref for name in names for part in _PARTS
                   for s in bc.secrets.list(name=f"{name} {part}", limit=100)]
        return containers + secrets

    def get_cert(self, context: RequestContext, ref: str) -> base.Cert:
        try:
            container = client().containers.get(ref)
            return base.Cert(
                certificate=_text(container.certificate),
                private_key=_text(container.private_key),
                passphrase=_text(container.private_key_passphrase),
                intermediates=_text(container.intermediates),
            )
        except (barbican_exc.HTTPClientError, *_MISSING) as exc:
            if _is_not_found(exc):
                raise exception.CertificateNotFound(certificate=ref) from exc
            raise

    def delete_cert(self, context: RequestContext, ref: str) -> None:
        bc = client()
        if "/secrets/" in ref:  # a part that never made it into a container
            try:
                bc.secrets.delete(ref)
            except (barbican_exc.HTTPClientError, *_MISSING) as exc:
                if not _is_not_found(exc):
                    raise
            return
        try:
            container = bc.containers.get(ref)
        except (barbican_exc.HTTPClientError, *_MISSING) as exc:
            if _is_not_found(exc):
                return
            raise
        # Secrets first: a container left behind by a failure still leads to them on retry.
        for entity in [*container.secrets.values(), container]:
            try:
                entity.delete()
            except barbican_exc.HTTPClientError as exc:
                if not _is_not_found(exc):
                    raise
