"""Debian's ``kubectl`` (package ``kubernetes-client``) for the main job and the e2e tests.

The installed package is used when there is one. Otherwise the package is downloaded with
``apt-get download`` and unpacked under the local cloud's state directory, which needs no
root and leaves the machine's own ``/usr/bin/kubectl`` (another package may own that path)
alone. Both happen before the guarded part of a run: ``python3 -m localcloud.scenario.kubectl``
prints the path. Standard library only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from localcloud.scenario import paths

PACKAGE = "kubernetes-client"


def _installed() -> str | None:
    res = subprocess.run(["dpkg-query", "-L", PACKAGE], capture_output=True, text=True)
    if res.returncode != 0:
        return None
    found = [p for p in res.stdout.split() if p.endswith("/bin/kubectl") and os.path.isfile(p)]
    return found[0] if found else None


def _unpacked() -> str:
    return str(paths.cloud_state_dir() / PACKAGE / "usr" / "bin" / "kubectl")


def find() -> str | None:
    """Debian's kubectl if it is here already (installed or unpacked), else None."""
    path = _installed() or _unpacked()
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def ensure() -> str:
    """The path of Debian's kubectl, downloading and unpacking the package if needed."""
    path = find()
    if path:
        return path
    target = paths.cloud_state_dir() / PACKAGE
    with tempfile.TemporaryDirectory(prefix="kubectl-") as tmp:
        download = ["apt-get", "download", "-q", PACKAGE]
        if subprocess.run(download, cwd=tmp, capture_output=True).returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], capture_output=True)
            res = subprocess.run(download, cwd=tmp, capture_output=True, text=True)
            if res.returncode != 0:
                raise RuntimeError(f"apt-get download {PACKAGE} failed: {res.stderr.strip()}")
        (deb,) = [f for f in os.listdir(tmp) if f.endswith(".deb")]
        subprocess.run(["dpkg-deb", "-x", os.path.join(tmp, deb), str(target)], check=True)
    return _unpacked()


if __name__ == "__main__":
    try:
        print(ensure())
    except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
        sys.exit(f"kubectl: {exc}")
