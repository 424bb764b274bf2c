"""Existence checks against Glance, Nova, Neutron and Keystone, with the caller's token.

Every call to another OpenStack service made by the API lives here, so a deployment
without one of them switches its checks off in one place (``[api] validate_*``). Endpoints
come from the token's service catalog, or from ``[api] *_endpoint_override`` (which is also
how a noauth development setup points at its services). An enabled check whose service has
no known endpoint is skipped with a warning rather than failing every request.
"""

from __future__ import annotations

import logging
from typing import Any

from keystoneauth1 import access, session
from keystoneauth1 import exceptions as ks_exc

from magnum_api.conf import CONF
from magnum_common import exception, utils
from magnum_common.context import RequestContext

LOG = logging.getLogger(__name__)


_SESSION: session.Session | None = None


def _session() -> session.Session:
    global _SESSION
    if _SESSION is None:
        verify: bool | str = not CONF.api.os_insecure
        if CONF.api.os_cafile and verify:
            verify = CONF.api.os_cafile
        _SESSION = session.Session(verify=verify, timeout=CONF.api.os_timeout)
    return _SESSION


class Services:
    """The other services as seen by one request's caller."""

    def __init__(self, context: RequestContext) -> None:
        self.context = context
        self._images: dict[str, dict | None] = {}
        self._catalog = None
        if context.auth_token_info:
            try:
                self._catalog = access.create(body=context.auth_token_info).service_catalog
            except Exception:  # an unusual token body: fall back to the overrides
                self._catalog = None

    def endpoint(self, service_type: str, override: str | None) -> str | None:
        if override:
            return override.rstrip("/")
        if self._catalog is None:
            return None
        try:
            url = self._catalog.url_for(service_type=service_type,
                                        interface=CONF.api.os_interface,
                                        region_name=CONF.api.os_region_name)
        except ks_exc.EndpointNotFound:
            return None
        return url.rstrip("/") if url else None

    def _get(self, base: str, path: str, params: dict | None = None) -> tuple[int, Any]:
        headers = {"Accept": "application/json"}
        if self.context.auth_token:
            headers["X-Auth-Token"] = self.context.auth_token
        try:
            resp = _session().get(base + path, params=params, headers=headers,
                                  raise_exc=False, authenticated=False)
        except ks_exc.ClientException as err:
            raise exception.ServiceUnavailable(reason=f"{base} is unreachable: {err}") \
                from None
        try:
            body = resp.json() if resp.content else None
        except ValueError:
            body = None
        if resp.status_code >= 500:
            raise exception.ServiceUnavailable(
                reason=f"{base} answered {resp.status_code}")
        return resp.status_code, body

    def _checked(self, enabled: bool, service_type: str, override: str | None) -> str | None:
        """The service's endpoint when its check is on and its endpoint is known; else
        None, and the check is skipped (an unknown endpoint is logged)."""
        if not enabled:
            return None
        base = self.endpoint(service_type, override)
        if base is None:
            LOG.warning("No endpoint known for the %s service: its check is skipped",
                        service_type)
        return base

    # --- Glance ------------------------------------------------------------------------
    def image(self, ident: str) -> dict | None:
        """The image (id or unique name); None when the check is off or Glance unknown."""
        if ident not in self._images:
            self._images[ident] = self._find_image(ident)
        return self._images[ident]

    def _find_image(self, ident: str) -> dict | None:
        base = self._checked(CONF.api.validate_images, "image",
                             CONF.api.image_endpoint_override)
        if base is None:
            return None
        if utils.is_uuid_like(ident):
            status, body = self._get(base, f"/v2/images/{ident}")
            if status == 403:
                raise exception.ImageNotAuthorized(image_id=ident)
            if status == 200:
                return body
        status, body = self._get(base, "/v2/images", {"name": ident})
        if status == 403:
            raise exception.ImageNotAuthorized(image_id=ident)
        images = (body or {}).get("images", []) if status == 200 else []
        self._unique(images, "image", ident, exception.ImageNotFound, "image_id")
        return images[0]

    def os_distro(self, ident: str) -> tuple[str | None, str | None]:
        """(os_distro, magnum_driver) of an image; (None, None) when not checked."""
        image = self.image(ident)
        if image is None:
            return None, None
        distro = image.get("os_distro")
        if not distro:
            raise exception.OSDistroFieldNotFound(image_id=ident)
        return distro, image.get("magnum_driver")

    # --- Nova --------------------------------------------------------------------------
    def flavor(self, ident: str | None) -> dict | None:
        """The flavor (id or name); None when the check is off or Nova unknown."""
        base = self._checked(CONF.api.validate_flavors, "compute",
                             CONF.api.compute_endpoint_override)
        if base is None:
            return None
        if ident is None:
            raise exception.FlavorNotFound(flavor=ident)
        status, body = self._get(base, f"/flavors/{ident}")
        if status == 200 and body and "flavor" in body:
            return body["flavor"]
        status, body = self._get(base, "/flavors/detail", {"is_public": "None"})
        for flavor in (body or {}).get("flavors", []) if status == 200 else []:
            if flavor.get("name") == ident or flavor.get("id") == ident:
                return flavor
        raise exception.FlavorNotFound(flavor=ident)

    def keypair(self, name: str) -> None:
        base = self._checked(CONF.api.validate_keypairs, "compute",
                             CONF.api.compute_endpoint_override)
        if base is None:
            return
        status, _ = self._get(base, f"/os-keypairs/{name}")
        if status != 200:
            raise exception.KeyPairNotFound(keypair=name)

    def check_root_disk(self, flavor_ident: str | None, boot_volume_size: int) -> None:
        """A flavor without a root disk needs a boot volume (``boot_volume_size`` > 0)."""
        if boot_volume_size > 0 or flavor_ident is None:
            return
        flavor = self.flavor(flavor_ident)
        if flavor is not None and not flavor.get("disk"):
            raise exception.FlavorZeroRootVolumeNotSupported()

    # --- Neutron -----------------------------------------------------------------------
    def _network_lookup(self, collection: str, ident: str,
                        extra: dict | None = None) -> list[dict]:
        base = self._checked(True, "network", CONF.api.network_endpoint_override)
        if base is None:
            return [{"id": ident}]
        key = "id" if utils.is_uuid_like(ident) else "name"
        status, body = self._get(base, f"/v2.0/{collection}", {key: ident, **(extra or {})})
        found = (body or {}).get(collection, []) if status == 200 else []
        if not found and key == "id":
            status, body = self._get(base, f"/v2.0/{collection}",
                                     {"name": ident, **(extra or {})})
            found = (body or {}).get(collection, []) if status == 200 else []
        return found

    def _unique(self, found: list[dict], kind: str, ident: str,
                not_found: type[exception.MagnumException], arg: str) -> None:
        if not found:
            raise not_found(**{arg: ident})
        if len(found) > 1:
            raise exception.Conflict(
                f"Multiple {kind}s exist with same name {ident}. Please use the {kind} id "
                "instead.")

    def external_network(self, ident: str) -> None:
        if CONF.api.validate_networks:
            self._unique(self._network_lookup("networks", ident, {"router:external": "True"}),
                         "network", ident, exception.ExternalNetworkNotFound, "network")

    def fixed_network(self, ident: str) -> None:
        if CONF.api.validate_networks:
            self._unique(self._network_lookup("networks", ident), "network", ident,
                         exception.FixedNetworkNotFound, "network")

    def fixed_subnet(self, ident: str) -> None:
        if CONF.api.validate_networks:
            self._unique(self._network_lookup("subnets", ident), "subnet", ident,
                         exception.FixedSubnetNotFound, "subnet")

    # --- Keystone ----------------------------------------------------------------------
    def project(self, project_id: str) -> None:
        base = self._checked(CONF.api.validate_projects, "identity",
                             CONF.api.identity_endpoint_override)
        if base is None:
            return
        if not base.endswith("/v3"):
            base += "/v3"
        status, _ = self._get(base, f"/projects/{project_id}")
        if status == 404:
            raise exception.ProjectNotFound(name=project_id)
        if status != 200:
            raise exception.AuthorizationFailure(
                client="keystone", message=f"project lookup answered {status}")
