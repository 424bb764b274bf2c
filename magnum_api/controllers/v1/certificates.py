"""``/v1/certificates``: a cluster's CA, CSR signing and CA rotation (conductor calls)."""

from __future__ import annotations

from cryptography import x509

from magnum_api import policy
from magnum_api.controllers import base
from magnum_api.schemas import misc
from magnum_common import conductor_api, exception
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters


class CertificatesController(base.RestController):

    @base.expose()
    def get_one(self, cluster_ident, **_):
        params = base.check_query(("ca_cert_type",))
        ctx = base.context()
        cluster = clusters.get(ctx, cluster_ident)
        policy.authorize(ctx, "certificate:get", cluster.as_dict())
        pem = conductor_api.ConductorAPI().get_ca_certificate(
            ctx, cluster.uuid, params.get("ca_cert_type"))
        return base.respond(misc.certificate_view(cluster.uuid, pem, base.base_url()))

    @base.expose()
    def post(self, *remainder, **_):
        base.check_query()
        _, body = base.parse_object(misc.CertificatePost, "certificate")
        ctx = base.context()
        try:
            cluster = clusters.get(ctx, body["cluster_uuid"])
        except exception.ClusterNotFound as err:
            raise exception.ClusterNotFound(cluster=body["cluster_uuid"], code=400) from err
        policy.authorize(ctx, "certificate:create", cluster.as_dict())
        try:
            x509.load_pem_x509_csr(body["csr"].encode())
        except ValueError:
            raise exception.InvalidCsr(csr=body["csr"]) from None
        pem = conductor_api.ConductorAPI().sign_certificate(
            ctx, cluster.uuid, body["csr"], body.get("ca_cert_type"))
        extra = {"csr": body["csr"]}
        if body.get("ca_cert_type") is not None:
            extra["ca_cert_type"] = body["ca_cert_type"]
        return base.respond(misc.certificate_view(cluster.uuid, pem, base.base_url(), extra),
                            status=201)

    @base.expose()
    def patch(self, cluster_ident, **_):
        base.check_query()
        ctx = base.context()
        cluster = clusters.get(ctx, cluster_ident)
        policy.authorize(ctx, "certificate:rotate_ca", cluster.as_dict())
        template = cluster_templates.get_by_uuid(None, cluster.cluster_template_id)
        if template.tls_disabled:
            raise exception.NotSupported(
                "Rotating the CA certificate on a non-TLS cluster is not supported")
        conductor_api.ConductorAPI().rotate_ca_certificate(ctx, cluster.uuid)
        return base.respond({"uuid": cluster.uuid}, status=202)
