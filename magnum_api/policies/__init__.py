"""Every policy rule the API enforces, with its default (``oslo.policy.policies: magnum``)."""

from __future__ import annotations

import itertools

from magnum_api.policies import (
    base,
    certificate,
    cluster,
    cluster_template,
    federation,
    nodegroup,
    service,
)


def list_rules():
    return list(itertools.chain(
        base.list_rules(), certificate.list_rules(), cluster.list_rules(),
        cluster_template.list_rules(), federation.list_rules(), nodegroup.list_rules(),
        service.list_rules(),
    ))
