"""What differs between the operating systems the Kubernetes Heat drivers boot.

The three drivers share one template base; an ``OsProfile`` carries the few OS-specific
facts (how user data is consumed, where containerd comes from, the login user), so the
difference stays a data declaration rather than a code fork.
"""

from __future__ import annotations

import dataclasses

IGNITION = "ignition"
CLOUD_INIT = "cloud-init"


@dataclasses.dataclass(frozen=True)
class OsProfile:
    #: Entry-point name of the driver, also its template directory under ``drivers/``.
    driver_name: str
    #: Glance ``os_distro`` the driver serves.
    os_distro: str
    #: ``ignition`` (JSON config) or ``cloud-init`` (#cloud-config).
    bootstrap_format: str
    #: Where the node takes containerd from: ``image`` (preinstalled), ``package``
    #: (distribution packages) or ``tarball`` (upstream release archive).
    containerd_source: str
    #: The image's default login user, who receives the cluster keypair.
    login_user: str
    #: SELinux is managed on this OS (the ``selinux_mode`` label applies).
    selinux: bool
