"""``GET /``: version discovery; any other path is served by v1."""

from __future__ import annotations

from magnum_api import microversion
from magnum_api.controllers import base
from magnum_api.controllers.v1 import V1Controller
from magnum_api.schemas import misc


class RootController(base.RestController):
    v1 = V1Controller()

    @base.operation("GET", "/", "Versions of the API", "versions", public=True,
                    responses={200: base.Response("The versions.", misc.VERSIONS_VIEW)})
    def get(self):
        return base.respond({
            "name": "OpenStack Magnum API",
            "description": "Magnum is an OpenStack project which aims to provide container "
                           "cluster management.",
            "versions": [{
                "id": "v1",
                "status": "CURRENT",
                "min_version": str(microversion.MIN_VERSION),
                "max_version": str(microversion.MAX_VERSION),
                "links": [{"href": f"{base.base_url()}/v1/", "rel": "self"}],
            }],
        })

    @base.expose()
    def _route(self, args, request=None):
        """``/clusters`` is served as ``/v1/clusters``."""
        if args and args[0] and args[0] != "v1":
            args = ["v1", *args]
        return super()._route(args, request)
