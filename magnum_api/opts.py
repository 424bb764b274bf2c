"""Every option magnum_api declares, for oslo-config-generator (namespace magnum.api)."""

from __future__ import annotations

import itertools


def list_opts():
    from magnum_api import app, cmd
    from magnum_api.controllers import base
    from magnum_api.middleware import access_log, noauth
    from magnum_api.schemas import base as schemas_base
    from magnum_api.schemas import types
    from magnum_api.validation import openstack, quota, template

    groups: dict[str | None, list] = {}
    for group, opts in itertools.chain(
        access_log.list_opts(), app.list_opts(), base.list_opts(), cmd.list_opts(),
        noauth.list_opts(), openstack.list_opts(), quota.list_opts(), template.list_opts(),
        schemas_base.list_opts(), types.list_opts(),
    ):
        groups.setdefault(group, []).extend(opts)
    return sorted(groups.items(), key=lambda item: item[0] or "")
