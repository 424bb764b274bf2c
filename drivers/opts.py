"""Every option the drivers declare, for oslo-config-generator (namespace magnum.drivers)."""

from __future__ import annotations

import itertools

from drivers import registry
from drivers.heat import monitor, parameters, stack_ops


def list_opts():
    groups: dict[str, list] = {}
    for group, opts in itertools.chain(
        registry.list_opts(), parameters.list_opts(), stack_ops.list_opts(),
        monitor.list_opts(),
    ):
        groups.setdefault(group, []).extend(opts)
    return sorted(groups.items())
