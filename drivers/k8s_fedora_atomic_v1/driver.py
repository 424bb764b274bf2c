"""Kubernetes on Fedora Atomic: cloud-init user data, containerd from the release tarball."""

from __future__ import annotations

from drivers.heat.driver import KubernetesHeatDriver
from drivers.heat.profile import CLOUD_INIT, OsProfile


class Driver(KubernetesHeatDriver):
    name = "k8s_fedora_atomic_v1"
    profile = OsProfile(driver_name=name, os_distro="fedora-atomic", bootstrap_format=CLOUD_INIT,
                        containerd_source="tarball", login_user="fedora", selinux=True)
