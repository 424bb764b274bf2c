"""An ML2 mechanism driver that binds every port at once (localcloud full tier).

Every in-tree mechanism driver needs an L2 agent (or OVN) to bind a port; the local cloud runs
no agent and no VM, so this driver binds the first segment offered with VIF type ``ovs`` and
marks the port ACTIVE. It keeps no state, so any number of API workers may load it.

It also keeps every address the cloud hands out on this machine: a subnet outside
127.0.0.0/8 (Linux routes all of it to ``lo``) is refused with 400, so no fixed, floating or
VIP address can ever be one a poll would send off the machine.
"""

import ipaddress

from neutron_lib import constants, exceptions
from neutron_lib.api.definitions import portbindings
from neutron_lib.plugins.ml2 import api

LOCAL = ipaddress.ip_network("127.0.0.0/8")


def check_local(subnet):
    """Refuse a subnet whose CIDR is not inside 127.0.0.0/8."""
    net = ipaddress.ip_network(subnet["cidr"], strict=False)
    if net.version != 4 or not net.subnet_of(LOCAL):
        raise exceptions.InvalidInput(error_message=(
            "localcloud: subnet %s is outside 127.0.0.0/8; the local cloud hands out local "
            "addresses only (e.g. 127.11.0.0/24 with enable_dhcp false, or the seeded "
            "network 'private')" % subnet["cidr"]))


class LocalCloudMechanismDriver(api.MechanismDriver):
    def initialize(self):
        pass

    def create_subnet_precommit(self, context):
        check_local(context.current)

    def update_subnet_precommit(self, context):
        check_local(context.current)

    @property
    def connectivity(self):
        return portbindings.CONNECTIVITY_L2

    def bind_port(self, context):
        for segment in context.segments_to_bind:
            context.set_binding(
                segment[api.ID],
                portbindings.VIF_TYPE_OVS,
                {portbindings.CAP_PORT_FILTER: True, portbindings.OVS_HYBRID_PLUG: False},
                status=constants.PORT_STATUS_ACTIVE,
            )
            return
