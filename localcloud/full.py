"""The full tier: lite + Placement, Nova (fake driver), Neutron (no agents), Octavia (noop
drivers) and a Heat whose Nova/Neutron/Octavia types are real (Cinder, which does not run, and
Octavia's PoolMember stay stubbed)."""

import os
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from . import infra, procs, rest
from .cloud import Cloud, gunicorn, venv_markers
from .config import auth_url, authtoken_section, write_ini
from .layout import DB_PREFIX, HERE, HOST, PORTS, REGION
from .procs import StartError, log
from .tiers import url

NOVA_DBS = ("nova_api", "nova", "nova_cell0")
FLAVORS = [("m1.small", 1, 2048, 10), ("m1.medium", 2, 4096, 20), ("fail.small", 1, 2048, 10)]
# The failure switch of the full tier: a flavor asking for a resource class no compute node
# has, so the scheduler answers NoValidHost and the server goes to ERROR.
FAIL_EXTRA_SPECS = {"resources:CUSTOM_LOCALCLOUD_FAIL": "1"}
KEYPAIR = "localcloud-demo"
# The address plan (localcloud/README.md): everything in 127.0.0.0/8, which Linux routes to lo.
PUBLIC_SUBNET = {"name": "public-subnet", "cidr": "127.24.4.0/24", "gateway_ip": "127.24.4.1",
                 "allocation_pools": [{"start": "127.24.4.10", "end": "127.24.4.254"}]}
PRIVATE_SUBNET = {"name": "private-subnet", "cidr": "127.10.0.0/16", "gateway_ip": "127.10.0.1",
                  "allocation_pools": [{"start": "127.10.0.10", "end": "127.10.255.250"}]}
#: Bumped when the address plan changes: databases holding the old plan's addresses go.
ADDRESS_PLAN = "loopback-1"
PLAN_DATABASES = ("neutron", "octavia", "heatfull") + NOVA_DBS + ("placement",)



