"""Every option magnum_common declares, for oslo-config-generator (namespace magnum.common)."""

from __future__ import annotations

import itertools

from magnum_common import conductor_api, config, rpc, utils
from magnum_common.db import services, sqlite


def list_opts():
    groups: dict[str | None, list] = {}
    for group, opts in itertools.chain(
        config.list_opts(), [(None, utils.password_opts)], services.list_opts(),
        rpc.list_opts(), conductor_api.list_opts(), sqlite.list_opts(),
    ):
        groups.setdefault(group, []).extend(opts)
    return sorted(groups.items(), key=lambda item: item[0] or "")
