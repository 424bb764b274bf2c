"""Heat plugin for the localcloud lite tier (loaded through heat.conf [DEFAULT] plugin_dirs).

1. Custom constraints of services that do not run here (nova.*, neutron.*, cinder.*, octavia.*)
   are re-registered so that they accept any value except one starting with ``missing-``,
   which raises EntityNotFound exactly like the real constraint (the stack is refused with 400).
2. ``LocalCloud::Fake::Resource``: the engine of the facade provider templates that stand in for
   OS::Nova::Server, OS::Neutron::Port, ... (see gen_facades.py). It computes plausible
   attribute values, allocates unique fixed (127.10.x.y) and floating (127.24.x.y) addresses from
   a small file-locked IPAM, and implements the server failure switch. Every address it hands
   out is in 127.0.0.0/8 (Linux routes all of it to ``lo``), so whatever the node simulator
   serves there, and whatever polls it, stays on this machine; a subnet outside 127.0.0.0/8 is
   refused, as on the full tier.
"""

import fcntl
import hashlib
import ipaddress
import json
import os
import time
import uuid

from heat.common import exception
from heat.engine import attributes, constraints, properties, resource

# ----------------------------------------------------------------------------- constraints

# The full tier runs real Nova, Neutron and Octavia and sets LOCALCLOUD_STUBBED_SERVICES=cinder.
STUBBED_PREFIXES = tuple(
    os.environ.get("LOCALCLOUD_STUBBED_SERVICES", "nova,neutron,cinder,octavia").split(","))

_ENTITY = {
    "nova.flavor": "Flavor",
    "nova.keypair": "Key",
    "nova.server": "Server",
    "nova.host": "Host",
    "nova.network": "Network",
    "neutron.network": "Network",
    "neutron.subnet": "Subnet",
    "neutron.port": "Port",
    "neutron.router": "Router",
    "neutron.security_group": "Security Group",
    "cinder.vtype": "Volume Type",
    "cinder.volume_type": "Volume Type",
    "cinder.volume": "Volume",
    "cinder.snapshot": "Volume Snapshot",
    "cinder.backup": "Volume Backup",
}

# Names the brief asks for even if a future Heat drops their entry points.
_ALWAYS = [
    "nova.flavor", "nova.keypair", "nova.server", "neutron.network", "neutron.subnet",
    "neutron.port", "neutron.router", "neutron.security_group", "cinder.vtype",
    "cinder.volume_type", "cinder.volume", "octavia.loadbalancer", "octavia.listener",
    "octavia.pool", "octavia.flavor",
]


class PermissiveConstraint(constraints.BaseCustomConstraint):
    """Accepts anything but values starting with 'missing-' (those are 'not found')."""

    expected_exceptions = (exception.EntityNotFound,)
    constraint_name = None

    def validate_with_client(self, client, value):
        if str(value).startswith("missing-"):
            entity = _ENTITY.get(self.constraint_name) or (
                self.constraint_name.split(".")[-1].replace("_", " ").title())
            raise exception.EntityNotFound(entity=entity, name=value)


def _stubbed_constraint_names():
    names = {n for n in _ALWAYS if n.split(".")[0] in STUBBED_PREFIXES}
    try:
        from importlib.metadata import entry_points

        for ep in entry_points(group="heat.constraints"):
            if ep.name.split(".")[0] in STUBBED_PREFIXES:
                names.add(ep.name)
    except Exception:  # pragma: no cover - metadata trouble only narrows the set
        pass
    return sorted(names)


def constraint_mapping():
    mapping = {}
    for name in _stubbed_constraint_names():
        cls_name = "LocalCloud_" + name.replace(".", "_").replace(":", "_")
        mapping[name] = type(cls_name, (PermissiveConstraint,), {"constraint_name": name})
    return mapping


# ----------------------------------------------------------------------------- IPAM

