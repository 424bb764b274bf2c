"""Assemble a node's user data from the bootstrap fragments, per OS format.

Everything static (the scripts, the systemd unit) is encoded here at render time; the
values only Heat knows (addresses, the completion handle, the node's bootstrap settings)
are ``@@NAME@@`` placeholders the node templates fill with ``str_replace``. Those values are
addresses, names, tokens and base64 text, so they need no escaping in JSON, YAML or data
URLs, and the user data stays correct for any label value.
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import pathlib
import urllib.parse

FRAGMENTS_DIR = pathlib.Path(__file__).resolve().parent.parent / "common" / "fragments"
FRAGMENTS_PATH = "/usr/local/lib/magnum/fragments"
ENTRYPOINT = "magnum-bootstrap.sh"

#: Placeholders every node's runtime environment carries, then the master-only ones.
RUNTIME_KEYS = ("NODE_NAME", "NODE_IP", "NODE_PUBLIC_IP", "API_PRIVATE_ADDRESS", "KUBE_TAG",
                "GENERATION", "ETCD_VOLUME_ID", "DOCKER_VOLUME_ID", "WAIT_ENDPOINT", "WAIT_TOKEN")
MASTER_RUNTIME_KEYS = ("NODE_INDEX", "MASTER_IPS", "API_PUBLIC_ADDRESS", "KUBE_SA_KEY",
                       "KUBE_SA_PRIVATE_KEY")

UNIT = """\
[Unit]
Description=Configure this node as part of its Magnum Kubernetes cluster
Wants=network-online.target
After=network-online.target
ConditionPathExists=!/var/lib/magnum/bootstrap.done

[Service]
Type=oneshot
RemainAfterExit=yes
TimeoutStartSec=0
ExecStart=/usr/local/bin/magnum-bootstrap

[Install]
WantedBy=multi-user.target
"""


@dataclasses.dataclass(frozen=True)
class StaticFile:
    path: str
    mode: int
    content: bytes

    @property
    def b64(self) -> str:
        return base64.b64encode(self.content).decode()

    @property
    def gzip_b64(self) -> str:
        """Gzip (fixed mtime, so renders stay identical) then base64: Nova caps user data
        at 64 KiB, and the scripts compress to well under half their size."""
        return base64.b64encode(gzip.compress(self.content, mtime=0)).decode()

    @property
    def mode_octal(self) -> str:
        return f"{self.mode:04o}"


def fragment_paths() -> list[pathlib.Path]:
    """Every fragment script, in run order (their names start with the order number)."""
    return sorted(FRAGMENTS_DIR.glob("*.sh"))


def static_files() -> list[StaticFile]:
    """The scripts every node receives, whatever its role (the unit comes separately)."""
    files = []
    for path in fragment_paths():
        if path.name == ENTRYPOINT:
            files.append(StaticFile("/usr/local/bin/magnum-bootstrap", 0o755, path.read_bytes()))
        else:
            files.append(StaticFile(f"{FRAGMENTS_PATH}/{path.name}", 0o755, path.read_bytes()))
    return files


def runtime_env(role: str) -> str:
    """The ``KEY=@@KEY@@`` lines Heat fills in for a node of ``role``."""
    keys = RUNTIME_KEYS + (MASTER_RUNTIME_KEYS if role == "master" else ())
    return "".join(f"{key}=@@{key}@@\n" for key in keys)


def render_context(role: str) -> dict:
    """What a driver's ``userdata.j2`` needs to lay out the files for ``role``."""
    env = runtime_env(role)
    return {
        "role": role,
        "files": static_files(),
        "runtime_env": env,
        "runtime_env_lines": env.splitlines(),
        "runtime_env_dataurl": "data:," + urllib.parse.quote(env, safe="@=_"),
        "unit": UNIT,
        "unit_file": StaticFile("/etc/systemd/system/magnum-bootstrap.service", 0o644,
                                UNIT.encode()),
    }
