"""Every option magnum_conductor declares, for oslo-config-generator (magnum.conductor)."""

from __future__ import annotations

import itertools

from magnum_conductor import (
    cert_manager,
    conf,
    crypto,
    health,
    heat_retry,
    keystone,
    resources,
    trust,
    x509,
)
from magnum_conductor.handlers import cluster


def list_opts():
    groups: dict[str | None, list] = {}
    for group, opts in itertools.chain(
        conf.list_opts(), heat_retry.list_opts(), cluster.list_opts(), health.list_opts(),
        resources.list_opts(), crypto.list_opts(), x509.list_opts(), keystone.list_opts(),
        trust.list_opts(), cert_manager.list_opts(),
    ):
        bucket = groups.setdefault(group, [])
        bucket.extend(opt for opt in opts if opt.dest not in {o.dest for o in bucket})
    return sorted(groups.items(), key=lambda item: item[0] or "")