POOLS = {
    # name: (network, first host offset); fixed and VIP addresses share "fixed"
    "fixed": (ipaddress.ip_network("127.10.0.0/16"), 3),  # 127.10.0.3 on
    "floating": (ipaddress.ip_network("127.24.0.0/16"), 4 * 256 + 10),  # 127.24.4.10 on
}
LOCAL = ipaddress.ip_network("127.0.0.0/8")


def _ipam_path():
    path = os.environ.get("LOCALCLOUD_IPAM_FILE") or "/tmp/localcloud-heat-ipam.json"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


class _Ipam:
    """Allocations {"<owner>/<pool>": {"ip", "pool", "network", "mac"}} in a locked JSON file."""

    def __enter__(self):
        self.path = _ipam_path()
        self._lock = open(self.path + ".lock", "a")
        fcntl.flock(self._lock, fcntl.LOCK_EX)
        try:
            with open(self.path) as f:
                self.data = json.load(f)
        except (OSError, ValueError):
            self.data = {}
        return self

    def __exit__(self, *exc):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f, indent=0, sort_keys=True)
        os.replace(tmp, self.path)
        fcntl.flock(self._lock, fcntl.LOCK_UN)
        self._lock.close()

    def lookup(self, owner, pool="fixed"):
        return self.data.get("%s/%s" % (owner, pool))

    def allocate(self, owner, pool="fixed", requested=None, network=None):
        key = "%s/%s" % (owner, pool)
        if key in self.data:
            return self.data[key]
        used = {v["ip"] for v in self.data.values()}
        if requested:
            ip = str(requested)
            try:
                addr = ipaddress.ip_address(ip)
            except ValueError:
                raise exception.Error("localcloud IPAM: %r is not an address" % ip) from None
            if addr not in LOCAL or str(addr) == "127.0.0.1":
                raise exception.Error(
                    "localcloud IPAM: %s is not a local address the cloud may hand out "
                    "(127.0.0.0/8 but 127.0.0.1, where the services listen)" % ip)
        else:
            net, offset = POOLS[pool]
            ip = None
            for i in range(offset, net.num_addresses - 1):
                cand = net.network_address + i
                if int(cand) % 256 in (0, 255):
                    continue
                if str(cand) not in used:
                    ip = str(cand)
                    break
            if ip is None:
                raise exception.Error("localcloud IPAM: pool %s exhausted" % pool)
        entry = {"ip": ip, "pool": pool, "network": network, "mac": _mac(owner)}
        self.data[key] = entry
        return entry

    def release(self, owner):
        for key in [k for k in self.data if k.startswith((owner + "/", owner + "#"))]:
            del self.data[key]


def _servers_dir():
    path = os.environ.get("LOCALCLOUD_SERVERS_DIR") or "/tmp/localcloud-heat-servers"
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def store_user_data(server_id, user_data):
    """Keep (or, with None, forget) a server's user data where only the cloud reads it.

    Real Nova shows user data to an admin only (microversion 2.3, OS-EXT-SRV-ATTR:user_data);
    here the node simulator reads ``<servers dir>/<server id>.user_data`` instead: an attribute
    would show the node's credentials to the stack owner.
    """
    path = os.path.join(_servers_dir(), "%s.user_data" % server_id)
    if user_data is None:
        try:
            os.remove(path)
        except OSError:
            pass
        return
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(str(user_data))
    os.replace(tmp, path)


def _mac(seed):
    h = hashlib.sha1(seed.encode()).hexdigest()
    return "fa:16:3e:%s:%s:%s" % (h[0:2], h[2:4], h[4:6])


# ----------------------------------------------------------------------------- helpers

