"""Where things live: repository paths, the state directory, ports and secrets."""

import json
import os
import secrets
import sys

HERE = os.path.dirname(os.path.realpath(__file__))  # the localcloud package
REPO = os.path.dirname(HERE)
#: The command line users (and tests) run: a shell wrapper around ``python3 -m localcloud``.
CLI = os.path.join(REPO, "tools", "localcloud")

HOST = "127.0.0.1"
REGION = "RegionOne"

PORTS = {
    "keystone": 5000,
    "heat-api": 8004,
    "barbican": 9311,
    "glance": 9292,
    "etcd-discovery": 8099,
    # full tier
    "placement": 8778,
    "nova-api": 8774,
    "neutron": 9696,
    "octavia-api": 9876,
}

# Magnum itself is run by the project, not by localcloud; only its catalog entry is ours.
MAGNUM_URL = "http://%s:9511/v1" % HOST

# One MariaDB database (and user) per service.
DB_PREFIX = "localcloud_"

# Packages of the cloud's virtualenv, resolved against localcloud/constraints.txt.
LITE_PACKAGES = [
    "keystone==30.0.0",
    "openstack-heat==27.0.1",
    "barbican==23.0.0",
    "glance==33.0.0",
    "PyMySQL",
    "gunicorn",
]
FULL_PACKAGES = [
    "openstack-placement==16.0.0",
    "nova==34.0.0",
    "neutron==29.0.0",
    "octavia==19.0.0",
]

CONSTRAINTS = os.path.join(HERE, "constraints.txt")


def state_dir():
    d = os.environ.get("MAGNUM_LOCALCLOUD_DIR") or os.path.join(REPO, ".localcloud")
    return os.path.abspath(d)


class Layout:
    """Paths inside the state directory."""

    def __init__(self, root=None):
        self.root = root or state_dir()
        self.venv = os.path.join(self.root, "venv")
        self.etc = os.path.join(self.root, "etc")
        self.logs = os.path.join(self.root, "logs")
        self.run = os.path.join(self.root, "run")
        self.data = os.path.join(self.root, "data")
        self.markers = os.path.join(self.root, "markers")
        self.secrets_file = os.path.join(self.root, "secrets.json")
        self.tier_file = os.path.join(self.root, "tier")
        self.clouds_yaml = os.path.join(self.root, "clouds.yaml")
        self.magnum_conf = os.path.join(self.root, "magnum-localcloud.conf")

    def mkdirs(self):
        for d in (self.root, self.etc, self.logs, self.run, self.data, self.markers):
            os.makedirs(d, exist_ok=True)

    def bin(self, name):
        return os.path.join(self.venv, "bin", name)

    @property
    def python(self):
        return self.bin("python")

    def etc_dir(self, svc):
        d = os.path.join(self.etc, svc)
        os.makedirs(d, exist_ok=True)
        return d

    def data_dir(self, *parts):
        d = os.path.join(self.data, *parts)
        os.makedirs(d, exist_ok=True)
        return d

    def servers_dir(self):
        """The lite tier's stubbed servers' user data (written by Heat, read by nodesim)."""
        return self.data_dir("heat", "servers")

    def log(self, svc):
        return os.path.join(self.logs, svc + ".log")

    def pidfile(self, svc):
        return os.path.join(self.run, svc + ".pid")

    def marker(self, name):
        return os.path.join(self.markers, name)

    def venv_site(self):
        v = "python%d.%d" % sys.version_info[:2]
        lib = os.path.join(self.venv, "lib")
        if os.path.isdir(lib):
            for name in os.listdir(lib):
                if name.startswith("python"):
                    v = name
        return os.path.join(lib, v, "site-packages")

    def read_tier(self):
        try:
            with open(self.tier_file) as f:
                return f.read().strip() or None
        except OSError:
            return None

    def write_tier(self, tier):
        with open(self.tier_file, "w") as f:
            f.write(tier + "\n")


SECRET_NAMES = [
    "admin", "demo", "heat", "barbican", "glance", "magnum", "heat_domain_admin",
    "trustee_domain_admin", "placement", "nova", "neutron", "octavia",
    "db_keystone", "db_heat", "db_barbican", "db_glance", "db_heatfull", "db_placement",
    "db_nova", "db_nova_api", "db_nova_cell0", "db_neutron", "db_octavia",
]


def load_secrets(layout):
    """Random passwords, generated once per state directory and kept in secrets.json."""
    data = {}
    if os.path.exists(layout.secrets_file):
        with open(layout.secrets_file) as f:
            data = json.load(f)
    changed = False
    for name in SECRET_NAMES:
        if name not in data:
            data[name] = "lc-" + secrets.token_hex(12)
            changed = True
    for name in ("octavia_ca_pass", "octavia_amp_pass", "octavia_heartbeat"):
        if name not in data:
            data[name] = secrets.token_hex(16)  # 32 characters, as Octavia requires
            changed = True
    if "state_id" not in data:
        data["state_id"] = secrets.token_hex(8)
        changed = True
    if "barbican_kek" not in data:
        import base64

        data["barbican_kek"] = base64.b64encode(secrets.token_bytes(32)).decode()
        changed = True
    if changed:
        tmp = layout.secrets_file + ".tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, layout.secrets_file)
    return data
