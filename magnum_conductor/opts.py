"""Every option magnum_conductor declares, for oslo-config-generator (magnum.conductor)."""

from __future__ import annotations

import itertools

from magnum_conductor import conf
from magnum_conductor.engine import resources
from magnum_conductor.engine.handlers import cluster
from magnum_conductor.identity import keystone, trust
from magnum_conductor.pki import cert_manager, x509
from magnum_conductor.status import health


def list_opts():
    groups: dict[str | None, list] = {}
    for group, opts in itertools.chain(
        conf.list_opts(), cluster.list_opts(), health.list_opts(),
        resources.list_opts(), x509.list_opts(), keystone.list_opts(),
        trust.list_opts(), cert_manager.list_opts(),
    ):
        bucket = groups.setdefault(group, [])
        bucket.extend(opt for opt in opts if opt.dest not in {o.dest for o in bucket})
    return sorted(groups.items(), key=lambda item: item[0] or "")