def _members(value):
    """Heat passes a list of maps to a comma_delimited_list parameter as '.member.N.key=value'
    strings; turn that (or a real list of maps) back into a list of dicts."""
    if not value:
        return []
    if isinstance(value, str):
        value = value.split(",")
    out = {}
    plain = []
    for item in value:
        if isinstance(item, dict):
            plain.append(item)
            continue
        item = str(item)
        if item.startswith(".member."):
            rest = item[len(".member."):]
            idx, _, kv = rest.partition(".")
            key, _, val = kv.partition("=")
            out.setdefault(int(idx), {})[key] = val
    return plain + [out[k] for k in sorted(out)]


def _as_dict(value):
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            return json.loads(value)
        except ValueError:
            return {}
    return {}


def _truthy(value):
    return str(value).strip().lower() in ("true", "1", "yes")


def fail_switch(params):
    """Why a server must fail to boot, or None: flavor named fail.* or metadata
    {"localcloud_fail": "true"}."""
    flavor = str(params.get("flavor") or "")
    if flavor.startswith("fail."):
        return "flavor %r selects the localcloud failure switch" % flavor
    if _truthy(_as_dict(params.get("metadata")).get("localcloud_fail", "")):
        return "metadata localcloud_fail=true selects the localcloud failure switch"
    return None


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# ----------------------------------------------------------------------------- builders

def build_server(owner, params, ctx, ipam):
    name = params.get("name") or params.get("_stack_name") or "server"
    nets = _members(params.get("networks"))
    if not nets:
        nets = [{"network": "private"}]
    networks, addresses, first = {}, {}, None
    for i, n in enumerate(nets):
        entry = None
        port_id = n.get("port") or ""
        if port_id:
            entry = ipam.lookup(port_id)
        if entry is None:
            entry = ipam.allocate(
                "%s#nic%d" % (owner, i), requested=n.get("fixed_ip") or None,
                network=n.get("network") or n.get("uuid") or "private")
            port_id = port_id or str(uuid.uuid5(uuid.NAMESPACE_URL, owner + str(i)))
        net = entry.get("network") or n.get("network") or "private"
        networks.setdefault(net, []).append(entry["ip"])
        addresses.setdefault(net, []).append({
            "addr": entry["ip"], "version": 4, "OS-EXT-IPS:type": "fixed",
            "OS-EXT-IPS-MAC:mac_addr": entry["mac"], "port": port_id})
        first = first or entry["ip"]
    metadata = _as_dict(params.get("metadata"))
    tags = params.get("tags") or []
    show = {
        "id": owner, "name": name, "status": "ACTIVE", "OS-EXT-STS:vm_state": "active",
        "OS-EXT-STS:power_state": 1, "OS-EXT-AZ:availability_zone":
            params.get("availability_zone") or "nova",
        "flavor": {"original_name": params.get("flavor")}, "image": {"id": params.get("image")},
        "key_name": params.get("key_name") or None, "metadata": metadata, "tags": tags,
        "addresses": addresses, "accessIPv4": "", "accessIPv6": "",
        "tenant_id": ctx.get("project_id"), "user_id": ctx.get("user_id"),
        "security_groups": [{"name": s} for s in (params.get("security_groups") or [])],
        "created": _now(), "updated": _now(),
        "OS-EXT-SRV-ATTR:instance_name": "instance-%08x" % int(owner.replace("-", "")[:7], 16),
    }
    return {
        "id": owner, "name": name, "networks": networks, "addresses": addresses,
        "first_address": first, "instance_name": show["OS-EXT-SRV-ATTR:instance_name"],
        "accessIPv4": "", "accessIPv6": "", "console_urls": {}, "tags": tags,
        "os_collect_config": {}, "show": show,
    }


