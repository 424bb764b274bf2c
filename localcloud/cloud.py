"""The lite tier: Keystone, Heat (stubbed leaf types), Barbican, Glance and two helpers."""

import hashlib
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from . import infra, procs, rest
from .config import auth_url, authtoken_section, write_ini, write_user_files
from .layout import (
    CONSTRAINTS,
    DB_PREFIX,
    FULL_PACKAGES,
    HERE,
    HOST,
    LITE_PACKAGES,
    MAGNUM_URL,
    PORTS,
    REGION,
    REPO,
    load_secrets,
)
from .procs import StartError, log
from .tiers import full_services, url

WSGI_DIR = os.path.join(HERE, "wsgi")
HEAT_PLUGIN_DIR = os.path.join(HERE, "heat", "plugins")
HELPERS = os.path.join(HERE, "helpers")

STALE_VHOSTS = ("localcloud_heat", "localcloud_heatfull", "localcloud_nova",
                "localcloud_neutron", "localcloud_octavia")

DEMO_ROLES = ["member", "reader", "heat_stack_owner", "creator", "load-balancer_member"]

IMAGES = [
    ("fedora-coreos-40", "fedora-coreos"),
    ("fedora-coreos-41", "fedora-coreos"),
    ("ubuntu-24.04", "ubuntu"),
    ("fedora-atomic-38", "fedora-atomic"),
]


class Timer:
    def __init__(self):
        self.t0 = time.time()
        self.steps = []

    def step(self, name):
        now = time.time()
        self.steps.append((name, now - self.t0))
        self.t0 = now
        log("%s done in %.1fs" % (name, self.steps[-1][1]))


def gunicorn(layout, name, module, port, workers=1, threads=4, env=None, watch=()):
    argv = [
        layout.bin("gunicorn"), "--no-control-socket",
        "--bind", "%s:%d" % (HOST, port),
        "--workers", str(workers), "--threads", str(threads), "--worker-class", "gthread",
        "--timeout", "180", "--graceful-timeout", "10",
        # gunicorn closes idle keep-alive connections after 2 s by default: a client polling
        # every 2 s then races the close and sees "connection reset by peer"
        "--keep-alive", "75",
        "--pythonpath", WSGI_DIR,
        "--name", "localcloud-" + name,
        "--access-logfile", "-",
        "--access-logformat", '%(h)s "%(r)s" %(s)s %(b)s %(M)sms',
        module + ":application",
    ]
    watch = [os.path.join(WSGI_DIR, module + ".py"), *watch, *venv_markers(layout)]
    return procs.start(layout, name, argv, env=env, watch=watch)


def package_sources(root):
    """The source files of one of our local packages (not pip's build/ and egg-info)."""
    found = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "build" and not x.endswith(".egg-info"))
        found += [os.path.join(d, f) for f in sorted(files) if f.endswith((".py", ".toml"))]
    return found


def venv_markers(layout):
    """The venv's install markers: a package change restarts every service."""
    return [layout.marker("venv-lite"), layout.marker("venv-full")]


