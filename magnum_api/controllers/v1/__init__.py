"""API v1: microversion negotiation, ``GET /v1`` and the resource controllers."""

from __future__ import annotations

import pecan

from magnum_api import errors, microversion, openapi
from magnum_api.controllers import base
from magnum_api.controllers.v1 import (
    certificates,
    cluster_templates,
    clusters,
    credentials,
    federations,
    magnum_services,
    quotas,
    stats,
)
from magnum_api.schemas import fields, misc

_RESOURCES = ("clustertemplates", "clusters", "quotas", "certificates", "mservices", "stats",
              "federations", "nodegroups", "credentials")
DOCS_URL = "http://docs.openstack.org/developer/magnum/dev/api-spec-v1.html"


class V1Controller(base.RestController):
    clustertemplates = cluster_templates.ClusterTemplatesController()
    clusters = clusters.ClustersController()
    quotas = quotas.QuotasController()
    certificates = certificates.CertificatesController()
    mservices = magnum_services.MagnumServicesController()
    stats = stats.StatsController()
    federations = federations.FederationsController()
    credentials = credentials.CredentialsController()

    @base.operation("GET", "/v1", "Version 1 and its resources", "versions", public=True,
                    responses={200: base.Response("Version 1.", misc.V1_VIEW)})
    def get(self):
        url = base.base_url()
        body = {
            "id": "v1",
            "media_types": [{"base": "application/json",
                             "type": "application/vnd.openstack.magnum.v1+json"}],
            "links": [{"href": f"{url}/v1/", "rel": "self"},
                      {"href": DOCS_URL, "rel": "describedby", "type": "text/html"}],
        }
        for name in _RESOURCES:
            if name == "nodegroups":
                path = "clusters/{cluster_id}/nodegroups"
            else:
                path = f"{name}/"
            body[name] = [{"href": f"{url}/v1/{path}", "rel": "self"},
                          {"href": f"{url}/{path}", "rel": "bookmark"}]
        return base.respond(body)

    @base.operation("GET", "/v1/openapi.json", "This API's OpenAPI 3.1 document", "versions",
                    public=True, responses={200: base.Response(
                        "The document.", fields.Any_(description="OpenAPI 3.1."))})
    def openapi(self):
        response = base.respond(None)
        response.body = openapi.served()
        return response

    @base.expose()
    def _route(self, args, request=None):
        request = request or pecan.request
        try:
            version = microversion.parse(request.headers.get(microversion.HEADER))
        except microversion.MalformedVersion:
            raise errors.RoutingError(406) from None
        except microversion.UnsupportedVersion as err:
            request.environ[microversion.ENVIRON_KEY] = err.version
            raise
        request.environ[microversion.ENVIRON_KEY] = version
        if [a for a in args if a] == ["openapi.json"] and request.method == "GET":
            return self.openapi, []
        return super()._route(args, request)
