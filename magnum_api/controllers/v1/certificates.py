"""``/v1/certificates``: a cluster's CA, CSR signing and CA rotation (conductor calls)."""

from __future__ import annotations

import pecan
from cryptography import x509

from magnum_api import policy
from magnum_api.controllers import base
from magnum_api.controllers.v1.clusters import check_driver_supports
from magnum_api.middleware import auth_token
from magnum_api.schemas import misc, types
from magnum_common import conductor_api, crypto, exception
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters

TAG = "certificates"


def _node_cluster(cluster_ident: str):
    """The cluster whose node token the request presents; None without a node token.

    A node that holds no trust (``[trust] cluster_user_trust = false``) authenticates to
    these two routes with its cluster's node token alone; it opens that cluster's CA and
    CSR signing and nothing else, so no policy rule applies to it.
    """
    token = pecan.request.headers.get(auth_token.NODE_TOKEN_HEADER)
    if token is None:
        return None
    try:
        cluster = clusters.get_by_uuid(None, cluster_ident)
    except exception.ClusterNotFound:
        cluster = None
    if cluster is None or not crypto.check_node_token(cluster.uuid, token):
        raise exception.NotAuthorized()
    return cluster


class CertificatesController(base.RestController):

    @base.operation("GET", "/v1/certificates/{cluster_ident}", "Show a cluster's CA", TAG,
                    query={"ca_cert_type": types.string(
                        description="kubernetes (default), etcd or front_proxy.")},
                    responses={200: base.Response("The CA certificate.", misc.CA_VIEW)},
                    errors=(503,), policy=("certificate:get",))
    def get_one(self, cluster_ident, **_):
        params = base.query()
        ctx = base.context()
        cluster = _node_cluster(cluster_ident)
        if cluster is None:
            cluster = clusters.get(ctx, cluster_ident)
            policy.authorize(ctx, "certificate:get", cluster.as_dict())
        pem = conductor_api.ConductorAPI().get_ca_certificate(
            ctx, cluster.uuid, params.get("ca_cert_type"))
        return base.respond(misc.certificate_view(cluster.uuid, pem, base.base_url()))

    @base.operation("POST", "/v1/certificates", "Sign a certificate", TAG,
                    body=misc.CertificatePost,
                    responses={201: base.Response("The certificate.", misc.SIGNED_VIEW)},
                    errors=(404, 503), policy=("certificate:create",))
    def post(self, *remainder, **_):
        body = base.body()
        ctx = base.context()
        cluster = _node_cluster(body["cluster_uuid"])
        if cluster is None:
            try:
                cluster = clusters.get(ctx, body["cluster_uuid"])
            except exception.ClusterNotFound as err:
                raise exception.ClusterNotFound(cluster=body["cluster_uuid"],
                                                code=400) from err
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

    @base.operation("PATCH", "/v1/certificates/{cluster_ident}", "Rotate a cluster's CA",
                    TAG, description="No body.", responses={202: base.accepted_response(
                        "Accepted: the cluster's UUID.", types.UUID_BODY)},
                    errors=(409, 503), policy=("certificate:rotate_ca",))
    def patch(self, cluster_ident, **_):
        ctx = base.context()
        cluster = clusters.get(ctx, cluster_ident)
        policy.authorize(ctx, "certificate:rotate_ca", cluster.as_dict())
        template = cluster_templates.get_by_uuid(None, cluster.cluster_template_id)
        if template.tls_disabled:
            raise exception.NotSupported(
                "Rotating the CA certificate on a non-TLS cluster is not supported")
        check_driver_supports(template, "rotate_ca_certificate",
                              "Rotating the CA certificate is not supported by driver.")
        record = conductor_api.ConductorAPI().rotate_ca_certificate(ctx, cluster.uuid)
        return base.accepted({"uuid": cluster.uuid}, record)
