"""Which services each tier runs, in start order, and how each is probed.

Kept apart from the tiers' code (``cloud`` for lite, ``full``) so the command line, the lite
tier (which must know the full tier's services to tell its own processes from strangers') and
the full tier all read one list without importing each other.
"""

from .layout import HOST, PORTS


def url(svc, path=""):
    return "http://%s:%d%s" % (HOST, PORTS[svc], path)


def lite_services():
    """(name, probe url or None) in start order."""
    return [
        ("keystone", url("keystone", "/v3")),
        ("heat-api", url("heat-api", "/")),
        ("heat-engine", None),
        ("barbican", url("barbican", "/")),
        ("glance", url("glance", "/")),
        ("etcd-discovery", url("etcd-discovery", "/health")),
        ("nodesim", None),
    ]


def full_services():
    """Lite's services plus Placement, Neutron, Nova and Octavia; Heat and the helpers last."""
    lite = lite_services()
    extra = [
        ("placement", url("placement", "/")),
        ("neutron", url("neutron", "/")),
        ("nova-api", url("nova-api", "/")),
        ("nova-conductor", None),
        ("nova-scheduler", None),
        ("nova-compute", None),
        ("octavia-api", url("octavia-api", "/")),
        ("octavia-worker", None),
    ]
    head = [s for s in lite if s[0] in ("keystone", "barbican", "glance")]
    tail = [s for s in lite if s[0] not in ("keystone", "barbican", "glance")]
    return head + extra + tail


def services_for(tier):
    return full_services() if tier == "full" else lite_services()


def all_known_services():
    """Every service name any tier may have started (for `down`)."""
    names = []
    for name, _ in lite_services() + full_services():
        if name not in names:
            names.append(name)
    return names