class Cloud:
    """Everything `localcloud up` does for the lite tier (the full tier extends it)."""

    def __init__(self, layout, tier="lite"):
        self.layout = layout
        self.tier = tier
        self.timer = Timer()
        # a state directory seen for the first time: databases and vhosts named localcloud_*
        # on this machine belong to an earlier one (another clone, a CI run) and are stale
        self.fresh = not (os.path.isdir(layout.markers) and os.listdir(layout.markers))
        layout.mkdirs()
        self.sec = load_secrets(layout)

    # ------------------------------------------------------------------ venv
    def ensure_venv(self):
        pkgs = list(LITE_PACKAGES)
        extra_paths = []
        if self.tier == "full":
            pkgs += FULL_PACKAGES
            extra_paths += [os.path.join(HERE, "full", name)
                            for name in ("localcloud_ml2", "localcloud_octavia")]
        digest = hashlib.sha256(" ".join(pkgs + extra_paths).encode())
        # our own packages are copied into the venv: a change to their code reinstalls them
        for path in [CONSTRAINTS] + [f for p in extra_paths for f in package_sources(p)]:
            with open(path, "rb") as f:
                digest.update(f.read())
        digest = digest.hexdigest()
        marker = self.layout.marker("venv-" + self.tier)
        if os.path.exists(marker) and open(marker).read().strip() == digest \
                and os.path.exists(self.layout.bin("gunicorn")):
            return
        if not os.path.exists(self.layout.python):
            log("creating the cloud virtualenv %s" % self.layout.venv)
            procs.run([sys.executable, "-m", "venv", self.layout.venv])
        log("installing %s into the cloud virtualenv (pinned by %s)"
            % (" ".join(pkgs), CONSTRAINTS))
        logpath = self.layout.log("pip")
        procs.run([self.layout.python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                   "-c", CONSTRAINTS, *pkgs, *extra_paths], logpath=logpath, timeout=1800)
        with open(marker, "w") as f:
            f.write(digest + "\n")
        self.timer.step("virtualenv")

    # ------------------------------------------------------------------ databases
    def db(self, svc):
        name = DB_PREFIX + svc
        return name, infra.db_url(name, name, self.sec["db_" + svc])

    def ensure_db(self, svc):
        name, dburl = self.db(svc)
        infra.ensure_database(name, name, self.sec["db_" + svc])
        return dburl

    def need_sync(self, svc):
        """db_sync needed unless our marker says done and the schema is there."""
        name, _ = self.db(svc)
        marker = self.layout.marker("dbsync-" + svc)
        return not (os.path.exists(marker) and infra.table_count(name) > 0)

    def synced(self, svc):
        with open(self.layout.marker("dbsync-" + svc), "w") as f:
            f.write(time.strftime("%F %T") + "\n")

    def db_sync(self, svc, argv, log, env=None):
        """Run ``argv``, the service's schema sync (logged to ``log``), unless
        :meth:`need_sync` says it is done; then record it done."""
        if self.need_sync(svc):
            procs.run(argv, env=env, logpath=self.layout.log(log))
            self.synced(svc)

    # ------------------------------------------------------------------ keystone
    def keystone_conf(self):
        d = self.layout.etc_dir("keystone")
        fernet = os.path.join(d, "fernet-keys")
        write_ini(os.path.join(d, "keystone.conf"), {
            "DEFAULT": {"debug": False, "use_stderr": True},
            "database": {"connection": self.ensure_db("keystone")},
            "token": {"provider": "fernet"},
            "fernet_tokens": {"key_repository": fernet, "max_active_keys": 3},
            "fernet_receipts": {"key_repository": fernet},
            "credential": {"key_repository": os.path.join(d, "credential-keys")},
            "identity": {"password_hash_rounds": 4},
            # one gunicorn worker with an in-process cache: consistent (no second process
            # holding stale role/trust/revocation entries) and several times faster
            "cache": {"enabled": True, "backend": "oslo_cache.dict", "expiration_time": 600},
        })
        return os.path.join(d, "keystone.conf")

    def keystone_manage(self, *args):
        conf = os.path.join(self.layout.etc_dir("keystone"), "keystone.conf")
        procs.run([self.layout.bin("keystone-manage"), "--config-file", conf, *args],
                  logpath=self.layout.log("keystone-manage"))

    def start_keystone(self):
        conf = self.keystone_conf()
        d = os.path.dirname(conf)
        new_db = self.need_sync("keystone")
        if new_db:
            self.keystone_manage("db_sync")
            self.synced("keystone")
        if not os.path.exists(os.path.join(d, "fernet-keys", "0")):
            self.keystone_manage("fernet_setup", "--keystone-user", "root",
                                 "--keystone-group", "root")
        if not os.path.exists(os.path.join(d, "credential-keys", "0")):
            self.keystone_manage("credential_setup", "--keystone-user", "root",
                                 "--keystone-group", "root")
        marker = self.layout.marker("keystone-bootstrap")
        if new_db or not os.path.exists(marker) or \
                open(marker).read().strip() != self.sec["admin"]:
            self.keystone_manage(
                "bootstrap", "--bootstrap-password", self.sec["admin"],
                "--bootstrap-username", "admin", "--bootstrap-project-name", "admin",
                "--bootstrap-role-name", "admin", "--bootstrap-service-name", "keystone",
                "--bootstrap-region-id", REGION,
                "--bootstrap-admin-url", auth_url(), "--bootstrap-internal-url", auth_url(),
                "--bootstrap-public-url", auth_url())
            with open(marker, "w") as f:
                f.write(self.sec["admin"] + "\n")
        self.timer.step("keystone schema and bootstrap")
        gunicorn(self.layout, "keystone", "localcloud_keystone_wsgi", PORTS["keystone"],
                 workers=1, threads=8, env={"OS_KEYSTONE_CONFIG_DIR": d},
                 watch=[conf])

    def wait_keystone(self):
        procs.wait_until(self.layout, "keystone", lambda: procs.http_ok(url("keystone", "/v3")),
                         90, "GET /v3")
        self.warm_up([auth_url() + "/roles"])

    def warm_up(self, urls):
        """One authenticated request per service before anything concurrent: the first
        requests of a fresh threaded worker race on lazy initialisation (Keystone's policy
        enforcer answered 403 to the admin when hit by several threads at once)."""
        token, _ = rest.password_token(auth_url(), "admin", self.sec["admin"], project="admin")
        for u in urls:
            try:
                rest.request("GET", u, token, timeout=60)
            except rest.HTTPError as e:
                log("warm-up GET %s answered %s" % (u, e.code))

    # ------------------------------------------------------------------ identities
    def service_users(self):
        users = ["heat", "barbican", "glance", "magnum"]
        if self.tier == "full":
            users += ["placement", "nova", "neutron", "octavia"]
        return users

    def catalog(self):
        entries = [
            ("orchestration", "heat", url("heat-api", "/v1/%(tenant_id)s")),
            ("key-manager", "barbican", url("barbican")),
            ("image", "glance", url("glance")),
            ("container-infra", "magnum", MAGNUM_URL),
        ]
        if self.tier == "full":
            entries += [
                ("placement", "placement", url("placement")),
                ("compute", "nova", url("nova-api", "/v2.1")),
                ("network", "neutron", url("neutron")),
                ("load-balancer", "octavia", url("octavia-api")),
            ]
        return entries

    def identities(self):
        wanted = json.dumps([self.tier, self.service_users(), self.catalog(), DEMO_ROLES,
                             sorted(self.sec.items())], sort_keys=True)
        digest = hashlib.sha256(wanted.encode()).hexdigest()
        marker = self.layout.marker("identities")
        if os.path.exists(marker) and open(marker).read().strip() == digest \
                and self._identities_look_right():
            write_user_files(self.layout, self.sec)
            self.timer.step("identities and catalog (unchanged)")
            return
        ks = rest.Keystone(auth_url(), "admin", self.sec["admin"])
        pool = ThreadPoolExecutor(max_workers=4)
        role_names = ["admin", "member", "reader", "service", "heat_stack_owner",
                      "heat_stack_user", "creator", "load-balancer_member"]
        roles = dict(zip(role_names, pool.map(ks.role, role_names), strict=True))
        admin_project = ks.project("admin")
        service = ks.project("service", description="localcloud service users")
        demo = ks.project("demo", description="localcloud non-admin project")
        heat_domain = ks.domain("heat", "Heat stack users (localcloud)")
        magnum_domain = ks.domain("magnum", "Magnum trustees (localcloud)")

        def admin():
            uid = ks.user("admin", self.sec["admin"])
            ks.grant_project(roles["admin"], uid, admin_project)

        def demo_user():
            uid = ks.user("demo", self.sec["demo"], project_id=demo)
            for r in DEMO_ROLES:
                ks.grant_project(roles[r], uid, demo)

        def service_user(name):
            uid = ks.user(name, self.sec[name], project_id=service)
            ks.grant_project(roles["admin"], uid, service)
            ks.grant_project(roles["service"], uid, service)

        def domain_admin(name, domain_id):
            uid = ks.user(name, self.sec[name], domain_id=domain_id)
            ks.grant_domain(roles["admin"], uid, domain_id)

        def catalog_entry(entry):
            stype, name, endpoint = entry
            ks.endpoints(ks.service(stype, name), endpoint, REGION)

        jobs = [pool.submit(admin), pool.submit(demo_user),
                pool.submit(domain_admin, "heat_domain_admin", heat_domain),
                pool.submit(domain_admin, "trustee_domain_admin", magnum_domain)]
        jobs += [pool.submit(service_user, n) for n in self.service_users()]
        jobs += [pool.submit(catalog_entry, e) for e in self.catalog()]
        for job in jobs:
            job.result()
        pool.shutdown()
        if self.tier != "full":
            for stype, name in [("placement", "placement"), ("compute", "nova"),
                                ("network", "neutron"), ("load-balancer", "octavia")]:
                ks.remove_service(stype, name)
        with open(marker, "w") as f:
            f.write(digest + "\n")
        write_user_files(self.layout, self.sec)
        self.timer.step("identities and catalog")

    def _identities_look_right(self):
        """Cheap check behind the marker: demo logs in and sees this tier's catalog."""
        try:
            _, body = rest.password_token(auth_url(), "demo", self.sec["demo"], project="demo")
        except Exception:
            return False
        types = {svc["type"] for svc in body.get("catalog", [])}
        roles = {r["name"] for r in body.get("roles", [])}
        return {stype for stype, _, _ in self.catalog()} <= types and set(DEMO_ROLES) <= roles

    # ------------------------------------------------------------------ heat
    def heat_names(self):
        """(database/config key, RabbitMQ vhost, services whose types are stubbed)."""
        if self.tier == "full":
            # Nova, Neutron and Octavia are real; Cinder does not run in the full tier either
            return "heatfull", "localcloud_heatfull", "cinder"
        return "heat", "localcloud_heat", "nova,neutron,cinder,octavia"

    def heat_conf(self):
        key, vhost, stubbed = self.heat_names()
        d = self.layout.etc_dir(key)
        policy = os.path.join(d, "policy.yaml")
        with open(policy, "w") as f:
            f.write("# localcloud: the admin (the node simulator) may list stacks of all "
                    "projects.\n\"stacks:global_index\": \"rule:context_is_admin\"\n")
        default = {
            "debug": False,
            "use_stderr": True,
            "transport_url": infra.rabbit_url(vhost),
            "num_engine_workers": 2,
            "heat_metadata_server_url": "http://%s:8000" % HOST,
            "heat_waitcondition_server_url": "http://%s:8000/v1/waitcondition" % HOST,
            "stack_domain_admin": "heat_domain_admin",
            "stack_domain_admin_password": self.sec["heat_domain_admin"],
            "stack_user_domain_name": "heat",
            "region_name_for_services": REGION,
            "default_deployment_signal_transport": "HEAT_SIGNAL",
            "max_nested_stack_depth": 10,
            "environment_dir": os.path.join(d, "environment.d"),
            "template_dir": os.path.join(d, "templates"),
        }
        os.makedirs(default["template_dir"], exist_ok=True)
        os.makedirs(default["environment_dir"], exist_ok=True)
        default["plugin_dirs"] = HEAT_PLUGIN_DIR
        write_ini(os.path.join(d, "heat.conf"), {
            "DEFAULT": default,
            "database": {"connection": self.ensure_db(key)},
            "keystone_authtoken": authtoken_section("heat", self.sec["heat"]),
            "trustee": {
                "auth_type": "password", "auth_url": auth_url(), "username": "heat",
                "password": self.sec["heat"], "user_domain_name": "Default",
            },
            "clients_keystone": {"auth_uri": "http://%s:%d" % (HOST, PORTS["keystone"])},
            "clients": {"endpoint_type": "publicURL"},
            "oslo_policy": {"policy_file": policy},
            "paste_deploy": {"api_paste_config": os.path.join(
                self.layout.venv, "etc", "heat", "api-paste.ini")},
            "oslo_messaging_rabbit": {"heartbeat_timeout_threshold": 60},
        })
        return d, os.path.join(d, "heat.conf"), stubbed

    def start_heat(self):
        key, vhost, _ = self.heat_names()
        infra.ensure_vhost(vhost)
        d, conf, stubbed = self.heat_conf()
        env_dir = os.path.join(d, "environment.d")
        for name in os.listdir(env_dir):
            os.remove(os.path.join(env_dir, name))
        procs.run([self.layout.python, os.path.join(HERE, "heat", "gen_facades.py"),
                   env_dir, os.path.join(d, "facades"), stubbed],
                  logpath=self.layout.log("heat-manage"))
        self.db_sync(key, [self.layout.bin("heat-manage"), "--config-file", conf, "db_sync"],
                     "heat-manage")
        self.timer.step("heat config and schema")
        env = {"LOCALCLOUD_HEAT_CONF": conf, "LOCALCLOUD_STUBBED_SERVICES": stubbed,
               "LOCALCLOUD_IPAM_FILE": os.path.join(self.layout.data_dir("heat"), "ipam.json"),
               "LOCALCLOUD_SERVERS_DIR": self.layout.servers_dir()}
        watch = [d, HEAT_PLUGIN_DIR]
        gunicorn(self.layout, "heat-api", "localcloud_heat_wsgi", PORTS["heat-api"],
                 workers=1, threads=4, env=env, watch=watch)
        procs.start(self.layout, "heat-engine",
                    [self.layout.bin("heat-engine"), "--config-file", conf], env=env,
                    watch=watch + venv_markers(self.layout))

    def wait_heat(self):
        procs.wait_until(self.layout, "heat-api", lambda: procs.http_ok(url("heat-api", "/")),
                         90, "GET /")
        # a call published before heat-engine consumes its topic queue is dropped by RabbitMQ
        # (a fresh vhost has no queue yet) and heat-api answers 500 after a 60 s RPC timeout
        _, vhost, _ = self.heat_names()
        procs.wait_until(self.layout, "heat-engine",
                         lambda: infra.queue_consumers(vhost, "engine") > 0, 120,
                         "heat-engine consuming its RPC queue")

    # ------------------------------------------------------------------ barbican
    def start_barbican(self):
        d = self.layout.etc_dir("barbican")
        dburl = self.ensure_db("barbican")
        write_ini(os.path.join(d, "barbican.conf"), {
            "DEFAULT": {"debug": False, "use_stderr": True, "host_href": url("barbican"),
                        "db_auto_create": False},
            "database": {"connection": dburl},
            "secretstore": {"namespace": "barbican.secretstore.plugin",
                            "enabled_secretstore_plugins": "store_crypto"},
            "crypto": {"namespace": "barbican.crypto.plugin",
                       "enabled_crypto_plugins": "simple_crypto"},
            "simple_crypto_plugin": {"kek": self.sec["barbican_kek"]},
            "keystone_authtoken": authtoken_section("barbican", self.sec["barbican"]),
            "queue": {"enable": False},
        })
        env = {"HOME": d, "LOCALCLOUD_BARBICAN_PASTE":
               os.path.join(self.layout.venv, "etc", "barbican", "barbican-api-paste.ini")}
        self.db_sync("barbican", [self.layout.bin("barbican-manage"), "db", "upgrade",
                                  "--db-url", dburl], "barbican-manage", env=env)
        gunicorn(self.layout, "barbican", "localcloud_barbican_wsgi", PORTS["barbican"],
                 workers=1, threads=4, env=env, watch=[os.path.join(d, "barbican.conf")])

    def wait_barbican(self):
        procs.wait_until(self.layout, "barbican", lambda: procs.http_ok(url("barbican", "/")),
                         90, "GET /")

    # ------------------------------------------------------------------ glance
    def start_glance(self):
        d = self.layout.etc_dir("glance")
        write_ini(os.path.join(d, "glance-api.conf"), {
            "DEFAULT": {"debug": False, "use_stderr": True, "enabled_backends": "fs:file",
                        "worker_self_reference_url": url("glance")},
            "database": {"connection": self.ensure_db("glance")},
            "glance_store": {"default_backend": "fs"},
            "fs": {"filesystem_store_datadir": self.layout.data_dir("glance", "images")},
            "os_glance_staging_store": {
                "filesystem_store_datadir": self.layout.data_dir("glance", "staging")},
            "os_glance_tasks_store": {
                "filesystem_store_datadir": self.layout.data_dir("glance", "tasks")},
            "keystone_authtoken": authtoken_section("glance", self.sec["glance"]),
            "paste_deploy": {"flavor": "keystone", "config_file": os.path.join(
                self.layout.venv, "etc", "glance", "glance-api-paste.ini")},
        })
        self.db_sync("glance", [self.layout.bin("glance-manage"), "--config-file",
                                os.path.join(d, "glance-api.conf"), "db_sync"], "glance-manage")
        gunicorn(self.layout, "glance", "localcloud_glance_wsgi", PORTS["glance"],
                 workers=1, threads=4, env={"OS_GLANCE_CONFIG_DIR": d},
                 watch=[os.path.join(d, "glance-api.conf")])

    def wait_glance(self):
        procs.wait_until(self.layout, "glance", lambda: procs.http_ok(url("glance", "/")),
                         90, "GET /")

    def seed_images(self):
        token, _ = rest.password_token(auth_url(), "admin", self.sec["admin"], project="admin")
        base = url("glance", "/v2/images")
        for name, distro in IMAGES:
            found = rest.request("GET", base + "?name=" + name, token)[2]["images"]
            active = [i for i in found if i["status"] == "active"]
            for img in found:
                if img["status"] != "active" or (active and img["id"] != active[0]["id"]):
                    rest.request("DELETE", base + "/" + img["id"], token)
            if active:
                continue
            img = rest.request("POST", base, token, body={
                "name": name, "disk_format": "raw", "container_format": "bare",
                "visibility": "public", "os_distro": distro,
                "localcloud": "dummy image, never booted"})[2]
            rest.request("PUT", "%s/%s/file" % (base, img["id"]), token,
                         raw=b"\0" * 65536, timeout=120)
        self.timer.step("images")

    # ------------------------------------------------------------------ helpers
    def start_helpers(self):
        procs.start(self.layout, "etcd-discovery", [
            self.layout.python, os.path.join(HELPERS, "etcd_discovery.py"),
            "--host", HOST, "--port", str(PORTS["etcd-discovery"])],
            watch=[os.path.join(HELPERS, "etcd_discovery.py")])
        procs.start(self.layout, "nodesim", [
            self.layout.python, "-m", "localcloud.helpers.nodesim",
            "--auth-url", auth_url(), "--username", "admin", "--project", "admin",
            "--heartbeat", os.path.join(self.layout.run, "nodesim.heartbeat"),
            "--state-dir", self.layout.run, "--servers-dir", self.layout.servers_dir()],
            env={"LOCALCLOUD_NODESIM_PASSWORD": self.sec["admin"]}, cwd=REPO,
            watch=[HELPERS])
        procs.wait_until(self.layout, "etcd-discovery",
                         lambda: procs.http_ok(url("etcd-discovery", "/health")), 30, "/health")
        heartbeat = os.path.join(self.layout.run, "nodesim.heartbeat")
        started = time.time()

        def polled():
            try:
                return os.path.getmtime(heartbeat) >= started - 1
            except OSError:
                return False

        procs.wait_until(self.layout, "nodesim", polled, 60, "first poll of Heat")

    # ------------------------------------------------------------------ up
    def ports(self):
        return {name: PORTS[name] for name in ("keystone", "heat-api", "barbican", "glance",
                                               "etcd-discovery")}

    def prepare(self):
        """Refuse ports held by processes we did not start; forget another state dir's data."""
        ours = {name for name, _ in full_services() if procs.running_pid(self.layout, name)}
        busy = [(name, port) for name, port in self.ports().items()
                if name not in ours and infra.port_open(port)]
        if busy:
            raise StartError(
                "port(s) %s already in use by processes this state directory (%s) did not "
                "start: another local cloud (another MAGNUM_LOCALCLOUD_DIR or clone) or another "
                "server is running; stop it first"
                % (", ".join("%d (%s)" % (p, n) for n, p in busy), self.layout.root))
        # Which state directory do the localcloud_* databases belong to?
        owner = infra.mysql("SELECT state_id FROM %smeta.owner;" % DB_PREFIX, check=False)
        owner = owner.strip() if owner else None
        mine = self.sec["state_id"]
        if owner != mine and (owner is not None or self.fresh):
            out = infra.mysql("SHOW DATABASES LIKE '%s%%';" % DB_PREFIX.replace("_", "\\_"))
            stale = out.split()
            log("the %s* databases belong to another state directory: dropping %s"
                % (DB_PREFIX, " ".join(stale) or "nothing"))
            for name in stale:
                infra.drop_database(name)
            for vhost in STALE_VHOSTS:
                infra.delete_vhost(vhost)
            for name in os.listdir(self.layout.markers):
                if not name.startswith("venv-"):
                    os.remove(os.path.join(self.layout.markers, name))
        if owner != mine:
            meta = DB_PREFIX + "meta"
            infra.mysql(f"CREATE DATABASE IF NOT EXISTS `{meta}`; "
                        f"CREATE TABLE IF NOT EXISTS `{meta}`.owner (state_id VARCHAR(64)); "
                        f"DELETE FROM `{meta}`.owner; "
                        f"INSERT INTO `{meta}`.owner VALUES ('{mine}');")

    def up(self):
        t_start = time.time()
        infra.ensure_mariadb()
        infra.ensure_rabbitmq()
        self.prepare()
        self.timer.step("MariaDB and RabbitMQ")
        self.ensure_venv()
        self.start_keystone()
        self.start_barbican()
        self.start_glance()
        self.wait_keystone()
        self.timer.step("keystone answering")
        self.identities()
        self.start_heat()
        self.wait_barbican()
        self.wait_glance()
        self.wait_heat()
        self.warm_up(self.warm_up_urls())
        self.timer.step("heat, barbican and glance answering")
        self.seed_images()
        self.start_helpers()
        self.layout.write_tier(self.tier)
        log("lite tier up in %.1fs" % (time.time() - t_start))

    def warm_up_urls(self):
        _, body = rest.password_token(auth_url(), "admin", self.sec["admin"], project="admin")
        project = body["project"]["id"]
        return [url("heat-api", "/v1/%s/stacks" % project), url("barbican", "/v1/secrets"),
                url("glance", "/v2/images")]
