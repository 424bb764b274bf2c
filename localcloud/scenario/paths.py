"""Where things live: the repository, the local cloud's state, the venv, our run directories."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from localcloud import layout

HERE = Path(__file__).resolve().parent             # localcloud/scenario
REPO = HERE.parents[1]
LOCALCLOUD = Path(layout.CLI)
VENV = Path(os.environ.get("MAGNUM_VENV") or REPO / ".venv")

API_HOST = "127.0.0.1"
#: The port the local cloud's catalog gives the container-infra service: ``openstack coe``
#: finds Magnum through the catalog, so every run of our services uses this one port.
API_PORT = 9511


def venv_bin(name: str) -> str:
    return str(VENV / "bin" / name)


def cloud_state_dir() -> Path:
    return Path(layout.state_dir()).resolve()


def magnum_home() -> Path:
    """Our own corner of the local cloud's state directory (runs, the kept key, the lock)."""
    path = cloud_state_dir() / "magnum"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cloud_status(timeout: int = 120) -> dict:
    """``localcloud status --json``; ``{"up": False, ...}`` when it cannot be read."""
    res = subprocess.run([str(LOCALCLOUD), "status", "--json"], capture_output=True, text=True,
                         timeout=timeout)
    try:
        return json.loads(res.stdout)
    except ValueError:
        return {"up": False, "raw": (res.stdout + res.stderr)[-2000:]}


def cloud_tier() -> str:
    path = cloud_state_dir() / "tier"
    return path.read_text().strip() if path.exists() else "lite"


def clouds_yaml() -> Path:
    return cloud_state_dir() / "clouds.yaml"


def magnum_fragment() -> Path:
    return cloud_state_dir() / "magnum-localcloud.conf"


def health_polling_interval() -> int:
    """``[kubernetes] health_polling_interval`` of the local cloud's Magnum fragment."""
    import configparser

    ini = configparser.RawConfigParser()
    ini.read(magnum_fragment())
    return ini.getint("kubernetes", "health_polling_interval", fallback=60)
