"""Kubernetes on Ubuntu: cloud-init user data, containerd from the distribution."""

from __future__ import annotations

from drivers.heat.driver import KubernetesHeatDriver
from drivers.heat.profile import CLOUD_INIT, OsProfile


class Driver(KubernetesHeatDriver):
    name = "k8s_ubuntu_v1"
    profile = OsProfile(driver_name=name, os_distro="ubuntu", bootstrap_format=CLOUD_INIT,
                        containerd_source="package", login_user="ubuntu", selinux=False)
