"""The python-heatclient a Heat driver talks through, on a session the conductor hands over.

The session (keystoneauth1) decides who acts: the cluster's trust, the requester, or the
service; ``[heat_client]`` decides where and how (region, interface, TLS, timeout).
"""

from __future__ import annotations

from typing import Any

from heatclient import client as heat_client
from keystoneauth1 import session as ks_session

from drivers.heat.conf import CONF
from magnum_common import outbound
from magnum_common.utils import catalog_interface


def heat(session: ks_session.Session) -> Any:
    """A Heat client acting as ``session``'s identity, with ``[heat_client]``'s settings."""
    opts = CONF.heat_client
    verify: bool | str = False if opts.insecure else (opts.ca_file or session.verify)
    cert = (opts.cert_file, opts.key_file) if opts.cert_file else session.cert
    heat_session = ks_session.Session(auth=session.auth, verify=verify, cert=cert,
                                      timeout=opts.timeout, session=outbound.tracked("Heat"))
    return heat_client.Client(opts.api_version, session=heat_session,
                              service_type="orchestration",
                              interface=catalog_interface(opts.endpoint_type),
                              region_name=opts.region_name)