def build_port(owner, params, ctx, ipam):
    network = params.get("network") or params.get("network_id") or "private"
    fixed = _members(params.get("fixed_ips"))
    requested = next((f.get("ip_address") for f in fixed if f.get("ip_address")), None)
    subnet = next((f.get("subnet") or f.get("subnet_id") for f in fixed
                   if f.get("subnet") or f.get("subnet_id")), None)
    no_ips = _truthy(params.get("no_fixed_ips"))
    entry = None if no_ips else ipam.allocate(owner, requested=requested, network=network)
    fixed_ips = [] if no_ips else [{"subnet_id": subnet, "ip_address": entry["ip"]}]
    mac = params.get("mac_address") or (entry or {}).get("mac") or _mac(owner)
    attrs = {
        "id": owner, "name": params.get("name") or params.get("_stack_name"),
        "admin_state_up": params.get("admin_state_up", True),
        "device_id": params.get("device_id") or "", "device_owner":
            params.get("device_owner") or "", "fixed_ips": fixed_ips, "mac_address": mac,
        "network_id": network, "security_groups": params.get("security_groups") or [],
        "status": "ACTIVE", "tenant_id": ctx.get("project_id"),
        "allowed_address_pairs": _members(params.get("allowed_address_pairs")),
        "subnets": [], "port_security_enabled": params.get("port_security_enabled", True),
        "qos_policy_id": params.get("qos_policy") or None, "dns_assignment": [],
        "network": {"id": network, "name": network},
        "propagate_uplink_status": params.get("propagate_uplink_status", False),
    }
    attrs["show"] = dict(attrs, project_id=ctx.get("project_id"), tags=params.get("tags") or [])
    return attrs


def build_floating_ip(owner, params, ctx, ipam):
    port_id = params.get("port_id") or None
    requested = params.get("floating_ip_address") or None
    entry = ipam.allocate(owner, pool="floating", requested=requested,
                          network=params.get("floating_network"))
    fixed = params.get("fixed_ip_address") or None
    if port_id and not fixed:
        port_entry = ipam.lookup(port_id)
        fixed = port_entry["ip"] if port_entry else None
    net = params.get("floating_network") or params.get("floating_network_id")
    attrs = {
        "id": owner, "router_id": str(uuid.uuid5(uuid.NAMESPACE_URL, "router-%s" % net)),
        "tenant_id": ctx.get("project_id"), "floating_network_id": net,
        "fixed_ip_address": fixed, "floating_ip_address": entry["ip"], "port_id": port_id,
    }
    attrs["show"] = dict(attrs, status="ACTIVE" if port_id else "DOWN",
                         project_id=ctx.get("project_id"))
    return attrs


def build_loadbalancer(owner, params, ctx, ipam):
    entry = ipam.allocate(owner, requested=params.get("vip_address") or None,
                          network=params.get("vip_subnet"))
    attrs = {
        "id": owner, "vip_address": entry["ip"],
        "vip_port_id": str(uuid.uuid5(uuid.NAMESPACE_URL, "vip-" + owner)),
        "vip_subnet_id": params.get("vip_subnet"), "pools": [],
        "flavor_id": params.get("flavor") or None,
    }
    attrs["show"] = dict(
        attrs, name=params.get("name") or "", description=params.get("description") or "",
        provider=params.get("provider") or "amphora", provisioning_status="ACTIVE",
        operating_status="ONLINE", listeners=[], project_id=ctx.get("project_id"),
        admin_state_up=params.get("admin_state_up", True))
    return attrs


def local_cidr(cidr):
    """The subnet's network, refused unless it lies in 127.0.0.0/8."""
    try:
        net = ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        raise exception.Error("localcloud: %r is not a CIDR" % cidr) from None
    if net.version != 4 or not net.subnet_of(LOCAL):
        raise exception.Error(
            "localcloud: subnet %s is outside 127.0.0.0/8; the local cloud hands out local "
            "addresses only (use e.g. 127.10.0.0/16, or the cluster template's fixed_network "
            "'private')" % cidr)
    return net


