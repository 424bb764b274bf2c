"""An Octavia network driver whose VIPs are real Neutron ports (localcloud full tier).

Octavia's noop network driver invents a VIP (198.51.100.1 on a port Neutron has never seen),
so nothing can be attached to it: a floating IP on ``vip_port_id`` fails. This driver keeps
the noop behaviour for everything that concerns amphorae (none boot here) but

* allocates the VIP as a Neutron port on the requested network/subnet, with the requested
  address when one is given, owned by the load balancer's project (as the real driver does,
  so the project can put a floating IP on it), and deletes that port on deallocation;
* looks networks, subnets, ports and IP availability up in Neutron, so the API validates the
  VIP's network and subnet against real ones. An id Neutron does not know is one of the noop
  amphorae's invented ports or networks: for those the noop answer stands.

Lookups use Octavia's service credentials (``[service_auth]``, ``[neutron]``), as Octavia
does with ``[networking] allow_invisible_resource_usage = true``.
"""

from octavia.common import clients, constants, data_models
from octavia.network import base
from octavia.network.drivers.neutron import utils
from octavia.network.drivers.noop_driver.driver import NoopNetworkDriver
from openstack import exceptions as os_exc

NOT_FOUND = {"network": base.NetworkNotFound, "subnet": base.SubnetNotFound,
             "port": base.PortNotFound}


class LocalCloudNetworkDriver(NoopNetworkDriver):
    @property
    def neutron(self):
        return clients.NeutronAuth.get_neutron_client().network

    def _lookup(self, kind, ident, user_input):
        """The Neutron object as Octavia's model; for an id Neutron does not know, the noop
        driver's invention, unless the id came from a user (the API then answers 400)."""
        try:
            found = getattr(self.neutron, "get_" + kind)(ident)
        except os_exc.ResourceNotFound as e:
            if user_input or not ident:
                raise NOT_FOUND[kind]("%s not found (%s id: %s)." % (kind, kind, ident)) from e
            return getattr(super(), "get_" + kind)(ident)
        return getattr(utils, "convert_%s_to_model" % kind)(found)

    def get_network(self, network_id, context=None):
        return self._lookup("network", network_id, context is not None)

    def get_subnet(self, subnet_id, context=None):
        return self._lookup("subnet", subnet_id, context is not None)

    def get_port(self, port_id, context=None):
        return self._lookup("port", port_id, context is not None)

    def get_network_ip_availability(self, network):
        return utils.convert_network_ip_availability_to_model(
            self.neutron.get_network_ip_availability(network.id))

    def allocate_vip(self, loadbalancer):
        vip = loadbalancer.vip
        if vip.port_id:  # the user's own port, or an allocation being replayed
            try:
                port = self.neutron.get_port(vip.port_id)
                return self._vips(port, loadbalancer, vip.octavia_owned)
            except os_exc.ResourceNotFound:
                pass
        fixed_ips = [{k: v for k, v in (("subnet_id", ip.subnet_id),
                                        ("ip_address", ip.ip_address)) if v}
                     for ip in [vip, *loadbalancer.additional_vips]]
        try:
            port = self.neutron.create_port(
                name="octavia-lb-" + loadbalancer.id, network_id=vip.network_id,
                admin_state_up=False, device_id="lb-" + loadbalancer.id,
                device_owner=constants.OCTAVIA_OWNER, project_id=loadbalancer.project_id,
                fixed_ips=[ip for ip in fixed_ips if ip],
                **({"security_group_ids": vip.sg_ids} if vip.sg_ids else {}))
        except os_exc.ConflictException as e:
            raise base.VIPInUseException(str(e), orig_msg=e.details, orig_code=409) from e
        except os_exc.SDKException as e:
            raise base.AllocateVIPException(
                str(e), orig_msg=getattr(e, "details", None),
                orig_code=getattr(e, "status_code", None)) from e
        return self._vips(port, loadbalancer, True)

    @staticmethod
    def _vips(port, loadbalancer, octavia_owned):
        """The VIP (the address on the requested subnet) and the additional VIPs of a port."""
        ips = list(port.fixed_ips or [])
        primary = next((ip for ip in ips if ip["subnet_id"] == loadbalancer.vip.subnet_id),
                       ips[0] if ips else {})
        vip = data_models.Vip(
            ip_address=primary.get("ip_address"), subnet_id=primary.get("subnet_id"),
            network_id=port.network_id, port_id=port.id, load_balancer=loadbalancer,
            load_balancer_id=loadbalancer.id, octavia_owned=octavia_owned,
            sg_ids=loadbalancer.vip.sg_ids)
        additional = [data_models.AdditionalVip(
            ip_address=ip["ip_address"], subnet_id=ip["subnet_id"], network_id=port.network_id,
            port_id=port.id, load_balancer=loadbalancer, load_balancer_id=loadbalancer.id)
            for ip in ips if ip is not primary]
        return vip, additional

    def deallocate_vip(self, vip):
        """Delete the VIP port if Octavia made it (a user's own port stays)."""
        if not vip.port_id:
            return
        try:
            port = self.neutron.get_port(vip.port_id)
        except os_exc.ResourceNotFound:
            return
        if port.device_owner == constants.OCTAVIA_OWNER:
            try:
                self.neutron.delete_port(port.id, ignore_missing=True)
            except os_exc.SDKException as e:
                raise base.DeallocateVIPException(str(e)) from e
