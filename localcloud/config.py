"""Writing ini files and the files localcloud hands to users (clouds.yaml, openrc, Magnum)."""

import os

from . import rest
from .layout import HOST, MAGNUM_URL, PORTS, REGION, load_secrets


def write_ini(path, sections, header=None):
    """sections: {section: {key: value}}; values rendered as oslo.config expects."""
    lines = []
    if header:
        lines += ["# " + h for h in header.splitlines()] + [""]
    for section, opts in sections.items():
        lines.append("[%s]" % section)
        for key, value in opts.items():
            if value is None:
                continue
            if isinstance(value, bool):
                value = "true" if value else "false"
            elif isinstance(value, (list, tuple)):
                value = ",".join(str(v) for v in value)
            lines.append("%s = %s" % (key, value))
        lines.append("")
    _atomic_write(path, "\n".join(lines))


def _atomic_write(path, text, mode=0o600):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def auth_url():
    return "http://%s:%d/v3" % (HOST, PORTS["keystone"])


def authtoken_section(username, password):
    """keystonemiddleware options for a service authenticating as `username` in `service`."""
    return {
        "www_authenticate_uri": auth_url(),
        "auth_url": auth_url(),
        "auth_type": "password",
        "username": username,
        "password": password,
        "project_name": "service",
        "user_domain_name": "Default",
        "project_domain_name": "Default",
        "region_name": REGION,
        "interface": "public",
        "service_token_roles": "service",
        "service_token_roles_required": True,
    }


def _yaml_scalar(v):
    return '"%s"' % str(v).replace("\\", "\\\\").replace('"', '\\"')


def write_user_files(layout, sec):
    """clouds.yaml, openrc files and the Magnum config fragment in the state directory."""
    clouds = {
        "localcloud-admin": ("admin", sec["admin"], "admin"),
        "localcloud-demo": ("demo", sec["demo"], "demo"),
    }
    lines = ["# Written by tools/localcloud; clouds of the local cloud.", "clouds:"]
    for cloud, (user, pw, project) in clouds.items():
        lines += [
            "  %s:" % cloud,
            "    auth:",
            "      auth_url: %s" % _yaml_scalar(auth_url()),
            "      username: %s" % _yaml_scalar(user),
            "      password: %s" % _yaml_scalar(pw),
            "      project_name: %s" % _yaml_scalar(project),
            "      user_domain_name: Default",
            "      project_domain_name: Default",
            "    region_name: %s" % REGION,
            "    interface: public",
            "    identity_api_version: 3",
        ]
    _atomic_write(layout.clouds_yaml, "\n".join(lines) + "\n")

    for user, pw, project in clouds.values():
        rc = [
            "# source me: OpenStack CLI environment for %s on the local cloud" % user,
            "export OS_AUTH_URL=%s" % auth_url(),
            "export OS_AUTH_TYPE=password",
            "export OS_IDENTITY_API_VERSION=3",
            "export OS_USERNAME=%s" % user,
            "export OS_PASSWORD=%s" % pw,
            "export OS_PROJECT_NAME=%s" % project,
            "export OS_USER_DOMAIN_NAME=Default",
            "export OS_PROJECT_DOMAIN_NAME=Default",
            "export OS_REGION_NAME=%s" % REGION,
            "export OS_INTERFACE=public",
            "unset OS_CLOUD",
        ]
        _atomic_write(os.path.join(layout.root, "%s-openrc" % user), "\n".join(rc) + "\n")

    magnum = {
        "keystone_authtoken": authtoken_section("magnum", sec["magnum"]),
        "keystone_auth": {
            "auth_type": "password",
            "auth_url": auth_url(),
            "username": "magnum",
            "password": sec["magnum"],
            "project_name": "service",
            "user_domain_name": "Default",
            "project_domain_name": "Default",
        },
        "trust": {
            "cluster_user_trust": True,
            "trustee_domain_name": "magnum",
            "trustee_domain_admin_name": "trustee_domain_admin",
            "trustee_domain_admin_domain_name": "magnum",
            "trustee_domain_admin_password": sec["trustee_domain_admin"],
            "trustee_keystone_interface": "public",
            "trustee_keystone_region_name": REGION,
        },
        "certificates": {"cert_manager_type": "barbican"},
        "heat_client": {"region_name": REGION, "endpoint_type": "publicURL"},
        "barbican_client": {"region_name": REGION, "endpoint_type": "publicURL"},
        "glance_client": {"region_name": REGION, "endpoint_type": "publicURL"},
        "nova_client": {"region_name": REGION, "endpoint_type": "publicURL"},
        "neutron_client": {"region_name": REGION, "endpoint_type": "publicURL"},
        "cinder_client": {"region_name": REGION, "endpoint_type": "publicURL"},
        "octavia_client": {"region_name": REGION, "endpoint_type": "publicURL"},
        # Every cluster address is in 127.0.0.0/8 and the node simulator serves the masters'
        # API there: the conductors' monitor polls it (often, so tests see health change fast)
        "kubernetes": {"health_polling_interval": 10},
        "cluster": {
            "etcd_discovery_service_endpoint_format":
                "http://%s:%d/new?size=%%(size)d" % (HOST, PORTS["etcd-discovery"]),
        },
    }
    write_ini(
        layout.magnum_conf,
        magnum,
        header=(
            "Written by tools/localcloud: include with\n"
            "  magnum-api --config-file magnum.conf --config-file %s\n"
            "Catalog: container-infra (service magnum) -> %s in %s.\n"
            "Not set here (the project's own): [DEFAULT] transport_url, [database], [api]."
            % (layout.magnum_conf, MAGNUM_URL, REGION)
        ),
    )


def login(layout, user):
    """(token, body) of the cloud's ``admin`` or ``demo`` user scoped to their own project;
    the body is Keystone's answer as keystonemiddleware hands it on (``{"token": {...}}``)."""
    token, body = rest.password_token(auth_url(), user, load_secrets(layout)[user], project=user)
    return token, {"token": body}