def build_subnet(owner, params, ctx, ipam):
    cidr = params.get("cidr") or str(POOLS["fixed"][0])
    net = local_cidr(cidr)
    gw = params.get("gateway_ip") or str(net.network_address + 1)
    pools = _members(params.get("allocation_pools")) or [
        {"start": str(net.network_address + 2), "end": str(net.broadcast_address - 1)}]
    attrs = {
        "id": owner, "name": params.get("name") or params.get("_stack_name"),
        "network_id": params.get("network") or params.get("network_id"),
        "tenant_id": ctx.get("project_id"), "allocation_pools": pools, "gateway_ip": gw,
        "host_routes": _members(params.get("host_routes")),
        "ip_version": params.get("ip_version") or 4, "cidr": cidr,
        "dns_nameservers": params.get("dns_nameservers") or [],
        "enable_dhcp": params.get("enable_dhcp", True),
    }
    attrs["show"] = dict(attrs, project_id=ctx.get("project_id"))
    return attrs


def build_volume(owner, params, ctx, ipam):
    metadata = _as_dict(params.get("metadata"))
    attrs = {
        "id": owner, "availability_zone": params.get("availability_zone") or "nova",
        "size": params.get("size") or 1, "snapshot_id": params.get("snapshot_id") or None,
        "display_name": params.get("name") or params.get("_stack_name"),
        "display_description": params.get("description") or "",
        "volume_type": params.get("volume_type") or "__DEFAULT__",
        "metadata": json.dumps(metadata), "metadata_values": metadata,
        "source_volid": params.get("source_volid") or None, "status": "available",
        "created_at": _now(), "bootable": "true" if params.get("image") else "false",
        "encrypted": False, "attachments": "[]", "attachments_list": [],
        "multiattach": params.get("multiattach", False),
    }
    attrs["show"] = dict(attrs, name=attrs["display_name"])
    return attrs


BUILDERS = {
    "server": build_server,
    "port": build_port,
    "floating_ip": build_floating_ip,
    "loadbalancer": build_loadbalancer,
    "subnet": build_subnet,
    "volume": build_volume,
}


class FakeResource(resource.Resource):
    """Computes the attributes of a stubbed leaf resource (used inside facade templates)."""

    PROPERTIES = (KIND, PARAMS) = ("kind", "params")

    properties_schema = {
        KIND: properties.Schema(
            properties.Schema.STRING, "Which real resource type this stands in for.",
            required=True,
            constraints=[constraints.AllowedValues(sorted(BUILDERS))]),
        PARAMS: properties.Schema(
            properties.Schema.MAP, "The facade's parameters.", default={},
            update_allowed=True),
    }

    attributes_schema = {
        "attrs": attributes.Schema("All attributes of the stubbed resource.",
                                   type=attributes.Schema.MAP),
    }

    def _build(self):
        params = dict(self.properties[self.PARAMS] or {})
        params.setdefault("_stack_name", self.stack.name)
        kind = self.properties[self.KIND]
        owner = self.stack.id  # the facade's nested stack: its id is the facade's id
        if kind == "server":
            reason = fail_switch(params)
            if reason:
                raise exception.Error(
                    "Server %s failed to boot: %s" % (params.get("name") or owner, reason))
        ctx = {"project_id": self.context.project_id, "user_id": self.context.user_id}
        user_data = params.pop("user_data", None)
        with _Ipam() as ipam:
            attrs = BUILDERS[kind](owner, params, ctx, ipam)
        if kind == "server":
            store_user_data(owner, user_data)
        self.data_set("attrs", json.dumps(attrs))
        return owner

    def handle_create(self):
        self.resource_id_set(self._build())

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        if prop_diff:
            self.properties = json_snippet.properties(self.properties_schema, self.context)
            self._build()

    def handle_delete(self):
        owner = self.stack.id
        if owner:
            with _Ipam() as ipam:
                ipam.release(owner)
            store_user_data(owner, None)
        return None

    def _resolve_attribute(self, name):
        if name == "attrs":
            raw = self.data().get("attrs")
            return json.loads(raw) if raw else None
        return None


def resource_mapping():
    return {"LocalCloud::Fake::Resource": FakeResource}