class FullCloud(Cloud):
    def __init__(self, layout):
        super().__init__(layout, "full")

    def ports(self):
        ports = super().ports()
        ports.update({name: PORTS[name] for name in ("placement", "nova-api", "neutron",
                                                     "octavia-api")})
        return ports

    def service_auth(self, user):
        return {
            "auth_type": "password", "auth_url": auth_url(), "username": user,
            "password": self.sec[user], "project_name": "service",
            "user_domain_name": "Default", "project_domain_name": "Default",
            "region_name": REGION, "valid_interfaces": "public",
        }

    # ------------------------------------------------------------------ placement
    def placement_conf(self):
        d = self.layout.etc_dir("placement")
        write_ini(os.path.join(d, "placement.conf"), {
            "DEFAULT": {"debug": False, "use_stderr": True},
            "placement_database": {"connection": self.ensure_db("placement")},
            "api": {"auth_strategy": "keystone"},
            "keystone_authtoken": authtoken_section("placement", self.sec["placement"]),
        })
        return d

    def sync_placement(self):
        d = self.placement_conf()
        self.db_sync("placement", [self.layout.bin("placement-manage"), "--config-file",
                                   os.path.join(d, "placement.conf"), "db", "sync"],
                     "placement-manage")

    # ------------------------------------------------------------------ neutron
    def neutron_conf(self):
        d = self.layout.etc_dir("neutron")
        data = self.layout.data_dir("neutron")
        write_ini(os.path.join(d, "neutron.conf"), {
            "DEFAULT": {
                "debug": False, "use_stderr": True, "core_plugin": "ml2",
                "service_plugins": "router", "auth_strategy": "keystone",
                "allow_overlapping_ips": True, "state_path": data,
                "transport_url": infra.rabbit_url("localcloud_neutron"),
                "api_paste_config": os.path.join(self.layout.venv, "etc", "neutron",
                                                 "api-paste.ini"),
                "notify_nova_on_port_status_changes": False,
                "notify_nova_on_port_data_changes": False,
            },
            "database": {"connection": self.ensure_db("neutron")},
            "keystone_authtoken": authtoken_section("neutron", self.sec["neutron"]),
            "oslo_concurrency": {"lock_path": os.path.join(data, "lock")},
            "oslo_messaging_notifications": {"driver": "noop"},
        })
        write_ini(os.path.join(d, "plugins", "ml2", "ml2_conf.ini"), {
            "ml2": {"type_drivers": "flat,vxlan", "tenant_network_types": "vxlan",
                    "mechanism_drivers": "localcloud", "extension_drivers": "port_security"},
            "ml2_type_flat": {"flat_networks": "public"},
            "ml2_type_vxlan": {"vni_ranges": "1:10000"},
        })
        return d

    def sync_neutron(self):
        d = self.neutron_conf()
        self.db_sync("neutron", [self.layout.bin("neutron-db-manage"),
                                 "--config-file", os.path.join(d, "neutron.conf"),
                                 "--config-file", os.path.join(d, "plugins", "ml2",
                                                               "ml2_conf.ini"),
                                 "upgrade", "heads"], "neutron-manage")

    # ------------------------------------------------------------------ nova
    def nova_conf(self):
        d = self.layout.etc_dir("nova")
        data = self.layout.data_dir("nova")
        shutil.copy(os.path.join(self.layout.venv, "etc", "nova", "api-paste.ini"),
                    os.path.join(d, "api-paste.ini"))
        write_ini(os.path.join(d, "nova.conf"), {
            "DEFAULT": {
                "debug": False, "use_stderr": True, "host": "localcloud",
                "transport_url": infra.rabbit_url("localcloud_nova"),
                "compute_driver": "fake.FakeDriver", "state_path": data,
                "instances_path": os.path.join(data, "instances"), "my_ip": HOST,
                "vif_plugging_is_fatal": False, "vif_plugging_timeout": 0,
            },
            "api": {"auth_strategy": "keystone"},
            "api_database": {"connection": self.ensure_db("nova_api")},
            "database": {"connection": self.ensure_db("nova")},
            "keystone_authtoken": authtoken_section("nova", self.sec["nova"]),
            "placement": self.service_auth("nova"),
            "neutron": self.service_auth("nova"),
            "glance": {"region_name": REGION, "valid_interfaces": "public"},
            "service_user": dict(self.service_auth("nova"), send_service_user_token=True),
            "oslo_concurrency": {"lock_path": os.path.join(data, "lock")},
            "oslo_messaging_notifications": {"driver": "noop"},
            "scheduler": {"discover_hosts_in_cells_interval": 10, "workers": 1},
            "conductor": {"workers": 1},
            # Each cluster has a server group per node group (Nova's default: 10 groups
            # per project), and parallel test workers keep several clusters alive in demo.
            "quota": {"instances": 100, "cores": 400, "ram": 819200,
                      "server_groups": 100, "server_group_members": 100},
        })
        return d

    def nova_manage(self, *args, check=True):
        conf = os.path.join(self.layout.etc_dir("nova"), "nova.conf")
        return procs.run([self.layout.bin("nova-manage"), "--config-file", conf, *args],
                         logpath=self.layout.log("nova-manage"), check=check)

    def reset_nova_if_compute_restarts(self):
        """The fake driver's compute node cannot restart against its old records: when
        nova-compute is not running but Nova's databases exist, start Nova (and Placement,
        which holds the node's resource provider) from empty databases."""
        if procs.running_pid(self.layout, "nova-compute"):
            return
        if not os.path.exists(self.layout.marker("dbsync-nova")):
            return
        log("nova-compute is not running: resetting the Nova and Placement databases "
            "(the fake compute node cannot come back; its servers are gone)")
        self._start_afresh(("nova-api", "nova-conductor", "nova-scheduler", "placement"),
                           NOVA_DBS + ("placement",))
        infra.delete_vhost("localcloud_nova")

    def _start_afresh(self, services, databases):
        """Stop ``services``, drop ``databases`` and forget they were synced, so the next
        sync builds them anew; Nova's instance files go too."""
        for svc in services:
            procs.stop(self.layout, svc)
        for svc in databases:
            infra.drop_database(DB_PREFIX + svc)
            try:
                os.remove(self.layout.marker("dbsync-" + svc))
            except OSError:
                pass
        shutil.rmtree(os.path.join(self.layout.data, "nova"), ignore_errors=True)

    def reset_for_address_plan(self):
        """Databases made under an earlier address plan (before every subnet moved into
        127.0.0.0/8) hold addresses outside this machine: start Neutron, Octavia, Heat and
        Nova afresh."""
        marker = self.layout.marker("address-plan")
        if os.path.exists(marker) and open(marker).read().strip() == ADDRESS_PLAN:
            return
        if os.path.exists(self.layout.marker("dbsync-neutron")):
            log("the full tier's databases predate address plan %s: resetting Neutron, "
                "Octavia, Heat (full) and Nova" % ADDRESS_PLAN)
            self._start_afresh(("nova-compute", "nova-api", "nova-conductor",
                                "nova-scheduler", "placement", "neutron", "octavia-api",
                                "octavia-worker", "heat-api", "heat-engine"), PLAN_DATABASES)
        with open(marker, "w") as f:
            f.write(ADDRESS_PLAN + "\n")

    def sync_nova(self):
        d = self.nova_conf()
        if self.need_sync("nova"):
            self.nova_manage("api_db", "sync")
            _, cell0 = self.db("nova_cell0")
            self.ensure_db("nova_cell0")
            self.nova_manage("cell_v2", "map_cell0", "--database_connection", cell0)
            _, cells = procs.run([self.layout.bin("nova-manage"), "--config-file",
                                  os.path.join(d, "nova.conf"), "cell_v2", "list_cells"],
                                 check=False)
            if " cell1 " not in cells:
                _, cell1 = self.db("nova")
                self.nova_manage("cell_v2", "create_cell", "--name", "cell1",
                                 "--database_connection", cell1,
                                 "--transport-url", infra.rabbit_url("localcloud_nova"))
            self.nova_manage("db", "sync")
            self.synced("nova")
            self.synced("nova_api")

    # ------------------------------------------------------------------ octavia
    def octavia_conf(self):
        """Octavia with the amphora provider and the noop compute/amphora/volume/image
        drivers: load balancers, listeners, pools and monitors go ACTIVE, no amphora is built.
        The network driver is ours (full/localcloud_octavia): the VIP is a real Neutron port,
        so a floating IP can be put on it; everything about amphorae stays noop."""
        d = self.layout.etc_dir("octavia")
        certs = os.path.join(d, "certs")
        procs.run([self.layout.python, os.path.join(HERE, "helpers", "octavia_ca.py"), certs,
                   self.sec["octavia_ca_pass"]], logpath=self.layout.log("octavia-manage"))
        ca = os.path.join(certs, "ca_01.pem")
        write_ini(os.path.join(d, "octavia.conf"), {
            "DEFAULT": {"debug": False, "use_stderr": True,
                        "transport_url": infra.rabbit_url("localcloud_octavia")},
            "api_settings": {"auth_strategy": "keystone", "default_provider_driver": "amphora",
                             "enabled_provider_drivers": "amphora:The Octavia Amphora driver."},
            "database": {"connection": self.ensure_db("octavia")},
            "keystone_authtoken": authtoken_section("octavia", self.sec["octavia"]),
            "service_auth": dict(self.service_auth("octavia")),
            "neutron": {"region_name": REGION, "valid_interfaces": "public"},
            "health_manager": {"heartbeat_key": self.sec["octavia_heartbeat"]},
            "certificates": {
                "cert_generator": "local_cert_generator", "ca_certificate": ca,
                "ca_private_key": os.path.join(certs, "cakey.pem"),
                "ca_private_key_passphrase": self.sec["octavia_ca_pass"],
                "server_certs_key_passphrase": self.sec["octavia_amp_pass"],
            },
            "controller_worker": {
                "client_ca": ca, "amp_image_tag": "amphora", "amp_flavor_id": "amphora",
                "amp_boot_network_list": "00000000-0000-0000-0000-000000000000",
                "loadbalancer_topology": "SINGLE",
                "network_driver": "localcloud_network_driver",
                "compute_driver": "compute_noop_driver",
                "amphora_driver": "amphora_noop_driver", "volume_driver": "volume_noop_driver",
                "image_driver": "image_noop_driver",
            },
            "task_flow": {"jobboard_enabled": False},
            "oslo_messaging": {"topic": "octavia_prov"},
            "oslo_messaging_notifications": {"driver": "noop"},
        })
        return d

    def sync_octavia(self):
        d = self.octavia_conf()
        self.db_sync("octavia", [self.layout.bin("octavia-db-manage"), "--config-file",
                                 os.path.join(d, "octavia.conf"), "upgrade", "head"],
                     "octavia-manage")

    def start_octavia(self):
        d = self.layout.etc_dir("octavia")
        conf = os.path.join(d, "octavia.conf")
        gunicorn(self.layout, "octavia-api", "localcloud_octavia_wsgi", PORTS["octavia-api"],
                 workers=1, threads=4, env={"LOCALCLOUD_OCTAVIA_CONF": conf}, watch=[d])
        procs.start(self.layout, "octavia-worker",
                    [self.layout.bin("octavia-worker"), "--config-file", conf],
                    watch=[d, *venv_markers(self.layout)])

    # ------------------------------------------------------------------ up
    def up(self):
        t_start = time.time()
        infra.ensure_mariadb()
        infra.ensure_rabbitmq()
        self.prepare()
        for vhost in ("localcloud_nova", "localcloud_neutron", "localcloud_octavia"):
            infra.ensure_vhost(vhost)
        self.timer.step("MariaDB and RabbitMQ")
        self.ensure_venv()
        self.reset_for_address_plan()
        self.reset_nova_if_compute_restarts()
        for vhost in ("localcloud_nova",):
            infra.ensure_vhost(vhost)
        self.start_keystone()
        self.start_barbican()
        self.start_glance()
        # schemas of the fake-virt services, concurrently (mostly waiting on MariaDB)
        with ThreadPoolExecutor(max_workers=4) as pool:
            jobs = [pool.submit(f) for f in (self.sync_placement, self.sync_neutron,
                                             self.sync_nova, self.sync_octavia)]
            for j in jobs:
                j.result()
        self.timer.step("placement, neutron, nova and octavia schemas")
        self.wait_keystone()
        self.identities()
        pdir = self.layout.etc_dir("placement")
        gunicorn(self.layout, "placement", "localcloud_placement_wsgi", PORTS["placement"],
                 workers=1, threads=4, env={"OS_PLACEMENT_CONFIG_DIR": pdir}, watch=[pdir])
        gunicorn(self.layout, "neutron", "localcloud_neutron_wsgi", PORTS["neutron"],
                 workers=1, threads=4,
                 env={"OS_NEUTRON_CONFIG_DIR": self.layout.etc_dir("neutron")},
                 watch=[self.layout.etc_dir("neutron")])
        ndir = self.layout.etc_dir("nova")
        nconf = os.path.join(ndir, "nova.conf")
        gunicorn(self.layout, "nova-api", "localcloud_nova_wsgi", PORTS["nova-api"],
                 workers=1, threads=4, env={"OS_NOVA_CONFIG_DIR": ndir}, watch=[ndir])
        for svc in ("nova-conductor", "nova-scheduler"):
            procs.start(self.layout, svc, [self.layout.bin(svc), "--config-file", nconf],
                        watch=[ndir])
        # nova-compute is never restarted for a config change: the fake compute node cannot
        # come back (see reset_nova_if_compute_restarts); `down` + `up --tier full` resets it
        procs.start(self.layout, "nova-compute",
                    [self.layout.bin("nova-compute"), "--config-file", nconf])
        self.start_octavia()
        self.start_heat()
        for name, probe, timeout in [
            ("placement", url("placement", "/"), 90), ("neutron", url("neutron", "/"), 120),
            ("nova-api", url("nova-api", "/"), 120),
            ("octavia-api", url("octavia-api", "/"), 120),
        ]:
            procs.wait_until(self.layout, name, lambda p=probe: procs.http_ok(p), timeout,
                             "GET " + probe)
        self.wait_barbican()
        self.wait_glance()
        self.wait_heat()
        self.warm_up(self.warm_up_urls() + [
            url("placement", "/resource_providers"), url("neutron", "/v2.0/networks"),
            url("nova-api", "/v2.1/flavors"), url("octavia-api", "/v2/lbaas/loadbalancers")])
        self.timer.step("all APIs answering")
        self.discover_compute()
        self.seed_images()
        self.seed_fakevirt()
        self.start_helpers()
        self.layout.write_tier(self.tier)
        log("full tier up in %.1fs" % (time.time() - t_start))

    def discover_compute(self):
        """Wait for the fake compute node to register, then map it to cell1."""
        token, body = rest.password_token(auth_url(), "admin", self.sec["admin"],
                                          project="admin")
        deadline = time.time() + 180
        while True:
            self.nova_manage("cell_v2", "discover_hosts", check=False)
            try:
                hyps = rest.request("GET", url("nova-api", "/v2.1/os-hypervisors"), token,
                                    headers={"OpenStack-API-Version": "compute 2.53"})[2]
                if hyps.get("hypervisors"):
                    break
            except rest.HTTPError:
                pass
            if not procs.running_pid(self.layout, "nova-compute"):
                raise StartError("nova-compute exited; see %s:\n%s" % (
                    self.layout.log("nova-compute"), procs.tail(self.layout.log("nova-compute"))))
            if time.time() > deadline:
                raise StartError("the fake compute node did not register within 180s")
            time.sleep(3)
        self.timer.step("compute node registered")

    # ------------------------------------------------------------------ seed data
    def demo_keypair(self):
        path = os.path.join(self.layout.root, "demo-key")
        if not os.path.exists(path + ".pub"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
                            "localcloud-demo", "-f", path], check=True)
        with open(path + ".pub") as f:
            return f.read().strip()

    def seed_fakevirt(self):
        token, _ = rest.password_token(auth_url(), "admin", self.sec["admin"], project="admin")
        nova = url("nova-api", "/v2.1")
        flavors = rest.request("GET", nova + "/flavors", token)[2]["flavors"]
        have = {f["name"] for f in flavors}
        for name, vcpus, ram, disk in FLAVORS:
            if name not in have:
                flavor = rest.request("POST", nova + "/flavors", token, body={"flavor": {
                    "name": name, "vcpus": vcpus, "ram": ram, "disk": disk}})[2]["flavor"]
                if name.startswith("fail."):
                    rest.request("POST", "%s/flavors/%s/os-extra_specs" % (nova, flavor["id"]),
                                 token, body={"extra_specs": FAIL_EXTRA_SPECS})
        demo_token, _ = rest.password_token(auth_url(), "demo", self.sec["demo"], project="demo")
        try:
            rest.request("GET", nova + "/os-keypairs/" + KEYPAIR, demo_token)
        except rest.HTTPError as e:
            if e.code != 404:
                raise
            rest.request("POST", nova + "/os-keypairs", demo_token, body={"keypair": {
                "name": KEYPAIR, "public_key": self.demo_keypair()}})
        self.seed_networks(token)
        self.timer.step("flavors, keypair and networks")

    def seed_networks(self, token):
        """`public` (external, 127.24.4.0/24) and the demo project's `private`
        (127.10.0.0/16) routed to it by `private-router`; no DHCP (Neutron refuses DHCP on a
        loopback subnet). Clusters use `private` as their fixed network: the drivers' own
        private subnet has DHCP on."""
        neutron = url("neutron", "/v2.0")
        demo = rest.password_token(auth_url(), "demo", self.sec["demo"], project="demo")[1]
        demo_project = demo["project"]["id"]

        def one(kind, query, body):
            plural = kind + "s"
            found = rest.request("GET", "%s/%s?%s" % (neutron, plural, query), token)[2][plural]
            if found:
                return found[0]
            return rest.request("POST", "%s/%s" % (neutron, plural), token,
                                body={kind: body})[2][kind]

        public = one("network", "name=public", {
            "name": "public", "router:external": True, "shared": False,
            "provider:network_type": "flat", "provider:physical_network": "public"})
        one("subnet", "network_id=" + public["id"], dict(
            PUBLIC_SUBNET, network_id=public["id"], ip_version=4, enable_dhcp=False))
        private = one("network", "name=private&project_id=" + demo_project, {
            "name": "private", "project_id": demo_project})
        subnet = one("subnet", "network_id=" + private["id"], dict(
            PRIVATE_SUBNET, network_id=private["id"], ip_version=4, enable_dhcp=False,
            project_id=demo_project))
        router = one("router", "name=private-router&project_id=" + demo_project, {
            "name": "private-router", "project_id": demo_project,
            "external_gateway_info": {"network_id": public["id"]}})
        ports = rest.request("GET", "%s/ports?device_id=%s&network_id=%s" % (
            neutron, router["id"], private["id"]), token)[2]["ports"]
        if not ports:
            rest.request("PUT", "%s/routers/%s/add_router_interface" % (neutron, router["id"]),
                         token, body={"subnet_id": subnet["id"]})
