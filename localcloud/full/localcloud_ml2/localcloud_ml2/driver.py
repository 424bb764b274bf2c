"""An ML2 mechanism driver that binds every port at once (localcloud full tier).

Every in-tree mechanism driver needs an L2 agent (or OVN) to bind a port; the local cloud runs
no agent and no VM, so this driver binds the first segment offered with VIF type ``ovs`` and
marks the port ACTIVE. It keeps no state, so any number of API workers may load it.
"""

from neutron_lib import constants
from neutron_lib.api.definitions import portbindings
from neutron_lib.plugins.ml2 import api


class LocalCloudMechanismDriver(api.MechanismDriver):
    def initialize(self):
        pass

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
