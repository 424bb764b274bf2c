"""Every option magnum_api declares, registered when this module is imported.

Modules read them through ``from magnum_api.conf import CONF``, so an option is registered
before it is read whichever module a process imports first. ``list_opts()`` is the
``magnum.api`` namespace of oslo-config-generator (setup.cfg); the order of each group's
options is the order of etc/magnum.conf.sample.
"""

from __future__ import annotations

from oslo_config import cfg

from magnum_api.schemas.fields import INT32_MAX

CONF = cfg.CONF

#: ``[DEFAULT]``: how requests are authenticated (app.py builds the pipeline by it).
auth_opts = [
    cfg.StrOpt("auth_strategy", default="keystone", choices=["keystone", "noauth"],
               help="keystone: validate Keystone tokens (keystonemiddleware). noauth: trust "
               "the X-User-Id / X-Project-Id / X-Roles headers; for development only."),
]

#: ``[api] access_log`` (middleware/access_log.py).
access_log_opts = [
    cfg.BoolOpt("access_log", default=True,
                help="Log one INFO line per API request (logger magnum_api.access): client "
                "address, request line, status, bytes sent, microversion and seconds, with "
                "the request id, user and project in the context prefix. Never a header."),
]

#: ``[api] api_paste_config`` (app.py).
app_opts = [
    cfg.StrOpt("api_paste_config", default="api-paste.ini",
               help="Paste configuration of the API pipeline, looked up in the configuration "
               "directories, then in the source tree's etc/."),
]

#: ``[api] max_limit``: paging of the collections (controllers/base.py).
paging_opts = [
    cfg.IntOpt("max_limit", default=1000, min=1,
               help="The maximum number of items returned in a single response from a "
               "collection resource."),
]

#: ``[api]``: the HTTP server of ``magnum-api`` (cmd.py).
server_opts = [
    cfg.HostAddressOpt("host", default="127.0.0.1", help="Address the API listens on."),
    cfg.PortOpt("port", default=9511, help="Port the API listens on."),
    cfg.IntOpt("workers", min=1,
               help="Worker processes of the API server; default: the number of CPUs."),
    cfg.IntOpt("threads", default=4, min=1,
               help="Threads per worker (each serves one connection at a time)."),
    cfg.IntOpt("keepalive", default=75, min=0,
               help="Seconds an idle HTTP keep-alive connection is kept open. Longer than "
               "clients poll (terraform: every 10-20 s) and than the idle timeout of a load "
               "balancer in front (typically 60 s), so that the client side closes first; "
               "a request that reaches a connection as it expires is still served."),
    cfg.IntOpt("worker_timeout", default=120, min=1,
               help="Seconds a worker may spend on one request before it is restarted."),
    cfg.BoolOpt("enabled_ssl", default=False, help="Serve HTTPS."),
    cfg.StrOpt("ssl_cert_file", help="Certificate (PEM) for HTTPS."),
    cfg.StrOpt("ssl_key_file", help="Private key (PEM) for HTTPS."),
]

#: ``[api]``: how the API reaches Glance, Nova, Neutron and Keystone to check a request
#: (validation/openstack.py).
openstack_opts = [
    cfg.BoolOpt("validate_images", default=True,
                help="Look templates' images up in Glance (existence, os_distro, "
                "magnum_driver)."),
    cfg.BoolOpt("validate_flavors", default=True,
                help="Look flavors up in Nova, including the root-disk check."),
    cfg.BoolOpt("validate_keypairs", default=True, help="Look keypairs up in Nova."),
    cfg.BoolOpt("validate_networks", default=True,
                help="Look external / fixed networks and subnets up in Neutron."),
    cfg.BoolOpt("validate_projects", default=True,
                help="Check in Keystone that a quota's project exists."),
    cfg.StrOpt("os_interface", default="public",
               help="Catalog interface used to reach the other services."),
    cfg.StrOpt("os_region_name", help="Catalog region used to reach the other services."),
    cfg.URIOpt("image_endpoint_override", help="Glance endpoint, instead of the catalog's."),
    cfg.URIOpt("compute_endpoint_override", help="Nova endpoint, instead of the catalog's."),
    cfg.URIOpt("network_endpoint_override",
               help="Neutron endpoint, instead of the catalog's."),
    cfg.URIOpt("identity_endpoint_override",
               help="Keystone endpoint, instead of the catalog's."),
    cfg.FloatOpt("os_timeout", default=10.0, min=0.1,
                 help="Seconds to wait for another service's answer."),
    cfg.BoolOpt("os_insecure", default=False,
                help="Skip TLS certificate checks when calling the other services."),
    cfg.StrOpt("os_cafile", help="CA bundle for TLS to the other services."),
]

#: ``[api]``: request limits the body schemas enforce (schemas/base.py, schemas/types.py).
body_opts = [
    cfg.IntOpt("max_request_body_size", default=114688, min=1024,
               help="Largest request body, in bytes, the API reads; a larger one is "
               "answered 413."),
]
limit_opts = [
    cfg.IntOpt("max_node_count", default=1000, min=1, max=INT32_MAX,
               help="Largest node_count, master_count, min_node_count and max_node_count a "
               "request may ask for (per node group)."),
]

#: ``[noauth]``: the identity of header-less requests under auth_strategy = noauth.
noauth_opts = [
    cfg.StrOpt("user_id",
               help="User id of requests that carry no X-User-Id header (noauth only). "
               "Unset: such requests have no user."),
    cfg.StrOpt("project_id",
               help="Project id of requests that carry no X-Project-Id header (noauth "
               "only). Unset: such requests have no project, and the policy refuses them."),
    cfg.ListOpt("roles", default=[],
                help="Roles of requests that carry no X-Roles header (noauth only). "
                "Empty: such requests have no role."),
]

#: ``[quotas]`` (validation/quota.py).
quota_opts = [
    cfg.IntOpt("max_clusters_per_project", default=20, min=0,
               help="Clusters a project may have when no quota row says otherwise."),
]

#: ``[cluster_template]``: network drivers a template may name (validation/template.py).
template_opts = [
    cfg.ListOpt("kubernetes_allowed_network_drivers", default=["flannel", "calico"],
                help="Network drivers templates may use; 'all' allows every supported one."),
    cfg.StrOpt("kubernetes_default_network_driver", default="flannel",
               help="Network driver of templates that name none."),
]

_GROUPS: list[tuple[str | None, list[cfg.Opt]]] = [
    (None, auth_opts),
    ("api", access_log_opts + app_opts + paging_opts + server_opts + openstack_opts
     + body_opts + limit_opts),
    ("cluster_template", template_opts),
    ("noauth", noauth_opts),
    ("quotas", quota_opts),
]

for _group, _opts in _GROUPS:
    CONF.register_opts(_opts, group=_group)


def list_opts() -> list[tuple[str | None, list[cfg.Opt]]]:
    """The ``magnum.api`` namespace of oslo-config-generator."""
    return list(_GROUPS)
